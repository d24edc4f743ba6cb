import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// How ``RefreshCore`` decides a re-hash of a cached copy (`verify`): intact, damaged (looked
/// at again under the lock, or not on a read-only cache), replaced meanwhile, discarded only
/// while the entry still names that copy. Facts in, decisions out.
@Suite struct RefreshCoreVerifyTests {
  typealias F = RefreshCoreFixture

  @Test func aFirstLookDecidesIntactRecheckOrReport() {
    let copy = F.generation()
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: copy, problem: nil, discardedAtLoad: nil, holdsCurrent: true,
        readOnly: false) == .done(VerifyResult(id: "flags", checked: true, problem: nil)))
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: copy, problem: "short", discardedAtLoad: nil, holdsCurrent: true,
        readOnly: false) == .recheck("short"))
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: copy, problem: "short", discardedAtLoad: nil, holdsCurrent: true,
        readOnly: true) == .discard(problem: "short", file: nil))
  }

  @Test func noCopyIsUncheckedUnlessThisStartDiscardedIt() {
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: nil, problem: nil, discardedAtLoad: nil, holdsCurrent: false,
        readOnly: false) == .done(VerifyResult(id: "flags", checked: false, problem: nil)))
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: nil, problem: nil, discardedAtLoad: "hash differs", holdsCurrent: false,
        readOnly: false) == .done(VerifyResult(id: "flags", checked: true, problem: "hash differs"))
    )
    #expect(
      RefreshCore.verifyLooked(
        "flags", copy: nil, problem: nil, discardedAtLoad: "hash differs", holdsCurrent: true,
        readOnly: false) == .done(VerifyResult(id: "flags", checked: false, problem: nil)))
    // The entry on disk wins over what this process remembers, when it can be read.
    let remembered = F.generation(sha: F.newSHA)
    #expect(RefreshCore.copyToCheck(onDisk: .some(nil), remembered: remembered) == nil)
    #expect(RefreshCore.copyToCheck(onDisk: nil, remembered: remembered) == remembered)
  }

  @Test func aSecondLookUnderTheLockConfirmsOrFindsTheCopyReplaced() {
    #expect(
      RefreshCore.verifyRechecked("flags", .intact)
        == .done(VerifyResult(id: "flags", checked: true, problem: nil)))
    #expect(RefreshCore.verifyRechecked("flags", .changed) == .again)
    #expect(
      RefreshCore.verifyRechecked("flags", .damaged(problem: "short", file: nil))
        == .discard(problem: "short", file: nil))
  }

  @Test func aDamagedCopyIsDiscardedOnlyWhileTheEntryStillNamesIt() {
    let copy = F.generation()
    let error = RefreshCore.damage("short", hasBundled: true, at: F.now)
    #expect(error.kind == .corrupt && error.message.contains("using the bundled copy"))
    #expect(
      RefreshCore.damage("short", hasBundled: false, at: F.now).message.contains("no copy left"))
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = copy
    entry.checkedAt = F.now
    var other = entry
    RefreshCore.discardDamaged(&other, copy: copy, error: error) { _ in false }
    #expect(other.current == copy)  // the blob file changed since: another copy now
    var replaced = entry
    replaced.current = F.generation(sha: F.newSHA)
    RefreshCore.discardDamaged(&replaced, copy: copy, error: error) { _ in true }
    #expect(replaced.current?.sha256 == F.newSHA)
    RefreshCore.discardDamaged(&entry, copy: copy, error: error) { _ in true }
    #expect(entry.current == nil && entry.checkedAt == nil && entry.lastError == error)
    #expect(RefreshCore.discarded(readOnly: false, written: entry, error: error))
    #expect(!RefreshCore.discarded(readOnly: false, written: other, error: error))
    #expect(!RefreshCore.discarded(readOnly: false, written: nil, error: error))
    #expect(RefreshCore.discarded(readOnly: true, written: nil, error: error))
    #expect(RefreshCore.verifies("flags", wanted: nil))
    #expect(!RefreshCore.verifies("flags", wanted: ["other"]))
  }
}
