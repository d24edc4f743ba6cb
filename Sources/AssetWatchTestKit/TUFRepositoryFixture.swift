import DemoOrigin
import Foundation

/// The states of a TUF repository written by python-tuf (`Tests/TUFTests/Fixtures/
/// make_updater_repo.py`: `initial`, `bumped`, `expired`, `rollback`, `unsigned`, `rotated`, `ff`,
/// `diamond`, `badproject`, `staged`), built once per test process
/// and served by a ``LoopbackOrigin`` at `/metadata/...` and `/targets/...`. The Python is
/// `ASSETWATCH_TUF_PYTHON` or the venv `scripts/tuf-venv.sh` makes; without it the tests fail
/// with that advice.
public enum TUFRepositoryFixture {
  /// Why the fixture could not be built.
  public typealias Failure = PythonTUFScript.Failure

  /// Built once (Swift's `static let` runs the initializer once, thread-safely).
  private static let built: Result<URL, Failure> = build()

  /// The folder holding `trusted_root.json`, `targets.json` and one folder per state.
  public static func folder() throws -> URL { try built.get() }

  /// The root shipped with the app (version 1).
  public static func trustedRootURL() throws -> URL {
    try folder().appendingPathComponent("trusted_root.json")
  }

  /// The bytes of `file` (`metadata/1.root.json`, ...) in `state`.
  public static func bytes(_ state: String, _ file: String) throws -> Data {
    try Data(contentsOf: folder().appendingPathComponent(state).appendingPathComponent(file))
  }

  /// The content of each target path the repository lists.
  public static func targets() throws -> [String: Data] {
    let data = try Data(contentsOf: folder().appendingPathComponent("targets.json"))
    let hex = try JSONDecoder().decode([String: String].self, from: data)
    return hex.mapValues { text in
      var bytes = [UInt8]()
      var index = text.startIndex
      while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
      }
      return Data(bytes)
    }
  }

  /// The files of `state`, by path relative to the state folder (`metadata/timestamp.json`).
  public static func files(_ state: String) throws -> [String] {
    let base = try folder().appendingPathComponent(state)
    guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
    var files: [String] = []
    while let name = walker.nextObject() as? String {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(
        atPath: base.appendingPathComponent(name).path, isDirectory: &isFolder), !isFolder.boolValue
      {
        files.append(name)
      }
    }
    return files.sorted()
  }

  /// Makes `origin` serve exactly `state`: its files at `/<path>`, every other state's file
  /// answers 404.
  public static func serve(_ state: String, on origin: LoopbackOrigin) async throws {
    var all = Set<String>()
    for other in [
      "initial", "bumped", "expired", "rollback", "unsigned", "rotated", "ff", "diamond",
    ] {
      all.formUnion(try files(other))
    }
    let mine = Set(try files(state))
    for path in all.subtracting(mine) { await origin.remove("/" + path) }
    for path in mine.sorted() {
      await origin.setResource(
        "/" + path, body: try bytes(state, path), contentType: "application/octet-stream")
    }
  }

  private static func build() -> Result<URL, Failure> {
    PythonTUFScript.run(
      "make_updater_repo.py", prefix: "assetwatch-tufrepo",
      arguments: [String(Int(Date().timeIntervalSince1970))])
  }
}
