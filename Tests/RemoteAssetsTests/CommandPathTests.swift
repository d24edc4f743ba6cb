import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// One command path: every ``AssetCommand``, unknown ids and refusals included, answered alike
/// by this process's link and the control socket's, because both ask ``AssetEngine/execute(_:)``.
@Suite struct CommandPathTests {
  /// Each command in order, from a new cache (`flags` served by the origin, `motd` bundled
  /// only), with what must hold of its reply; both links run the same script.
  static let script: [(AssetCommand, @Sendable (CommandReply) -> Bool)] = [
    (.refresh(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.verify(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.resetToBundled(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.dropCache(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.rollback(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.confirm(id: "nope"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (.reject(id: "nope", reason: "bad"), { $0.isRefusal && $0.error == "no asset named nope" }),
    (
      .rollback(id: "flags"),
      { $0.isRefusal && $0.error?.contains("no previous generation") == true }
    ),
    (
      .reject(id: "flags", reason: "bad"),
      { $0.isRefusal && $0.error?.contains("no downloaded version") == true }
    ),
    (.refresh(id: "flags"), { $0.ok && $0.results?.map(\.outcome) == [.updated] }),
    (.refresh(id: "motd"), { !$0.ok && !$0.isRefusal && $0.results?.first?.outcome == .failed }),
    (.verify(id: "flags"), { $0.ok && $0.verified?.map(\.asset) == ["flags"] }),
    (.verifyAll, { $0.ok && $0.verified?.isEmpty == false }),
    (.pauseAutoRefresh, { $0 == CommandReply(ok: true) }),
    (.resumeAutoRefresh, { $0 == CommandReply(ok: true) }),
    (.resetToBundled(id: "flags"), { $0 == CommandReply(ok: true) }),
    (.rollback(id: "flags"), { $0 == CommandReply(ok: true) }),
    (.dropCache(id: "flags"), { $0 == CommandReply(ok: true) }),
    (
      .refreshAll,
      { $0.results?.map(\.asset) == ["flags", "motd"] && $0.results?.first?.outcome == .updated }
    ),
  ]

  /// The replies one link gives to the script, with what each reply's check said.
  static func transcript(_ kind: EngineLinkTests.Kind) async throws -> [String] {
    var lines: [String] = []
    try await EngineLinkTests.withLink(kind) { link, _, _, _ in
      for (command, check) in script {
        let reply = try await link.execute(command)
        #expect(check(reply), "\(kind): \(command.commandWord) \(command.assetID ?? ""): \(reply)")
        let results = reply.results.map { $0.map { "\($0.asset) \($0.outcome) \($0.error ?? "")" } }
        let verified = reply.verified.map { $0.map { "\($0.asset) \($0.problem ?? "intact")" } }
        lines.append(
          "\(command.commandWord) \(command.assetID ?? "-"): ok=\(reply.ok) refused=\(reply.isRefusal)"
            + " error=\(reply.error ?? "-") results=\(results ?? []) verified=\(verified ?? [])"
        )
      }
    }
    return lines
  }

  @Test func bothLinksAnswerEveryCommandAlike() async throws {
    let local = try await Self.transcript(.local)
    let socket = try await Self.transcript(.socket)
    #expect(local.count == Self.script.count)
    for (here, there) in zip(local, socket) { #expect(here == there) }
  }

  @Test func performThrowsOnlyForARefusal() async throws {
    for kind in EngineLinkTests.Kind.allCases {
      try await EngineLinkTests.withLink(kind) { link, _, _, _ in
        // A refresh that fails is an outcome (the asset's state shows it), not a refusal.
        try await link.perform(.refresh(id: "motd"))
        do {
          try await link.perform(.confirm(id: "nope"))
          Issue.record("\(kind): confirming an unknown asset was carried out")
        } catch {
          #expect(
            (error as? EngineLinkError) == .refused("no asset named nope"), "\(kind): \(error)")
        }
        await #expect(throws: EngineLinkError.refused("no asset named nope")) {
          _ = try await link.refresh(["nope"])
        }
        await #expect(throws: EngineLinkError.refused("no asset named nope")) {
          _ = try await link.verify(["flags", "nope"])
        }
      }
    }
  }
}
