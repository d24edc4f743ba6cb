// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "AssetWatch",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "RemoteAssets", targets: ["RemoteAssets"]),
    .executable(name: "assetwatch", targets: ["assetwatch"]),
    .library(name: "RemoteAssetsService", targets: ["RemoteAssetsService"]),
    .library(name: "RemoteAssetsPrometheus", targets: ["RemoteAssetsPrometheus"]),
    // Test doubles for an app's own tests (as swift-nio keeps NIOEmbedded apart from NIOCore).
    .library(name: "RemoteAssetsTesting", targets: ["RemoteAssetsTesting"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    // Already in the graph through async-http-client: named here for its stream errors.
    .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
  ],
  targets: [
    // The engine's vocabulary: asset status, state words, events, commands. Pure; no I/O.
    .target(name: "AssetModel"),
    // Hand-written JSON reading and writing: the cache entries' fast scanner and writer, TUF's
    // strict parser and canonical form, the config reader with positions, the CLI's ordered
    // encoder, and the string escaping they share. Pure; no dependencies.
    .target(name: "AssetJSON"),
    // A large file's content-defined chunk index (FastCDC cuts, SHA-256 per chunk, a strict
    // text format): what a publisher writes and a client diffs against. Pure apart from `build`.
    .target(
      name: "ChunkIndex",
      dependencies: [.product(name: "Crypto", package: "swift-crypto")]
    ),
    // The caching engine library.
    .target(
      name: "RemoteAssets",
      dependencies: [
        "AssetModel",
        "AssetJSON",
        "ChunkIndex",
        "CFileWriteback",
        "TUF",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        // The gzip decoder's errors (the client decodes with it): a bomb, a cut stream.
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
        // HTTP/2 stream errors: a stream the server refused or dropped with GOAWAY is sent again.
        .product(name: "NIOHTTP2", package: "swift-nio-http2"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
      ]
    ),
    // The terminal's vocabulary: ScreenBuffer, cells, styles, colours, keys, rectangles, display
    // width, capabilities and the Widget protocol. Pure; no curses, no I/O (ratatui's core).
    .target(name: "TerminalCore"),
    // The dashboard's pure core: state, reducer, layout, widgets. No curses, no I/O.
    .target(name: "Dashboard", dependencies: ["TerminalCore", "AssetModel", "FleetModel"]),
    // A fleet of engines as Prometheus sees them: the API's JSON parsed, instances x assets,
    // rollout progress. Pure; the HTTP requests are the CLI's.
    .target(name: "FleetModel", dependencies: ["AssetModel"]),
    .systemLibrary(
      name: "CNCurses",
      path: "Sources/CNCurses",
      providers: [.apt(["libncurses-dev"])]
    ),
    // Restores the terminal from fatal-signal handlers (C, async-signal-safe).
    .target(name: "CTerminalGuard"),
    // Linux file calls Swift's Glibc module leaves out: sync_file_range, syncfs, copy_file_range.
    .target(name: "CFileWriteback"),
    // The ncurses backend: owns the terminal on one thread.
    .target(name: "CursesTerminal", dependencies: ["TerminalCore", "CNCurses", "CTerminalGuard"]),
    // A loopback HTTP origin that simulates a rollout; used by `demo` and the tests.
    .target(
      name: "DemoOrigin",
      dependencies: [
        "TUFPublish",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    // The `assetwatch` executable: a few lines that call the CLI library.
    .executableTarget(name: "assetwatch", dependencies: ["AssetWatchCLI"]),
    // The bench's floor: the engine's conditional GETs through AsyncHTTPClient alone
    // (scripts/bench.sh builds and runs it beside curl; nothing ships it).
    .executableTarget(
      name: "AHCFloor",
      dependencies: [
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    // The commands, their options and output formats; tested in process by AssetWatchCLITests.
    .target(
      name: "AssetWatchCLI",
      dependencies: [
        "RemoteAssets", "AssetJSON", "Dashboard", "TerminalCore", "CursesTerminal", "DemoOrigin",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        "RemoteAssetsService",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        "RemoteAssetsPrometheus", .product(name: "Metrics", package: "swift-metrics"),
        "FleetModel", .product(name: "AsyncHTTPClient", package: "async-http-client"),
        "TUFPublish", "ChunkIndex", "CTerminalGuard",
      ]
    ),
    // The engine as a swift-service-lifecycle `Service`: one line in an app's `ServiceGroup`.
    // A target of its own so the core library does not pull in the lifecycle package.
    .target(
      name: "RemoteAssetsService",
      dependencies: [
        "RemoteAssets", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The engine's metrics in the Prometheus text format, and a small HTTP endpoint serving them.
    // A target of its own so the core library does not pull in swift-prometheus.
    .target(
      name: "RemoteAssetsPrometheus",
      dependencies: [
        "RemoteAssets", "AssetModel",
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]
    ),
    // An embedding example: a feature-flags HTTP server over the engine, control socket on.
    .executableTarget(
      name: "FlagServer",
      dependencies: [
        "RemoteAssets", "RemoteAssetsService",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "examples/FlagServer",
      exclude: ["flags.json"]
    ),
    // The Update Framework (TUF 1.0.x) client-side verifier: metadata parsing, canonical JSON,
    // signatures, the trusted-metadata state machine and the delegation walk. Pure; no I/O.
    .target(
      name: "TUF",
      dependencies: [
        "AssetModel",
        "AssetJSON",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]
    ),
    // The publisher's side of TUF: builds, signs and writes repository metadata (ed25519 keys,
    // canonical JSON, consistent snapshots, the timestamp written last). Pure apart from the
    // folder reader and the crash-safe writer at its edges; `assetwatch publish` drives it.
    .target(
      name: "TUFPublish",
      dependencies: [
        "AssetJSON", "ChunkIndex", .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    // Test support (not a product): temporary folders, free ports, child processes, nginx, a
    // scoped LoopbackOrigin. Every scope cleans up also when its body throws.
    .target(name: "AssetWatchTestKit", dependencies: ["DemoOrigin"]),
    // Test doubles an app's tests use too (a product): `ManualClock`, `ScriptedFetcher`,
    // `FixedFetcher`. Only `RemoteAssets`: no servers, no processes.
    .target(name: "RemoteAssetsTesting", dependencies: ["RemoteAssets"]),
    // Engine-level test support (not a product): `withEngine { }`, event waits; re-exports
    // `RemoteAssetsTesting`.
    .target(
      name: "RemoteAssetsTestKit",
      dependencies: [
        "AssetWatchTestKit", "RemoteAssets", "RemoteAssetsTesting",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
      ]
    ),
    .testTarget(
      name: "RemoteAssetsTests",
      dependencies: [
        "RemoteAssets", "DemoOrigin", "AssetWatchTestKit", "RemoteAssetsTestKit", "TUF",
        "ChunkIndex",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
      ]
    ),
    .testTarget(name: "TerminalCoreTests", dependencies: ["TerminalCore"]),
    .testTarget(name: "FleetModelTests", dependencies: ["FleetModel"]),
    .testTarget(
      name: "DashboardTests",
      dependencies: ["Dashboard", "TerminalCore", "AssetModel", "FleetModel"],
      exclude: ["Snapshots"]),
    .testTarget(
      name: "CursesTerminalTests", dependencies: ["CursesTerminal", "TerminalCore", "CNCurses"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["DemoOrigin", "AssetModel", "RemoteAssets", "AssetWatchTestKit"]),
    .testTarget(
      name: "RemoteAssetsPrometheusTests",
      dependencies: [
        "RemoteAssetsPrometheus", "RemoteAssets", "AssetModel", "AssetWatchTestKit",
        "RemoteAssetsTestKit", "DemoOrigin",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]),
    .testTarget(name: "DemoOriginTests", dependencies: ["DemoOrigin", "AssetWatchTestKit"]),
    .testTarget(
      name: "AssetWatchCLITests",
      dependencies: [
        "AssetWatchCLI", "AssetJSON", "RemoteAssets", "AssetModel", "AssetWatchTestKit",
        "RemoteAssetsTestKit", "ChunkIndex",
        "DemoOrigin", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .testTarget(
      name: "TUFTests", dependencies: ["TUF", "AssetJSON", "AssetModel", "AssetWatchTestKit"],
      exclude: ["Fixtures"]),
    .testTarget(name: "AssetJSONTests", dependencies: ["AssetJSON", "AssetWatchTestKit"]),
    // The documents against the sources: links resolve, ARCHITECTURE's numbers are computed from
    // the code, the DocC landing page lists every public type. Reads files only; no modules.
    .testTarget(name: "DocumentationTests"),
    .testTarget(
      name: "ChunkIndexTests",
      dependencies: [
        "ChunkIndex", "AssetWatchTestKit", .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // The publisher against the engine's verifier and python-tuf's client; the CLI as a binary.
    .testTarget(
      name: "TUFPublishTests",
      dependencies: [
        "TUFPublish", "TUF", "AssetJSON", "AssetWatchTestKit", "DemoOrigin", "ChunkIndex",
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
