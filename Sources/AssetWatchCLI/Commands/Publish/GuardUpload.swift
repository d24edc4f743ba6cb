import Foundation

/// `publish guard --upload 'CMD'`: runs CMD with `/bin/sh -c` after each signed step (the
/// repository folder in `$ASSETWATCH_REPO`), its output on stderr (stdout carries the guard's
/// lines). Idempotent by contract (rsync, `aws s3 sync`): the guard runs it again at every
/// start, so a step signed just before a crash is uploaded by the next run.
struct GuardUpload: Sendable {
  let command: String
  let repo: String

  /// Runs the command once; nil on exit status 0, else why not.
  func run() async -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    var environment = ProcessInfo.processInfo.environment
    environment["ASSETWATCH_REPO"] = repo
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.standardError
    process.standardError = FileHandle.standardError
    return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
      process.terminationHandler = { done in
        continuation.resume(
          returning: done.terminationReason == .exit && done.terminationStatus == 0
            ? nil
            : "the upload command ended with "
              + (done.terminationReason == .exit
                ? "exit status \(done.terminationStatus)"
                : "signal \(done.terminationStatus)"))
      }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(returning: "the upload command could not start: \(error)")
      }
    }
  }

  /// Runs the command up to `attempts` times (1 s, then 2 s apart); nil once it succeeded.
  func run(attempts: Int) async -> String? {
    var failure: String?
    for attempt in 0..<max(1, attempts) {
      if attempt > 0 { try? await Task.sleep(for: .seconds(attempt)) }
      failure = await run()
      if failure == nil { return nil }
    }
    return failure
  }
}
