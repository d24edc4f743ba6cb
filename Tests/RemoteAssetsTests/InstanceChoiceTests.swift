import Foundation
import Testing

@testable import RemoteAssets

/// Which id an instance goes by, from values alone: no engine, no cache folder.
@Suite struct InstanceChoiceTests {
  static func resolve(
    _ configured: String?, _ environment: [String: String], stored: String?
  ) -> (id: String, readStore: Bool) {
    var read = false
    let id = InstanceChoice.resolve(
      configured: configured, environment: environment,
      stored: {
        read = true
        return stored
      }, make: { "made" })
    return (id, read)
  }

  @Test func theConfiguredIdComesFirstAndTheCacheFolderIsNotRead() {
    let chosen = Self.resolve("cfg", ["ASSETWATCH_INSTANCE": "env"], stored: "kept")
    #expect(chosen.id == "cfg")
    #expect(!chosen.readStore)
  }

  @Test func aValidEnvironmentIdComesBeforeTheKeptOneAndAnInvalidOneIsIgnored() {
    #expect(Self.resolve(nil, ["ASSETWATCH_INSTANCE": "env-1"], stored: "kept") == ("env-1", false))
    #expect(Self.resolve(nil, ["ASSETWATCH_INSTANCE": "bad id/"], stored: "kept") == ("kept", true))
  }

  @Test func withoutAKeptIdOneIsMadeForThisRun() {
    #expect(Self.resolve(nil, [:], stored: nil) == ("made", true))
  }
}
