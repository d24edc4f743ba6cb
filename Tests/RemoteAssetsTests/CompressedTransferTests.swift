import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Which assets are asked for gzip (pure).
struct CompressionPolicyTests {
  @Test func textLikeAssetsAskForGzipCompressedOnesDoNot() {
    #expect(CompressionPolicy.asksForGzip(format: .json, path: "/flags.json"))
    #expect(CompressionPolicy.asksForGzip(format: .text, path: "/notes.txt"))
    #expect(CompressionPolicy.asksForGzip(format: .binary, path: "/model.bin"))
    #expect(CompressionPolicy.asksForGzip(format: .binary, path: "/scripts/run.js"))
    #expect(CompressionPolicy.asksForGzip(format: .binary, path: "/no-extension"))
    #expect(CompressionPolicy.asksForGzip(format: .text, path: "/v1.2/readme"))
    // The format says image whatever the name.
    #expect(!CompressionPolicy.asksForGzip(format: .png, path: "/logo"))
    #expect(!CompressionPolicy.asksForGzip(format: .jpeg, path: "/photo.dat"))
    for name in [
      "a.gz", "b.TGZ", "c.zip", "d.zst", "e.xz", "f.bz2", "g.br", "h.7z", "i.png", "j.jpg",
      "k.jpeg", "l.gif", "m.webp", "n.avif", "o.mp4", "p.webm", "q.mp3", "r.ogg", "s.woff2",
      "t.jar", "u.apk", "bundle.tar.gz",
    ] {
      #expect(!CompressionPolicy.asksForGzip(format: .binary, path: "/dl/\(name)"), "\(name)")
    }
    // A query does not change the path's extension.
    let url = URL(string: "http://127.0.0.1:8080/pkg/archive.zip?version=2.json")!
    #expect(!CompressionPolicy.asksForGzip(format: .binary, url: url))
  }

  /// The byte-level reading of the path says what splitting it into segments and lowercasing
  /// the last one's extension says (the rule as it was first written), for every path here:
  /// trailing and doubled slashes, leading dots, case, several dots, non-ASCII extensions.
  @Test func theBytewiseReadingAgreesWithSegments() {
    func reference(_ path: String) -> Bool {
      let name = path.split(separator: "/").last.map(String.init) ?? ""
      guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return true }
      let ext = name[name.index(after: dot)...].lowercased()
      return !CompressionPolicy.compressedExtensions.contains(ext)
    }
    let names = [
      "a.gz", "b.TGZ", "c.Zip", "flags.json", ".gz", "..gz", "x.", "noext", "tar.gz.", "v1.2",
      "MODEL.BIN", "photo.JPEG", "w.woff2", "é.gz", "a.gzé", "k.\u{212A}", "a.tar.GZ", "",
    ]
    var paths: [String] = ["", "/", "//", "///a.gz//"]
    for name in names {
      for shape in [
        "/\(name)", "/dir/\(name)", "/dir/\(name)/", "\(name)", "/a.gz/\(name)", "//\(name)//",
      ] {
        paths.append(shape)
      }
    }
    for path in paths {
      #expect(
        CompressionPolicy.asksForGzip(format: .binary, path: path) == reference(path), "\(path)")
    }
  }

  @Test func contentCodingsOtherThanGzipAreRefused() throws {
    func coding(_ value: String?, decoded: Bool) throws(FetchError) -> HTTPFetcher.ContentCoding {
      let values = value.map { $0.split(separator: ",").map(String.init) } ?? []
      return try HTTPFetcher.contentCoding(values, decoded: decoded)
    }
    #expect(try coding(nil, decoded: true) == .identity)
    #expect(try coding("identity", decoded: true) == .identity)
    #expect(try coding("GZIP", decoded: true) == .decodedGzip)
    #expect(try coding("gzip", decoded: false) == .rawGzip)
    #expect(try coding("x-gzip", decoded: false) == .rawGzip)
    for value in ["br", "deflate", "zstd", "gzip, br", "x-gzip"] {
      let error = #expect(throws: FetchError.self) { try coding(value, decoded: true) }
      #expect(error?.kind == .invalid)
      #expect(error?.message.contains("which was not asked for") == true, "\(error?.message ?? "")")
    }
    #expect(throws: FetchError.self) { try coding("br", decoded: false) }
  }
}

/// Compressed transfer against nginx from Debian: gzip asked for text-like assets only, decoded
/// bytes checked (hash, size, `maxBytes`, whatever the ratio), resumes in identity.
@Suite(
  .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"),
  .serialized)
struct CompressedTransferTests {
  /// nginx compresses on the fly what it may (every type here, images included, so only what the
  /// client asks decides), serves `/static/` from prepared `.gz` files (`gzip_static`), and labels
  /// `/br/` as brotli whatever it is.
  static let directives = """
    gzip on;
        gzip_comp_level 6;
        gzip_min_length 1;
        gzip_types application/json text/plain application/octet-stream image/png;
        location /static/ { gzip off; gzip_static on; }
        location /br/ { gzip off; add_header Content-Encoding br; }
    """

  /// A JSON document that gzip makes about 10x smaller (like real data, unlike a bomb).
  static func records(_ count: Int) -> Data {
    let items = (0..<count).map { i in
      #"{"id":\#(i),"name":"item \#(i)","enabled":\#(i % 3 == 0),"weight":\#(i * 7 % 101)}"#
    }
    return Data(("[" + items.joined(separator: ",") + "]").utf8)
  }

  /// `data` gzipped by /usr/bin/gzip (a tool nobody here wrote).
  static func gzip(_ data: Data, in dir: TemporaryDirectory) async throws -> Data {
    let plain = dir.url.appendingPathComponent("plain-\(UUID().uuidString)")
    try data.write(to: plain)
    let made = try await ProcessRunner.runTool("gzip", ["-9", "-n", plain.path], timeout: 60)
    #expect(made.status == 0, "\(made.stderr)")
    return try Data(contentsOf: URL(fileURLWithPath: plain.path + ".gz"))
  }

  /// The response's `$body_bytes_sent` in nginx's access-log line.
  static func bodyBytesSent(_ line: String) -> Int? {
    guard let request = line.range(of: " HTTP/1.1\" ") else { return nil }
    let fields = line[request.upperBound...].split(separator: " ")
    return fields.count > 1 ? Int(fields[1]) : nil
  }

  @Test func jsonTravelsGzippedAndIsCheckedDecoded() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        let file = Self.records(3000)
        try nginx.put("gz/data.json", file)
        let asset = AssetDefinition(
          id: "data", remote: URL(string: "\(nginx.baseURL)/gz/data.json"), format: .json,
          expectedSize: Int64(file.count), sha256: sha256Hex(file))
        try await withEngine([asset], cache: dir.cache) { engine in
          let outcome = await engine.refresh("data")
          #expect(outcome.isUpdated, "\(outcome)")
          #expect(try await engine.data("data") == file)
          let status = try #require(await engine.status("data"))
          #expect(status.sha256 == sha256Hex(file))
          #expect(status.size == Int64(file.count))
        }
        let line = try #require(await nginx.hits("/gz/data.json", atLeast: 1).last)
        #expect(line.contains(#"ae="gzip""#), "\(line)")
        #expect(line.contains(#"ce="gzip""#), "\(line)")
        let sent = try #require(Self.bodyBytesSent(line), "\(line)")
        #expect(sent * 4 < file.count, "sent \(sent) bytes for a \(file.count)-byte file")
      }
    }
  }

  @Test func compressedFormatsAreFetchedAsIdentity() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        // An uncompressed PNG (stored deflate blocks) and a "tarball" of text: nginx would shrink
        // both, had the client asked.
        let png = PNGEncoder.image(width: 64, height: 64) { x, y in (UInt8(x), UInt8(y), 0) }
        let tarball = Self.records(500)
        try nginx.put("img/logo.png", png)
        try nginx.put("pkg/bundle.tar.gz", tarball)
        let assets = [
          AssetDefinition(
            id: "logo", remote: URL(string: "\(nginx.baseURL)/img/logo.png"), format: .png),
          AssetDefinition(
            id: "bundle", remote: URL(string: "\(nginx.baseURL)/pkg/bundle.tar.gz"),
            format: .binary, sha256: sha256Hex(tarball)),
        ]
        try await withEngine(assets, cache: dir.cache) { engine in
          #expect(await engine.refresh("logo").isUpdated)
          #expect(await engine.refresh("bundle").isUpdated)
          let (logo, bundle) = (try await engine.data("logo"), try await engine.data("bundle"))
          #expect(logo == png)
          #expect(bundle == tarball)
        }
        for (path, size) in [("/img/logo.png", png.count), ("/pkg/bundle.tar.gz", tarball.count)] {
          let line = try #require(await nginx.hits(path, atLeast: 1).last)
          #expect(line.contains(#"ae="identity""#), "\(line)")
          #expect(line.contains(#"ce="-""#), "\(line)")
          #expect(Self.bodyBytesSent(line) == size, "\(line)")
        }
      }
    }
  }

  /// A text asset that gzips 1,000:1 within its maxBytes: taken in one request, compressed
  /// (the decoder is bounded by size, not ratio, so nothing is refused and asked for again).
  @Test func aThousandToOneAssetIsFetchedOnceCompressed() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        // 16 MiB of one letter and a newline: gzip -9 makes it 1,000 times smaller (deflate's
        // most, about 1030:1).
        var file = Data(repeating: UInt8(ascii: "a"), count: (16 << 20) - 1)
        file.append(UInt8(ascii: "\n"))
        let gzipped = try await Self.gzip(file, in: dir)
        try #require(gzipped.count * 1000 < file.count, "ratio \(file.count / gzipped.count)")
        try nginx.put("static/repeat.txt.gz", gzipped)
        let asset = AssetDefinition(
          id: "repeat", remote: URL(string: "\(nginx.baseURL)/static/repeat.txt"), format: .text,
          sha256: sha256Hex(file), maxBytes: 32 << 20)
        try await withEngine([asset], cache: dir.cache) { engine throws in
          let outcome = await engine.refresh("repeat")
          #expect(outcome.isUpdated, "\(outcome)")
          #expect(try await engine.data("repeat") == file)
        }
        let lines = await nginx.hits("/static/repeat.txt", atLeast: 1)
        #expect(lines.count == 1, "\(lines)")
        let first = try #require(lines.first)
        #expect(first.contains(#"ce="gzip""#), "\(first)")
        #expect(Self.bodyBytesSent(first) == gzipped.count, "\(first)")
      }
    }
  }

  /// A body that decodes past maxBytes is refused whatever its ratio (here a 1,000:1 bomb), in
  /// one request: no second, unencoded download.
  @Test func aBodyDecodingPastMaxBytesIsRefusedInOneRequest() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        // 100 MiB of zeros, about 100 KiB gzipped (1000x), made by gzip itself.
        let bombFile = dir.url.appendingPathComponent("bomb.gz").path
        let made = try await ProcessRunner.runTool(
          "sh", ["-c", #"head -c 104857600 /dev/zero | gzip -9 -n > "$0""#, bombFile],
          timeout: 120)
        try #require(made.status == 0, "\(made.stderr)")
        let bomb = try Data(contentsOf: URL(fileURLWithPath: bombFile))
        #expect(bomb.count < 200_000)

        let good = Data(#"{"v": 1}"#.utf8)
        try nginx.put("static/flags.json", good)
        let asset = AssetDefinition(
          id: "flags", remote: URL(string: "\(nginx.baseURL)/static/flags.json"), format: .json,
          maxBytes: 1 << 20)
        try await withEngine([asset], cache: dir.cache) { engine in
          #expect(await engine.refresh("flags").isUpdated)
          // nginx now serves the bomb to any client that accepts gzip, as gzip; the file itself
          // (what an unencoded request would get) is unchanged and small.
          try nginx.put("static/flags.json.gz", bomb)
          let failure = try #require(await engine.refresh("flags").failure)
          #expect(failure.kind == .tooLarge)
          #expect(failure.message.contains("maxBytes"), "\(failure.message)")
          // The last good copy is kept.
          #expect(try await engine.data("flags") == good)
        }
        let lines = await nginx.hits("/static/flags.json", atLeast: 2)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.last?.contains(#"ce="gzip""#) == true, "\(lines)")
        #expect(!lines.contains { $0.contains(#"ae="identity""#) }, "\(lines)")
      }
    }
  }

  @Test func maxBytesCountsDecodedBytes() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        let file = Self.records(5000)
        let gzipped = try await Self.gzip(file, in: dir)
        let maxBytes: Int64 = 64 << 10
        // The gzip fits within maxBytes, its ratio is far below the limit, the JSON does not fit.
        try #require(Int64(gzipped.count) < maxBytes && Int64(file.count) > maxBytes)
        try #require(gzipped.count * 20 > file.count)
        try nginx.put("static/big.json.gz", gzipped)
        let asset = AssetDefinition(
          id: "big", remote: URL(string: "\(nginx.baseURL)/static/big.json"), format: .json,
          maxBytes: maxBytes)
        try await withEngine([asset], cache: dir.cache) { engine in
          let failure = try #require(await engine.refresh("big").failure)
          #expect(failure.kind == .tooLarge)
          #expect(failure.message.contains("passed maxBytes"), "\(failure.message)")
          #expect(await engine.status("big")?.source == AssetSource.none)
        }
        let line = try #require(await nginx.hits("/static/big.json", atLeast: 1).last)
        #expect(line.contains(#"ce="gzip""#), "\(line)")

        // The same file within a larger maxBytes: the decoded bytes are what is kept.
        try await withTemporaryDirectory { other in
          var roomy = asset
          roomy.maxBytes = Int64(file.count)
          // gzip_static sends a Content-Length (of the gzip): the size checked is the decoded one.
          roomy.expectedSize = Int64(file.count)
          roomy.sha256 = sha256Hex(file)
          try await withEngine([roomy], cache: other.cache) { engine in
            #expect(await engine.refresh("big").isUpdated)
            let kept = try await engine.data("big")
            #expect(kept == file)
          }
        }
      }
    }
  }

  /// A gzip body whose stream stops short is cut, though its Content-Length was met (nothing
  /// else could tell: the asset has no size or hash).
  @Test func aCutGzipStreamIsTruncated() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        let gzipped = try await Self.gzip(Self.records(3000), in: dir)
        try nginx.put("static/cut.json.gz", gzipped.prefix(gzipped.count / 2))
        let asset = AssetDefinition(
          id: "cut", remote: URL(string: "\(nginx.baseURL)/static/cut.json"), format: .json)
        try await withEngine([asset], cache: dir.cache) { engine in
          let failure = try #require(await engine.refresh("cut").failure)
          #expect(failure.kind == .truncated)
          #expect(
            failure.message.contains("ends before its gzip stream does"), "\(failure.message)")
        }
        let line = try #require(await nginx.hits("/static/cut.json", atLeast: 1).last)
        #expect(line.contains("\" 200 "), "\(line)")
        #expect(Self.bodyBytesSent(line) == gzipped.count / 2, "\(line)")
      }
    }
  }

  @Test func aResumeAsksForIdentity() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        let file = Self.records(2000)
        try nginx.put("gz/resume.json", file)
        let url = try #require(URL(string: "\(nginx.baseURL)/gz/resume.json"))
        let fetcher = HTTPFetcher()
        do {
          // nginx's strong ETag of the identity representation (a gzip response's is weak).
          var plain = FetchRequest(url: url, allowInsecure: true)
          plain.acceptsCompressed = false
          let whole = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
          guard case .downloaded(let metadata) = try await fetcher.fetch(plain, into: whole),
            let etag = metadata.etag
          else {
            Issue.record("no ETag from nginx")
            return
          }
          #expect(!etag.hasPrefix("W/"))

          // Half the file held; the rest asked for by a request that would otherwise take gzip.
          let half = file.count / 2
          let sink = try makeSink(
            in: dir.url.appendingPathComponent("resume"), maxBytes: 1 << 20, expectedSize: nil)
          try sink.write(file.prefix(half))
          var request = FetchRequest(
            url: url, expectedSize: Int64(file.count), expectedSHA256: sha256Hex(file),
            allowInsecure: true)
          request.acceptsCompressed = true
          request.resume = (Int64(half), etag)
          _ = try await fetcher.fetch(request, into: sink)
          let digest = try sink.digest()
          #expect(digest.size == Int64(file.count))
          #expect(digest.sha256 == sha256Hex(file))
          sink.discard()
          whole.discard()
        } catch {
          try await fetcher.shutdown()
          throw error
        }
        try await fetcher.shutdown()
        let line = try #require(await nginx.hits("/gz/resume.json", atLeast: 2).last)
        #expect(line.contains("\" 206 "), "\(line)")
        #expect(line.contains(#"ae="identity""#), "\(line)")
        #expect(line.contains(#"ce="-""#), "\(line)")
        #expect(Self.bodyBytesSent(line) == file.count - file.count / 2, "\(line)")
      }
    }
  }

  @Test func anEncodingThatWasNotAskedForIsRefused() async throws {
    try await withNginx(serverDirectives: Self.directives) { nginx in
      try await withTemporaryDirectory { dir in
        try nginx.put("br/flags.json", Data(#"{"v": 1}"#.utf8))
        let asset = AssetDefinition(
          id: "flags", remote: URL(string: "\(nginx.baseURL)/br/flags.json"), format: .json)
        try await withEngine([asset], cache: dir.cache) { engine in
          let failure = try #require(await engine.refresh("flags").failure)
          #expect(failure.kind == .invalid)
          #expect(
            failure.message.contains("Content-Encoding: br, which was not asked for"),
            "\(failure.message)")
          #expect(await engine.status("flags")?.source == AssetSource.none)
        }
      }
    }
  }
}

/// What nginx will not do: answer a range with an encoded part.
struct CompressedRangeTests {
  /// The bytes held are decoded; a 206 of a gzip representation does not continue them, so the
  /// kept bytes are dropped and the whole body is asked for again (then gzip may be taken).
  @Test func aRangeAnsweredWithAnEncodedPartIsAskedForWhole() async throws {
    let file = CompressedTransferTests.records(400)
    let half = file.count / 2
    try await withOrigin { origin in
      await origin.setHandler("/data.json") { request in
        guard request.header("Range") != nil else {
          return OriginResponse(
            headers: [OriginHeader("ETag", "\"e\"")], body: .data(file))
        }
        return OriginResponse(
          status: 206,
          headers: [
            OriginHeader("ETag", "\"e\""), OriginHeader("Content-Encoding", "gzip"),
            OriginHeader("Content-Range", "bytes \(half)-\(file.count - 1)/\(file.count)"),
          ], body: .data(Data(repeating: 0x1f, count: 300)))
      }
      try await withTemporaryDirectory { dir in
        let fetcher = HTTPFetcher()
        do {
          let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
          try sink.write(file.prefix(half))
          var request = FetchRequest(
            url: URL(string: "\(origin.baseURL)/data.json")!, expectedSHA256: sha256Hex(file))
          request.acceptsCompressed = true
          request.resume = (Int64(half), "\"e\"")
          _ = try await fetcher.fetch(request, into: sink)
          let digest = try sink.digest()
          #expect(digest.sha256 == sha256Hex(file))
          sink.discard()
        } catch {
          try await fetcher.shutdown()
          throw error
        }
        try await fetcher.shutdown()
      }
      let sent = await origin.requests(path: "/data.json")
      #expect(sent.count == 2)
      #expect(sent.first?.header("Range") == "bytes=\(half)-")
      #expect(sent.first?.header("Accept-Encoding") == "identity")
      #expect(sent.last?.header("Range") == nil)
      #expect(sent.last?.header("Accept-Encoding") == "gzip")
    }
  }
}
