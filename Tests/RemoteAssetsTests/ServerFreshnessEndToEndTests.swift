import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// RFC 9111 freshness and RFC 5861 end to end: a real HTTP origin on 127.0.0.1 sends the headers,
/// the engine (on a manual clock) stores and evaluates them, and the state follows.
@Suite struct ServerFreshnessEndToEndTests {
  static let v1 = Data(#"{"v": 1}"#.utf8)
  static let v2 = Data(#"{"v": 2}"#.utf8)

  /// An origin serving /a.json, an engine following its freshness, and a manual clock.
  struct Fixture {
    let origin: LoopbackOrigin
    let engine: AssetEngine
    let clock: ManualClock
    let dir: TemporaryDirectory

    static func make(ttl: TTLPolicy = .server(fallback: 300)) async throws -> Fixture {
      let origin = try await LoopbackOrigin.start()
      let dir = try TemporaryDirectory()
      // Whole seconds, as entries store them.
      let clock = ManualClock(
        now: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json, ttl: ttl,
        timeout: 30)
      let engine = try makeTestEngine([asset], cache: dir.url, clock: clock)
      await engine.start()
      return Fixture(origin: origin, engine: engine, clock: clock, dir: dir)
    }

    /// Serves `body` with ETag `etag` and the headers `extra` makes from the engine's clock; a
    /// request carrying that ETag gets a 304 with `notModified` headers (default: the same).
    func serve(
      _ body: Data = ServerFreshnessEndToEndTests.v1, etag: String = "\"v1\"",
      gate: Gate? = nil, notModified: (@Sendable (Date) -> [OriginHeader])? = nil,
      headers extra: @escaping @Sendable (Date) -> [OriginHeader]
    ) async {
      let clock = self.clock
      await origin.setHandler("/a.json") { request in
        await gate?.wait()
        let now = clock.now()
        if request.header("If-None-Match") == etag {
          return OriginResponse(
            status: 304, headers: [OriginHeader("ETag", etag)] + (notModified ?? extra)(now))
        }
        return OriginResponse(
          headers: [OriginHeader("Content-Type", "application/json"), OriginHeader("ETag", etag)]
            + extra(now), body: .data(body))
      }
    }

    func state() async throws -> AssetState {
      try #require(await engine.status("a")).state(at: clock.now())
    }

    func note() async throws -> String? {
      try #require(await engine.status("a")).stateNote(at: clock.now())
    }

    func requests() async -> Int { await origin.requestCount(path: "/a.json") }

    /// Runs `body` on a new fixture and always closes it.
    static func run(
      ttl: TTLPolicy = .server(fallback: 300), _ body: (Fixture) async throws -> Void
    ) async throws {
      let fixture = try await make(ttl: ttl)
      do {
        try await body(fixture)
      } catch {
        await fixture.close()
        throw error
      }
      await fixture.close()
    }

    func close() async {
      await engine.shutdown()
      try? await origin.shutdown()
      dir.remove()
    }
  }

  /// Holds requests until opened.
  actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
      guard !isOpen else { return }
      await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
      isOpen = true
      for waiter in waiters { waiter.resume() }
      waiters.removeAll()
    }
  }

  static func header(_ name: String, _ value: String) -> @Sendable (Date) -> [OriginHeader] {
    { _ in [OriginHeader(name, value)] }
  }

  static func date(_ date: Date, offset: TimeInterval = 0) -> OriginHeader {
    OriginHeader("Date", HTTPDate.format(date.addingTimeInterval(offset)))
  }

  // MARK: - Lifetime

  @Test func maxAgeIsFreshThenStale() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve { now in [Self.date(now), OriginHeader("Cache-Control", "max-age=60")] }
      #expect(await f.engine.refresh("a").isUpdated)
      #expect(try await f.state() == .fresh)
      f.clock.advance(by: 59)
      #expect(try await f.state() == .fresh)
      f.clock.advance(by: 2)
      #expect(try await f.state() == .stale)
    }
  }

  @Test func quotedMaxAgeIsUnderstood() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=\"3600\""))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 3000)  // past the config's fallback of 300
      #expect(try await f.state() == .fresh)
    }
  }

  /// Invalid freshness information makes the response stale; the config's ttl is not used.
  @Test(arguments: ["max-age=a100", "max-age= 100", "max-age='3600'", "max-age=100a", "max-age=-1"])
  func invalidMaxAgeIsStale(_ value: String) async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", value))
      #expect(await f.engine.refresh("a").isUpdated)
      #expect(try await f.state() == .stale)
      #expect(try await f.note()?.contains("max-age") == true)
    }
  }

  @Test func aMaxAgeInsideAQuotedExtensionIsNotADirective() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "ext=\"x,max-age=5000,y\""))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 301)  // no freshness information: the fallback of 300 applies
      #expect(try await f.state() == .stale)
    }
  }

  @Test func withoutFreshnessInformationTheConfigTTLApplies() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve { now in [Self.date(now)] }
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 299)
      #expect(try await f.state() == .fresh)
      f.clock.advance(by: 2)
      #expect(try await f.state() == .stale)
    }
  }

  @Test func aFixedTTLIgnoresTheServer() async throws {
    try await Fixture.run(ttl: .seconds(300)) { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=1, must-revalidate"))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 200)
      #expect(try await f.state() == .fresh)
    }
  }

  enum ExpiresCase: String, CaseIterable, Sendable {
    case future, past, invalid
  }

  @Test(arguments: ExpiresCase.allCases)
  func expires(_ which: ExpiresCase) async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve { now in
        let expires: String
        switch which {
        case .future: expires = HTTPDate.format(now.addingTimeInterval(120))
        case .past: expires = HTTPDate.format(now.addingTimeInterval(-120))
        case .invalid: expires = "0"
        }
        return [Self.date(now), OriginHeader("Expires", expires)]
      }
      #expect(await f.engine.refresh("a").isUpdated)
      switch which {
      case .future:
        f.clock.advance(by: 119)
        #expect(try await f.state() == .fresh)
        f.clock.advance(by: 2)
        #expect(try await f.state() == .stale)
      case .past, .invalid:
        #expect(try await f.state() == .stale)
        #expect(try await f.note()?.contains("Expires") == true)
      }
    }
  }

  @Test func anAgeLargerThanMaxAgeIsStale() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve { now in
        [Self.date(now), OriginHeader("Cache-Control", "max-age=60"), OriginHeader("Age", "100")]
      }
      #expect(await f.engine.refresh("a").isUpdated)
      #expect(try await f.state() == .stale)
    }
  }

  @Test func ageAndAnOldDateShortenTheLifetime() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve { now in
        [Self.date(now, offset: -30), OriginHeader("Cache-Control", "max-age=60")]
      }
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 29)
      #expect(try await f.state() == .fresh)
      f.clock.advance(by: 2)
      #expect(try await f.state() == .stale)
    }
  }

  @Test func mustRevalidateIsExpiredPastItsLifetime() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=60, must-revalidate"))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 61)
      #expect(try await f.state() == .expired)
      #expect(try await f.note()?.contains("must-revalidate") == true)
      #expect(await f.engine.refresh("a") == .notModified)  // a successful revalidation
      #expect(try await f.state() == .fresh)
    }
  }

  @Test func noCacheRevalidatesOnEveryRead() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "no-cache, max-age=600"))
      #expect(await f.engine.refresh("a").isUpdated)
      #expect(try await f.state() == .stale)
      for expected in 2...3 {
        #expect(try await f.engine.data("a", policy: .refreshBeforeReturning) == Self.v1)
        #expect(await f.requests() == expected)
      }
    }
  }

  /// RFC 9111 §4.3.4: a 304 renews the stored freshness, and its own headers replace the stored.
  @Test func aNotModifiedUpdatesTheStoredFreshness() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(notModified: { now in [Self.date(now)] }) { now in
        [Self.date(now), OriginHeader("Cache-Control", "max-age=10")]
      }
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 20)
      #expect(try await f.state() == .stale)
      // A 304 without Cache-Control: the stored max-age=10 counts again from this check.
      #expect(await f.engine.refresh("a") == .notModified)
      f.clock.advance(by: 9)
      #expect(try await f.state() == .fresh)
      f.clock.advance(by: 2)
      #expect(try await f.state() == .stale, "not the config's fallback of 300 s")
      // A 304 that says max-age=1000 replaces it.
      await f.serve(notModified: { now in
        [Self.date(now), OriginHeader("Cache-Control", "max-age=1000")]
      }) {
        now in [Self.date(now), OriginHeader("Cache-Control", "max-age=10")]
      }
      #expect(await f.engine.refresh("a") == .notModified)
      f.clock.advance(by: 500)
      #expect(try await f.state() == .fresh)
    }
  }

  // MARK: - RFC 5861

  @Test func staleWhileRevalidateReturnsAtOnceAndRevalidatesOnce() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=1, stale-while-revalidate=100"))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 5)
      #expect(try await f.state() == .stale)
      #expect(try await f.note() == "stale-while-revalidate")

      // The revalidation is held at the origin until the reads have returned.
      let gate = Gate()
      await f.serve(
        Self.v2, etag: "\"v2\"", gate: gate, headers: Self.header("Cache-Control", "max-age=60"))
      let engine = f.engine
      let origin = f.origin
      let reads = await withTaskGroup(of: [Data?]?.self) { group in
        group.addTask {
          let first = try? await engine.data("a", policy: .refreshBeforeReturning)
          // The background revalidation reaches the origin (bounded: it may never come).
          let deadline = ContinuousClock.now + .seconds(10)
          while await origin.requestCount(path: "/a.json") < 2, ContinuousClock.now < deadline,
            !Task.isCancelled
          {
            try? await Task.sleep(for: .milliseconds(10))
          }
          let second = try? await engine.data("a", policy: .refreshBeforeReturning)
          return [first, second]
        }
        group.addTask {
          try? await Task.sleep(for: .seconds(20))
          return nil
        }
        let first = await group.next() ?? nil
        await gate.open()  // lets reads that (wrongly) wait finish too
        group.cancelAll()
        return first
      }
      #expect(reads == [Self.v1, Self.v1], "the stale copy, without waiting for the revalidation")
      try await eventually { try await f.state() == .fresh }
      #expect(await f.requests() == 2, "one background revalidation")
      #expect(try await f.engine.data("a") == Self.v2)
    }
  }

  @Test func pastStaleWhileRevalidateTheReadWaits() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=1, stale-while-revalidate=100"))
      #expect(await f.engine.refresh("a").isUpdated)
      f.clock.advance(by: 200)
      await f.serve(Self.v2, etag: "\"v2\"", headers: Self.header("Cache-Control", "max-age=60"))
      #expect(try await f.engine.data("a", policy: .refreshBeforeReturning) == Self.v2)
    }
  }

  @Test func staleIfErrorKeepsServingWithinItsWindow() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=1, stale-if-error=100"))
      #expect(await f.engine.refresh("a").isUpdated)
      await f.origin.setHandler("/a.json") { _ in .text("down", status: 500) }
      f.clock.advance(by: 5)
      let outcome = await f.engine.refresh("a")
      #expect(outcome.failure?.status == 500)
      let status = try #require(await f.engine.status("a"))
      #expect(status.state(at: f.clock.now()) == .stale)
      #expect(status.stateNote(at: f.clock.now()) == "serving stale (stale-if-error)")
      let message = try #require(status.lastError?.message)
      #expect(message.hasPrefix("serving stale (stale-if-error) after: HTTP 500"), "\(message)")
      #expect(try await f.engine.data("a") == Self.v1)
      f.clock.advance(by: 100)  // past max-age + stale-if-error
      #expect(try await f.state() == .failed)
    }
  }

  @Test func withoutStaleIfErrorAFailureIsFailed() async throws {
    try await Fixture.run { (f: Fixture) async throws in
      await f.serve(headers: Self.header("Cache-Control", "max-age=1"))
      #expect(await f.engine.refresh("a").isUpdated)
      await f.origin.setHandler("/a.json") { _ in .text("down", status: 500) }
      f.clock.advance(by: 5)
      #expect(await f.engine.refresh("a").failure != nil)
      #expect(try await f.state() == .failed)
      let message = try #require(await f.engine.status("a")?.lastError?.message)
      #expect(!message.contains("stale-if-error"))
    }
  }

  /// Polls `condition` until it holds or 10 seconds pass.
  func eventually(_ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      if try await condition() { return }
      try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("the condition did not hold within 10 s")
  }
}
