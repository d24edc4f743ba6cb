import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// `assetwatch tuf-client` (the TUF conformance client CLI protocol) through the built binary,
/// against a repository written by python-tuf and served on 127.0.0.1.
@Suite struct TUFClientCommandTests {
  func tufClient(_ arguments: [String], in dir: TemporaryDirectory) async throws
    -> ProcessRunner.Result
  {
    try await AssetWatchBinary.run(["tuf-client"] + arguments, cwd: dir.url)
  }

  @Test func initRefreshDownload() async throws {
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("initial", on: origin)
      try await withTemporaryDirectory(prefix: "aw-tufcli") { dir in
        let root = try TUFRepositoryFixture.trustedRootURL().path
        let initResult = try await tufClient(["--metadata-dir", "md", "init", root], in: dir)
        #expect(initResult.status == 0, "\(initResult.stderr)")
        #expect(origin.port > 0)
        #expect(await origin.allRequests().isEmpty)  // init makes no request
        #expect(
          try Data(contentsOf: dir.url("md/root.json"))
            == Data(contentsOf: URL(fileURLWithPath: root)))

        let metadata = ["--metadata-dir", "md", "--metadata-url", origin.baseURL + "/metadata"]
        let refresh = try await tufClient(metadata + ["refresh"], in: dir)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        // The role files, and the lock file refreshes take turns on (a client reads `*.json`).
        #expect(
          try FileManager.default.contentsOfDirectory(atPath: dir.url("md").path).sorted()
            == [".lock", "root.json", "snapshot.json", "targets.json", "timestamp.json"])

        let download = [
          "--target-name", "files/hello.txt", "--target-name", "project/data.bin",
          "--target-base-url", origin.baseURL + "/targets/", "--target-dir", "out", "download",
        ]
        let result = try await tufClient(metadata + download, in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let contents = try TUFRepositoryFixture.targets()
        #expect(
          try Data(contentsOf: dir.url("out/files%2Fhello.txt")) == contents["files/hello.txt"])
        #expect(
          try Data(contentsOf: dir.url("out/project%2Fdata.bin")) == contents["project/data.bin"])

        // A missing target fails with 1, after the ones before it were stored.
        let missing = try await tufClient(
          metadata + [
            "--target-name", "files/hello.txt", "--target-name", "files/absent.txt",
            "--target-base-url", origin.baseURL + "/targets/", "--target-dir", "out2", "download",
          ], in: dir)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("files/absent.txt"), "\(missing.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.url("out2/files%2Fhello.txt").path))
      }
    }
  }

  @Test func failuresExitOne() async throws {
    try await withOrigin { origin in
      try await TUFRepositoryFixture.serve("bumped", on: origin)
      try await withTemporaryDirectory(prefix: "aw-tufcli") { dir in
        let bogus = try dir.file("bogus.json", "{\"signed\": {}}")
        #expect(
          try await tufClient(["--metadata-dir", "md", "init", bogus.path], in: dir).status == 1)
        #expect(
          try await tufClient(["--metadata-dir", "md", "init", "absent.json"], in: dir).status == 1)

        let root = try TUFRepositoryFixture.trustedRootURL().path
        #expect(try await tufClient(["--metadata-dir", "md", "init", root], in: dir).status == 0)
        let metadata = ["--metadata-dir", "md", "--metadata-url", origin.baseURL + "/metadata"]
        #expect(try await tufClient(metadata + ["refresh"], in: dir).status == 0)

        // Rollback to an older timestamp: refused, exit 1, the message names the role and check.
        try await TUFRepositoryFixture.serve("initial", on: origin)
        let rollback = try await tufClient(metadata + ["refresh"], in: dir)
        #expect(rollback.status == 1)
        #expect(
          rollback.stderr.contains("timestamp.json version 1 is older than the trusted 2."),
          "\(rollback.stderr)")

        // A tampered target: exit 1, nothing stored.
        try await TUFRepositoryFixture.serve("bumped", on: origin)
        let files = try TUFRepositoryFixture.files("bumped").filter { $0.hasSuffix(".hello.txt") }
        for file in files {
          await origin.setResource(
            "/" + file, body: Data("hello from a tampered repository\n".utf8),
            contentType: "text/plain")
        }
        let tampered = try await tufClient(
          metadata + [
            "--target-name", "files/hello.txt", "--target-base-url", origin.baseURL + "/targets",
            "--target-dir", "out", "download",
          ], in: dir)
        #expect(tampered.status == 1)
        #expect(
          (try? FileManager.default.contentsOfDirectory(atPath: dir.url("out").path)) ?? [] == [])

        // Nothing listening at the URL: exit 1.
        let closed = try await tufClient(
          ["--metadata-dir", "md", "--metadata-url", "http://127.0.0.1:9/metadata", "refresh"],
          in: dir)
        #expect(closed.status == 1)
      }
    }
  }
}
