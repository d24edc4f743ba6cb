import Foundation
import Testing

@testable import TUFPublish

/// `--expires ROLE=DURATION`: at most 100 years counted after the unit (without overflow), and
/// TUF's time format never traps, whatever the date.
@Suite struct ExpiryTests {
  @Test func lifetimesUpToAHundredYearsAreTaken() throws {
    let year: TimeInterval = 365 * 86_400
    #expect(try ExpiryPolicy.parseOverride("root=100y") == ("root", 100 * year))
    #expect(try ExpiryPolicy.parseOverride("root=36500d") == ("root", 100 * year))
    #expect(try ExpiryPolicy.parseOverride("timestamp=12h") == ("timestamp", 12 * 3600))
    #expect(try ExpiryPolicy.parseOverride("snapshot=2w") == ("snapshot", 14 * 86_400))
  }

  @Test(arguments: [
    "root=101y", "root=9000y", "root=36501d", "root=5218w", "root=3153600001s",
    "root=2148908724y", "root=9223372036854775807y", "targets=9223372036854775807s",
  ])
  func longerLifetimesAreABadOptionNamingIt(_ text: String) {
    #expect {
      try ExpiryPolicy.parseOverride(text)
    } throws: { error in
      guard let error = error as? PublishError else { return false }
      return error.kind == .usage && error.message.hasPrefix("--expires \(text): ")
        && error.message.contains("100 years")
    }
  }

  @Test func notADurationIsStillSaidSo() {
    for text in ["root=0y", "root=-1y", "root=1x", "root=y", "root=99999999999999999999y"] {
      #expect {
        try ExpiryPolicy.parseOverride(text)
      } throws: { error in
        (error as? PublishError)?.message.contains("is not a duration") == true
      }
    }
  }

  @Test func formatWritesFourDigitYearsAndNeverTraps() {
    #expect(TUFTime.format(Date(timeIntervalSince1970: 1_800_000_000)) == "2027-01-15T08:00:00Z")
    #expect(TUFTime.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    #expect(TUFTime.format(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
    // Past year 9999, or far out of time_t's range, or not finite: the end of the range.
    for seconds in [253_402_300_800, 1e18, 1e300, .infinity] as [TimeInterval] {
      #expect(TUFTime.format(Date(timeIntervalSince1970: seconds)) == "9999-12-31T23:59:59Z")
    }
    for seconds in [-62_135_596_801, -1e18, -.infinity, .nan] as [TimeInterval] {
      #expect(TUFTime.format(Date(timeIntervalSince1970: seconds)) == "0001-01-01T00:00:00Z")
    }
    #expect(TUFTime.format(Date(timeIntervalSince1970: -61_000_000_000)) == "0036-12-26T11:33:20Z")
    // What it writes reads back.
    #expect(TUFTime.parse("9999-12-31T23:59:59Z") == Date(timeIntervalSince1970: 253_402_300_799))
  }

  @Test func aPolicyGivenAHugeLifetimeStillSignsAReadableExpiry() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = ExpiryPolicy(["root": 1e20])
    let expires = policy.expiry(of: "root", now: now)
    #expect(expires == now + 100 * 365 * 86_400)
    #expect(TUFTime.parse(TUFTime.format(expires)) == expires)
  }
}
