import Foundation
import Testing

@testable import FleetModel

/// The one-sided Fisher exact test on tables whose p-values are known (Fisher's tea tasting,
/// exact binomial sums computed by hand and with Python's `math.comb`).
@Suite("Fisher exact test on known tables")
struct FisherExactTestTests {
  private func p(_ a: Int, of n1: Int, _ c: Int, of n2: Int) -> Double {
    FisherExactTest.pGreater(
      canaryRejected: a, canaryTotal: n1, controlRejected: c, controlTotal: n2)
  }

  private func close(_ x: Double, _ y: Double, relative: Double = 1e-9) -> Bool {
    abs(x - y) <= relative * max(abs(x), abs(y), 1e-300)
  }

  @Test(
    "known one-sided p-values",
    arguments: [
      // Fisher's lady tasting tea: 3 of 4 right against 1 of 4; p = 17/70.
      (3, 4, 1, 4, 17.0 / 70.0),
      // The most extreme 4 x 4 table: 1 / C(8, 4).
      (4, 4, 0, 4, 1.0 / 70.0),
      // 10 of 10 against 0 of 10: 1 / C(20, 10).
      (10, 10, 0, 10, 1.0 / 184_756.0),
      // 2 of 5 against 0 of 20: C(23, 3) / C(25, 5) = 1771 / 53130.
      (2, 5, 0, 20, 1771.0 / 53_130.0),
      // 3 of 3 against 0 of 3: 1 / C(6, 3).
      (3, 3, 0, 3, 0.05),
      // 5 of 20 against 1 of 20.
      (5, 20, 1, 20, 0.09088209088209089),
      // The canary better than the control: p near 1.
      (1, 10, 3, 10, 0.9566563467492261),
      (7, 50, 1, 50, 0.02972304389173799),
      // Nobody rejected: no evidence at all.
      (0, 4, 0, 4, 1.0),
    ])
  func knownTables(_ a: Int, _ n1: Int, _ c: Int, _ n2: Int, _ expected: Double) {
    let value = p(a, of: n1, c, of: n2)
    #expect(close(value, expected), "p(\(a)/\(n1) vs \(c)/\(n2)) = \(value), not \(expected)")
  }

  @Test func largeFleetsNeitherOverflowNorLoseTheTail() {
    // 100 of 5000 against 50 of 5000: C(...) overflows any integer, lgamma does not.
    let value = p(100, of: 5000, 50, of: 5000)
    #expect(value > 0 && value < 1e-4, "\(value)")
    let even = p(50, of: 5000, 50, of: 5000)
    #expect(even > 0.5 && even < 0.6, "\(even)")
  }

  @Test func nonsenseCountsAreNoEvidence() {
    #expect(p(5, of: 4, 0, of: 4) == 1)
    #expect(p(-1, of: 4, 0, of: 4) == 1)
    #expect(p(0, of: 0, 0, of: 0) == 1)
  }

  @Test func theSmallestPValueIsTheMostExtremeTable() {
    #expect(close(FisherExactTest.smallestP(canaryTotal: 4, controlTotal: 4), 1.0 / 70.0))
    #expect(close(FisherExactTest.smallestP(canaryTotal: 3, controlTotal: 3), 0.05))
  }
}
