import Foundation

/// Runs one of the fixture scripts in `Tests/TUFTests/Fixtures/` with python-tuf: the Python is
/// `ASSETWATCH_TUF_PYTHON` or the venv `scripts/tuf-venv.sh` makes (`.build/tuf-venv`); without
/// it the tests fail with that advice. Each run writes into a new temporary folder; folders of
/// earlier runs older than an hour are removed (Swift Testing has no end-of-run hook).
public enum PythonTUFScript {
  /// Why a fixture could not be built.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// A failure saying `description`.
    public init(description: String) { self.description = description }
  }

  /// Runs `script` (a file name in `fixtures`, a folder relative to the package root) with a
  /// new folder under the temporary directory named `prefix-...` and then `arguments`; the
  /// folder on success.
  public static func run(
    _ script: String, prefix: String, arguments: [String],
    fixtures: String = "Tests/TUFTests/Fixtures"
  )
    -> Result<URL, Failure>
  {
    let root = AssetWatchBinary.packageRoot
    let python =
      ProcessInfo.processInfo.environment["ASSETWATCH_TUF_PYTHON"]
      ?? root.appendingPathComponent(".build/tuf-venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      return .failure(
        Failure(
          description:
            "No python-tuf venv at \(python): run scripts/tuf-venv.sh (or set ASSETWATCH_TUF_PYTHON)"
        ))
    }
    removeStaleFolders(prefix: prefix)
    let out = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    let path = root.appendingPathComponent("\(fixtures)/\(script)").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [path, out.path] + arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return .failure(Failure(description: "Could not run \(python): \(error)"))
    }
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      return .failure(
        Failure(
          description:
            "\(script) failed (\(process.terminationStatus)): \(String(decoding: stderr, as: UTF8.self))"
        ))
    }
    return .success(out)
  }

  private static func removeStaleFolders(prefix: String) {
    let fm = FileManager.default
    let tmp = fm.temporaryDirectory
    guard let names = try? fm.contentsOfDirectory(atPath: tmp.path) else { return }
    for name in names where name.hasPrefix(prefix + "-") {
      let url = tmp.appendingPathComponent(name)
      guard let attributes = try? fm.attributesOfItem(atPath: url.path),
        let modified = attributes[.modificationDate] as? Date,
        Date().timeIntervalSince(modified) > 3600
      else { continue }
      try? fm.removeItem(at: url)
    }
  }
}
