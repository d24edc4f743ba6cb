import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Every kind of config error names the file, the JSON path, what is wrong, and the line.
@Suite struct ConfigurationTests {
  func parse(_ json: String, env: [String: String] = [:], dir: TemporaryDirectory)
    throws(ConfigurationError)
    -> EngineConfiguration
  {
    try ConfigurationLoader.parse(
      Data(json.utf8), path: dir.url.appendingPathComponent("assets.json").path, environment: env)
  }

  func problems(_ json: String, env: [String: String] = [:]) -> [ConfigProblem] {
    // A test cannot run without a temporary folder: a failure to make one ends it here.
    let dir = try! TemporaryDirectory()
    defer { dir.remove() }
    do {
      _ = try parse(json, env: env, dir: dir)
      Issue.record("expected a ConfigurationError")
      return []
    } catch {
      return error.problems
    }
  }

  @Test func validConfigWithEveryField() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    _ = try dir.file("bundled/flags.json", "{}")
    let config = try parse(
      """
      {
        "appVersion": "2.3.0",
        "cacheDirectory": "cache",
        "manifest": "http://127.0.0.1:8765/manifest.json",
        "maxConcurrentTransfers": 2,
        "defaults": { "refreshEvery": "30s", "ttl": "5m", "maxStale": "1h", "timeout": "250ms", "maxBytes": "64MiB" },
        "assets": [
          { "id": "feature-flags", "remote": "http://127.0.0.1:8765/flags.json", "bundled": "bundled/flags.json",
            "format": "json", "essential": true, "headers": { "Authorization": "Bearer ${TOKEN:-demo}", "X-Key": "${KEY}" } },
          { "id": "model", "remote": "https://cdn.example.com/model.bin", "format": "binary", "size": 52428800,
            "sha256": "\(String(repeating: "A", count: 64))", "maxBytes": "1GiB", "ttl": "server" },
          { "id": "filter", "remote": "file://live/filter.js", "format": "text", "refreshEvery": "live" },
          { "id": "plain", "remote": "http://cdn.example.com/x", "allowInsecure": true, "refreshEvery": "manual" }
        ]
      }
      """, env: ["KEY": "s3cret"], dir: dir)
    #expect(config.appVersion == "2.3.0")
    #expect(config.cacheDirectory.path == dir.url.appendingPathComponent("cache").path)
    #expect(config.maxConcurrentTransfers == 2)
    let flags = config.assets[0]
    #expect(flags.essential)
    #expect(flags.timeout == 0.25)
    #expect(flags.refresh == .every(30))
    #expect(flags.headers.map(\.value) == ["Bearer demo", "s3cret"])
    #expect(!"\(flags.headers)".contains("s3cret"), "header values are never printed")
    #expect(
      flags.bundled
        == .file(dir.url.appendingPathComponent("bundled/flags.json").standardizedFileURL))
    let model = config.assets[1]
    #expect(model.maxBytes == 1 << 30)
    #expect(model.expectedSize == 52_428_800)
    #expect(model.sha256 == String(repeating: "a", count: 64))
    #expect(model.ttl == .server(fallback: 300))
    #expect(
      config.assets[2].remote
        == dir.url.appendingPathComponent("live/filter.js").standardizedFileURL)
    #expect(config.assets[2].refresh == .live)
    #expect(config.assets[3].refresh == .manual)
  }

  @Test func cacheLimitTakesASizeAndABadOneNamesFileFieldAndWhy() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = try parse(
      #"{ "appVersion": "1", "cacheLimit": "2GiB", "assets": [ { "id": "a", "remote": "https://x.example/a" } ] }"#,
      dir: dir)
    #expect(config.cacheLimit == 2 << 30)
    let none = try parse(
      #"{ "appVersion": "1", "assets": [ { "id": "a", "remote": "https://x.example/a" } ] }"#,
      dir: dir)
    #expect(none.cacheLimit == nil)
    for (bad, why) in [
      (#""lots""#, "not a size"), (#""512KiB""#, "between 1.0 MiB and 64 TiB"),
      ("[]", "must be a size in bytes"),
    ] {
      do {
        _ = try parse(
          """
          { "appVersion": "1",
            "cacheLimit": \(bad),
            "assets": [ { "id": "a", "remote": "https://x.example/a" } ] }
          """, dir: dir)
        Issue.record("\(bad) was accepted")
      } catch {
        let line = error.lines.first ?? ""
        #expect(
          line.hasPrefix(dir.url.appendingPathComponent("assets.json").path + ":2: cacheLimit: "),
          "\(line)")
        #expect(line.contains(why), "\(line)")
      }
    }
    let typo = problems(
      #"{ "appVersion": "1", "cacheLimt": "2GiB", "assets": [ { "id": "a", "remote": "https://x.example/a" } ] }"#
    )
    #expect(typo.first?.message.contains("did you mean \"cacheLimit\"") == true)
  }

  @Test func syntaxErrorNamesLineAndColumn() {
    let p = problems("{\n  \"appVersion\": \"1\",\n  \"assets\": [,]\n}")
    #expect(p.count == 1)
    #expect(p.first?.line == 3)
    #expect(p.first?.message.contains("invalid JSON") == true)
  }

  @Test func everyProblemIsReportedWithPathAndLine() {
    let p = problems(
      """
      {
        "appVersion": "1",
        "defaults": { "ttl": "5 minutes" },
        "assets": [
          { "id": "ok", "remote": "https://x.example/a" },
          { "id": "../etc", "remote": "https://x.example/b" },
          { "id": "bad-dur", "remote": "https://x.example/c", "refreshEvery": "often" },
          { "id": "bad-size", "remote": "https://x.example/d", "maxBytes": "lots" },
          { "id": "insecure", "remote": "http://x.example/e" },
          { "id": "scheme", "remote": "ftp://x.example/f" },
          { "id": "fmt", "remote": "https://x.example/g", "format": "gif" },
          { "id": "hash", "remote": "https://x.example/h", "sha256": "abc" },
          { "id": "ok", "remote": "https://x.example/i" },
          { "id": "typo", "remote": "https://x.example/j", "tll": "5m" },
          { "id": "nothing" },
          { "id": "env", "remote": "https://x.example/k", "headers": { "Authorization": "Bearer ${NOPE}" } },
          { "id": "missing-bundle", "bundled": "nowhere.json" },
          { "id": "live-http", "remote": "https://x.example/l", "refreshEvery": "live" },
          { "id": "big", "remote": "https://x.example/m", "size": 100, "maxBytes": 10 },
          { "id": "type", "remote": 42, "essential": "yes" }
        ]
      }
      """)
    func find(_ path: String) -> ConfigProblem? { p.first { $0.path == path } }
    #expect(find("defaults.ttl")?.line == 3)
    #expect(find("defaults.ttl")?.message.contains("not a duration") == true)
    #expect(find("assets[1].id")?.line == 6)
    #expect(find("assets[2].refreshEvery")?.line == 7)
    #expect(find("assets[3].maxBytes")?.message.contains("not a size") == true)
    #expect(find("assets[4].remote")?.message.contains("loopback") == true)
    #expect(find("assets[5].remote")?.message.contains("unsupported scheme") == true)
    #expect(find("assets[6].format")?.message.contains("not a format") == true)
    #expect(find("assets[7].sha256")?.message.contains("64 hexadecimal") == true)
    #expect(find("assets[8].id")?.message.contains("already used") == true)
    #expect(find("assets[9].tll")?.message.contains("did you mean \"ttl\"") == true)
    #expect(find("assets[10]")?.message.contains("needs a \"remote\"") == true)
    #expect(find("assets[11].headers.Authorization")?.message.contains("NOPE is not set") == true)
    #expect(find("assets[12].bundled")?.message.contains("does not exist") == true)
    #expect(find("assets[13].refreshEvery")?.message.contains("file://") == true)
    #expect(find("assets[14].size")?.message.contains("more than maxBytes") == true)
    #expect(find("assets[15].remote")?.message.contains("must be a string") == true)
    #expect(find("assets[15].essential")?.message.contains("true or false") == true)
    #expect(p.count >= 17)
  }

  @Test func missingRequiredFieldsAndWrongTopLevel() {
    #expect(problems("[]").first?.message.contains("must be an object") == true)
    let p = problems("{ \"assets\": [] }")
    #expect(p.contains { $0.path == "appVersion" && $0.message == "is missing" })
  }

  @Test func errorLinesNameTheFile() {
    let error = ConfigurationError(
      file: "conf/assets.json",
      problems: [ConfigProblem(path: "assets[2].ttl", line: 14, message: "bad")])
    #expect(error.lines == ["conf/assets.json:14: assets[2].ttl: bad"])
  }

  @Test func missingFileIsAProblemNotACrash() {
    #expect(throws: ConfigurationError.self) {
      try ConfigurationLoader.load(path: "/nonexistent/assets.json")
    }
  }

  @Test func valueParsers() throws {
    #expect(ConfigValues.duration("250ms") == 0.25)
    #expect(ConfigValues.duration("30s") == 30)
    #expect(ConfigValues.duration("5m") == 300)
    #expect(ConfigValues.duration("1h") == 3600)
    #expect(ConfigValues.duration("soon") == nil)
    #expect(ConfigValues.size("64MiB") == 64 << 20)
    #expect(ConfigValues.size("1GiB") == 1 << 30)
    #expect(ConfigValues.size("1024") == 1024)
    #expect(ConfigValues.size("-1") == nil)
    #expect(ConfigValues.idProblem("feature-flags") == nil)
    #expect(ConfigValues.idProblem(String(repeating: "a", count: 65)) != nil)
    #expect(try ConfigValues.expand("a ${X:-d} ${Y}", environment: ["Y": "y"]).get() == "a d y")
    #expect(RemoteURL.isLoopback(host: "127.0.0.1"))
    #expect(RemoteURL.isLoopback(host: "[::1]"))
    #expect(!RemoteURL.isLoopback(host: "example.com"))
  }

  /// A header value with a control byte (after `${ENV}` expansion) is refused without printing
  /// the value or any part of it.
  @Test func headerValueWithAControlByteIsRefusedUnquoted() {
    for value in ["q9abc\u{01}", "q9tok\u{1B}[31m", "q9a\u{7F}bcdef", "q9x\ny", "q9zz\u{0}"] {
      let p = problems(
        """
        { "appVersion": "1", "assets": [
          { "id": "a", "remote": "https://x.example/a",
            "headers": { "Authorization": "Bearer ${TOK}" } } ] }
        """, env: ["TOK": value])
      #expect(p.count == 1, "\(value.debugDescription): \(p)")
      #expect(p.first?.path == "assets[0].headers.Authorization")
      #expect(p.first?.line == 3)
      #expect(p.first?.message.contains("control byte") == true)
      let rendered = ConfigurationError(file: "f.json", problems: p).description
      #expect(!rendered.contains("q9"), "\(rendered)")
    }
    // A tab is allowed in HTTP field values.
    #expect(ConfigReader.headerValueProblem("a\tb") == nil)
  }

  /// Key names can hold anything: the rendered error never carries a raw escape or bidi control.
  @Test func keyNamesAreSanitizedWhenRendered() {
    let p = problems(
      #"{ "appVersion": "1", "\u001b]0;owned\u0007\u202e": 1, "assets": [] }"#)
    let text = ConfigurationError(file: "f\u{1B}.json", problems: p).description
    #expect(!p.isEmpty)
    #expect(text.contains("f.json:1: ]0;owned: unknown field"), "\(text)")
    #expect(
      !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
  }

  /// Every problem has a line, even about a member that is missing.
  @Test func missingMembersNameTheirObjectsLine() {
    let p = problems("{\n\"assets\": [\n{ \"remote\": \"https://x.example/a\" }\n] }")
    #expect(p.first { $0.path == "appVersion" }?.line == 1)
    #expect(p.first { $0.path == "assets[0].id" }?.line == 3)
    #expect(p.allSatisfy { $0.line != nil })
  }

  /// `--config` pointing at a FIFO, a folder or a huge file is an error, never a hang.
  @Test func onlyRegularFilesOfSaneSizeAreRead() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fifo = dir.url.appendingPathComponent("fifo.json").path
    #expect(mkfifo(fifo, 0o600) == 0)
    for path in [fifo, dir.path, "/dev/zero"] {
      #expect {
        try ConfigurationLoader.load(path: path)
      } throws: { error in
        (error as? ConfigurationError)?.problems.first?.message.contains("not a regular file")
          == true
      }
    }
    let big = dir.url.appendingPathComponent("big.json")
    try Data(count: ConfigurationLoader.maxFileBytes + 1).write(to: big)
    #expect {
      try ConfigurationLoader.load(path: big.path)
    } throws: { error in
      (error as? ConfigurationError)?.problems.first?.message.contains("larger than") == true
    }
  }
}
