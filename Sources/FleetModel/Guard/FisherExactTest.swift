import Foundation

/// The one-sided Fisher exact test of a 2x2 table: is the canary's share of rejecting instances
/// higher than the control's by more than chance? Computed with `lgamma` (log binomial
/// coefficients), so any fleet size works without overflow. Pure.
///
/// With the canary's `a` of `n1` instances rejecting and the control's `c` of `n2`, the margins
/// fixed, the count of rejecting canary instances is hypergeometric; the p-value is the chance of
/// `a` or more: `sum over x >= a of C(K, x) C(N - K, n1 - x) / C(N, n1)`, `K = a + c`,
/// `N = n1 + n2`.
package enum FisherExactTest {
  /// The one-sided (greater) p-value, in [0, 1]. Counts out of range (negative, more rejecting
  /// than instances) give 1: no evidence.
  package static func pGreater(
    canaryRejected a: Int, canaryTotal n1: Int, controlRejected c: Int, controlTotal n2: Int
  ) -> Double {
    guard n1 >= 0, n2 >= 0, (0...n1).contains(a), (0...n2).contains(c) else { return 1 }
    let total = n1 + n2
    let rejecting = a + c
    guard total > 0 else { return 1 }
    let denominator = logChoose(total, n1)
    let lowest = max(a, n1 - (total - rejecting))
    let highest = min(n1, rejecting)
    guard lowest <= highest else { return 0 }
    var sum = 0.0
    for x in lowest...highest {
      sum += exp(
        logChoose(rejecting, x) + logChoose(total - rejecting, n1 - x) - denominator)
    }
    return min(1, max(0, sum))
  }

  /// The smallest p-value tables with these arm sizes can reach (every canary instance
  /// rejecting, no control instance): `1 / C(n1 + n2, n1)`. A test whose smallest p-value is not
  /// below alpha can never fire.
  package static func smallestP(canaryTotal n1: Int, controlTotal n2: Int) -> Double {
    guard n1 > 0, n2 >= 0 else { return 1 }
    return pGreater(canaryRejected: n1, canaryTotal: n1, controlRejected: 0, controlTotal: n2)
  }

  /// ln C(n, k) through `lgamma`.
  static func logChoose(_ n: Int, _ k: Int) -> Double {
    guard k >= 0, k <= n else { return -.infinity }
    return lgamma(Double(n) + 1) - lgamma(Double(k) + 1) - lgamma(Double(n - k) + 1)
  }
}
