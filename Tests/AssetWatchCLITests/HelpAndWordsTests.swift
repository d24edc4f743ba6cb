import ArgumentParser
import Foundation
import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// The help of the commands as an 80-column terminal shows it (everything above USAGE: the
/// abstract and the discussion), held word for word: paragraphs wrap where the words end, not
/// where the source's lines did.
@Suite struct HelpTextSnapshotTests {
  /// The help of `command` above its USAGE line, at 80 columns.
  static func overview(_ command: any ParsableCommand.Type) -> String {
    let help = AssetWatchCommand.helpMessage(for: command, columns: 80)
    let top = help.components(separatedBy: "\nUSAGE:").first ?? help
    return top.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static let expected: [(any ParsableCommand.Type, String)] = [
    (
      VerifyCommand.self,
      """
      OVERVIEW: Re-hash cached copies; a damaged one falls back to its bundled copy.

      Reads every byte of each cached copy and checks its size and SHA-256. A start
      trusts a blob whose commit stamp (inode, size, times) still matches, so it
      never re-reads a large model; this command does. Exit 1 if any copy was
      damaged.

      Safe beside other processes using the cache: a copy one of them replaced while
      it was being read is not damage (the new one is checked), and a copy is set
      aside only after a second look under the cache lock. With --attach, the running
      engine does the reading.

      Example: assetwatch verify model
      """
    ),
    (
      ServeCommand.self,
      """
      OVERVIEW: Run the engine headless: keep assets fresh, serve the control socket.

      Logs go to stderr (one JSON object per line with --log-json). SIGTERM or SIGINT
      shut the engine down gracefully; partial downloads are kept and resumed on the
      next start.

      SIGHUP (or `assetwatch reload`) reloads the config file: it is read and checked
      whole first; a file with problems is logged (file, line, field) and the running
      config stays. Added, removed and changed assets are applied; the others keep
      their copies, transfers and schedules, and attached dashboards stay connected.
      cacheDirectory, appVersion, manifest, tuf, instance, probation,
      maxConcurrentTransfers and control change only at a restart.

      With --metrics HOST:PORT the engine's metrics are served at
      http://HOST:PORT/metrics in the Prometheus text format (:PORT alone binds
      127.0.0.1).

      Example:
        assetwatch serve --config /etc/app/assets.json --log-json --metrics :9464
      """
    ),
    (
      FleetCommand.self,
      """
      OVERVIEW: A fleet's rollout from Prometheus: converged and stuck instances.

      Reads the remote_assets_* metrics that `assetwatch serve --metrics` exposes,
      through Prometheus' HTTP query API.

      An instance converged when it serves the fleet's target (the highest
      target_version any instance reports); it is stuck when it is behind and
      failing, or behind for longer than --stuck-after.

      Staged rollouts: instances held back outside a rollout's cohort, and those that
      rejected a version, are counted apart (held back, rejected).

      Prometheus does the counting (count by ...): from the recording rules of
      deploy/prometheus/assetwatch-recording-rules.yml when they are loaded (at most
      one evaluation interval old), else over the raw series. Rows are fetched one
      page of one asset at a time, problem instances first.

      Examples:
        assetwatch fleet --prometheus http://127.0.0.1:9090
        assetwatch fleet --prometheus http://mon:9090 --selector '{job="assets"}'
        assetwatch fleet --prometheus http://mon:9090 --json
      """
    ),
    (
      DemoCommand.self,
      """
      OVERVIEW: Run the built-in demo: a loopback rollout shown in the dashboard.

      The origin publishes a new release every 30 seconds; in the dashboard, n
      publishes the next one at once.

      The rollout is signed: the origin publishes each release as a TUF repository
      made with the code of `assetwatch publish` (new keys each run), the config
      follows its signed targets trusting its root (the header's badge says signed),
      and an attacker plays on a schedule of 8 releases: at release 4 it serves other
      bytes under the feature-flags target's name, at 6 a timestamp that has expired,
      at 8 a timestamp signed with its own key. The engine refuses each and keeps its
      last good copies; the next release is clean. --no-signed runs the unsigned
      manifest rollout instead.

      Examples:
        assetwatch demo  (then edit examples/live/filter.js and watch it update)
        assetwatch demo --no-signed
        assetwatch demo --origin-only --port 8765
      """
    ),
    (
      CheckCommand.self,
      """
      OVERVIEW: Validate the config and print every problem (exit 2 if any).

      Example: assetwatch check --config assets.example.json
      """
    ),
    (
      RollbackCommand.self,
      """
      OVERVIEW: Go back to the previous good generation.

      Goes back to the previous copy the cache names now, after checking it, and
      prints the versions it went from and to.

      If another process changes the asset's copy meanwhile, nothing is changed and
      it exits 1 saying so: run it again.

      Example: assetwatch rollback feature-flags
      """
    ),
    (
      WaitCommand.self,
      """
      OVERVIEW: Wait until assets serve their target version; exit 1 on timeout.

      Runs its own engine with automatic refresh (failure backoff respected),
      checking the manifest first, until every named asset (default: all) is on
      target or the timeout passes (an asset with no target version: until it is
      FRESH). Prints progress lines when not on a terminal (on stderr with --json).

      An id neither configured nor in the manifest exits 2, once the manifest has
      been checked.

      Example: assetwatch wait model feature-flags --timeout 10m
      """
    ),
    (
      TUFClientCommand.self,
      """
      OVERVIEW: Run the engine's TUF updater (TUF conformance client CLI protocol).

      Actions (exit 0 on success, 1 on any failure):
        init TRUSTED_ROOT   copy the trusted root into --metadata-dir; no network
        refresh             update the top-level metadata from --metadata-url
        download            refresh, then each --target-name in turn to --target-dir

      Examples:
        assetwatch tuf-client --metadata-dir md init root.json
        assetwatch tuf-client --metadata-dir md \\
          --metadata-url https://repo/metadata refresh
        assetwatch tuf-client --metadata-dir md \\
          --metadata-url https://repo/metadata --target-dir out \\
          --target-name app/config.json --target-base-url https://repo/targets \\
          download
      """
    ),
    (
      ConfirmCommand.self,
      """
      OVERVIEW: Confirm the version an asset serves on probation.

      With a "probation" block in the config, a new version serves on probation until
      the app confirms it (or its confirmAfter time passes). Confirmed, no crash or
      time rejects it any more. With nothing on probation, nothing changes.

      Example: assetwatch confirm feature-flags
      """
    ),
    (
      RejectCommand.self,
      """
      OVERVIEW: Reject the version an asset serves and go back.

      Goes back to the previous good copy (or the bundled one), records the reason,
      and blocklists the rejected bytes by SHA-256: they are not fetched again until
      the target changes.

      Made for a health-check script beside the app (with --attach, the app's own
      engine).

      Example: assetwatch reject feature-flags --reason "checkout fails"
      """
    ),
    (
      PublishCommand.self,
      """
      OVERVIEW: Keep a signed TUF repository of assets for a static server.

      The folder holds metadata/ and targets/: upload it as it is to a static server.
      Keys come from --keys-dir (*.key files, mode 0600) and from the variables
      ASSETWATCH_KEY_ROOT, ASSETWATCH_KEY_TARGETS, ASSETWATCH_KEY_SNAPSHOT,
      ASSETWATCH_KEY_TIMESTAMP (and any --key-env NAME): the 64 hex digits of an
      ed25519 seed, as a key file holds them.

      Examples:
        assetwatch publish init --repo site --keys-dir keys
        assetwatch publish add --repo site --keys-dir keys flags f.json --version 7
        assetwatch publish update --repo site --keys-dir keys flags f.json \\
          --version 8 --rollout 10
        ASSETWATCH_KEY_TIMESTAMP=... assetwatch publish refresh-timestamp --repo site
      """
    ),
    (
      PublishInitCommand.self,
      """
      OVERVIEW: Create a repository: root 1, new ed25519 keys per role, no targets.

      Writes each new key to --keys-dir as ROLE-KEYID.key (mode 0600; an existing
      file is never overwritten) and never prints it. Ship metadata/1.root.json with
      the app (the config's "tuf": {"root": ...}).
      """
    ),
    (
      PublishUpdateCommand.self,
      """
      OVERVIEW: Replace a target's bytes, version or rollout percent, and sign.

      With --rollout P below 100 and a new FILE, the target is staged: custom.rollout
      names the bytes it replaces as "from", which instances outside the P % cohort
      keep serving. Without FILE, the listed bytes stay and --rollout (or --version)
      changes: 10 -> 50 -> 100.
      """
    ),
    (
      PublishRotateRootCommand.self,
      """
      OVERVIEW: Write root N+1: keys added or removed, signed by old and new keys.

      Root N+1 needs the threshold of root N's root keys and of its own. Targets,
      snapshot and timestamp are signed anew under it, so a replaced key stops
      counting at once. With no change it renews root's expiry.

      Examples:
        assetwatch publish rotate-root --repo site --keys-dir keys \\
          --remove-key timestamp=1a2b3c4d --generate timestamp
        assetwatch publish rotate-root --repo site --keys-dir keys \\
          --generate root --threshold root=2
      """
    ),
    (
      IndexCommand.self,
      """
      OVERVIEW: Write a large file's chunk index, for delta updates.

      Cuts FILE into content-defined chunks and writes FILE.chunks beside it: the
      file's size and SHA-256, then each chunk's length and SHA-256. Serve it next to
      the file: a client holding an older version fetches only the chunks it lacks,
      with Range requests. An edit changes only the chunks around it, even when it
      shifts the bytes after it. `assetwatch publish add` writes one by itself for
      files of 8 MiB or more.

      The average chunk is a power of two from 64KiB to 1MiB; by default about a
      4096th of the file (256KiB for 1GiB). Bad input exits 2.

      Example: assetwatch index model.bin --average 256KiB
      """
    ),
  ]

  @Test(arguments: 0..<expected.count)
  func helpReadsWellAt80Columns(_ index: Int) {
    let (command, text) = Self.expected[index]
    let actual = Self.overview(command)
    #expect(actual == text, "\(command._commandName) help differs:\n\(actual)")
    for line in actual.split(separator: "\n") {
      #expect(line.count <= 80, "\(command._commandName): \(line)")
      // A long line wrapped by the terminal's width leaves an option or a `\` on its own.
      #expect(!line.hasPrefix("--") && line != "\\", "\(command._commandName): \(line)")
    }
  }
}

/// The CLI's words and numbers: `1 asset`, no transfer shown as downloading at 0 B/s once done,
/// `CHECKED` counted like the dashboard counts it.
@Suite struct CLIWordsTests {
  @Test func oneAssetIsSingular() {
    #expect(CheckCommand.okLine(file: "a.json", assets: 1) == "a.json: OK (1 asset)")
    #expect(CheckCommand.okLine(file: "a.json", assets: 0) == "a.json: OK (0 assets)")
    #expect(CheckCommand.okLine(file: "a.json", assets: 7) == "a.json: OK (7 assets)")
  }

  @Test func aFinishedTransferIsNotShownAsDownloading() {
    var printer = PlainEventPrinter(timeZone: TimeZone(identifier: "UTC")!)
    let now = Date(timeIntervalSince1970: 1_795_293_667)
    let done = TransferProgress(receivedBytes: 17, expectedBytes: 17, bytesPerSecond: 0)
    #expect(printer.lines(for: .progress(id: "motd", done), now: now).isEmpty)
    let half = TransferProgress(receivedBytes: 50, expectedBytes: 100, bytesPerSecond: 0)
    let lines = printer.lines(for: .progress(id: "model", half), now: now)
    #expect(lines.count == 1)
    #expect(lines.first?.hasSuffix("50% of 100 B") == true, "\(lines)")
    let fast = TransferProgress(receivedBytes: 70, expectedBytes: 100, bytesPerSecond: 2048)
    let more = printer.lines(for: .progress(id: "model", fast), now: now)
    #expect(more.first?.hasSuffix("70% of 100 B at 2.0 KiB/s") == true, "\(more)")
  }

  @Test func checkedIsCountedDownLikeTheDashboard() {
    let now = Date(timeIntervalSince1970: 1_795_293_667)
    #expect(StatusTable.ago(now.addingTimeInterval(-0.7), now: now) == "0s ago")
    #expect(StatusTable.ago(now.addingTimeInterval(-5.3), now: now) == "5s ago")
    #expect(StatusTable.ago(now.addingTimeInterval(-59.9), now: now) == "59s ago")
    #expect(StatusTable.ago(now.addingTimeInterval(-61), now: now) == "1m ago")
  }
}

/// A command the link could not deliver says `not connected`, whatever the dashboard knew.
@Suite struct CommandFailureWordsTests {
  @Test func anUnreachableEngineIsNotConnected() {
    let words = WatchSession<LocalEngineLink>.failureWords(
      EngineLinkError.unreachable("refresh not sent: connection reset"))
    #expect(words == "not connected: refresh not sent: connection reset")
  }

  @Test func aRefusalKeepsItsReason() {
    let words = WatchSession<LocalEngineLink>.failureWords(
      EngineLinkError.refused("refused: read-only"))
    #expect(words == "refused: read-only")
  }
}

/// A dashboard the engine cut while it read nothing says so once it reads again.
@Suite struct CutWordsTests {
  @Test func aCutSaysDisconnectedTooSlowAndThatItIsBack() {
    let entry = EventPump.cutEntry(
      "too slow: read nothing for 31s\u{1B}[2J", at: Date(timeIntervalSince1970: 0))
    #expect(
      entry.message
        == "disconnected: too slow: read nothing for 31s[2J; reconnected with a fresh snapshot")
    #expect(entry.level == .warning)
  }
}
