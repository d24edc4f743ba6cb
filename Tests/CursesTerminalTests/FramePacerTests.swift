import Testing

@testable import CursesTerminal

@Suite struct FramePacerTests {
  private let start = ContinuousClock.now

  @Test func firstFrameIsDrawnAtOnce() {
    #expect(FramePacer().mayDraw(at: start))
  }

  @Test func framesAreCappedAtAboutThirtyPerSecond() {
    var pacer = FramePacer()
    pacer.didDraw(at: start)
    #expect(!pacer.mayDraw(at: start + .milliseconds(10)))
    #expect(!pacer.mayDraw(at: start + .milliseconds(33)))
    #expect(pacer.mayDraw(at: start + .milliseconds(34)))
  }

  /// A frame changed every millisecond for ten seconds, drawn whenever the pacer allows and the
  /// loop waits as it says: never more than 30 draws in any one second.
  @Test func aStormOfChangesIsDrawnAtMostThirtyTimesInAnySecond() {
    var pacer = FramePacer()
    var draws: [ContinuousClock.Instant] = []
    var now = start
    let end = start + .seconds(10)
    while now < end {
      let allowed = pacer.mayDraw(at: now)
      if allowed {
        pacer.didDraw(at: now)
        draws.append(now)
      }
      // The loop asks again after the wait, or as soon as the next change (a key) arrives.
      let wait = pacer.waitMilliseconds(framePending: !allowed, at: now)
      now += .milliseconds(min(Int(wait), 1))
    }
    for (i, first) in draws.enumerated() {
      let inOneSecond = draws[i...].prefix { $0 - first < .seconds(1) }.count
      #expect(inOneSecond <= 30)
    }
    #expect(draws.count >= 290)  // and the cap is not much lower than 30 either
  }

  @Test func aWaitingFrameShortensTheKeyWait() {
    var pacer = FramePacer()
    pacer.didDraw(at: start)
    #expect(pacer.waitMilliseconds(framePending: true, at: start + .milliseconds(10)) == 24)
    #expect(pacer.waitMilliseconds(framePending: true, at: start + .milliseconds(40)) == 1)
    #expect(pacer.waitMilliseconds(framePending: false, at: start + .milliseconds(10)) == 50)
  }

  /// A quiet application is woken four times a second at most, and at each new second of the
  /// clock; a waiting frame still gets its turn at once.
  @Test func aQuietApplicationWakesRarelyButOnTheSecond() {
    var pacer = FramePacer()
    pacer.didDraw(at: start)
    let later = start + .milliseconds(500)
    #expect(pacer.waitMilliseconds(framePending: false, at: later, quiet: true) == 250)
    #expect(
      pacer.waitMilliseconds(
        framePending: false, at: later, quiet: true, millisecondsIntoSecond: 900) == 101)
    #expect(
      pacer.waitMilliseconds(
        framePending: false, at: later, quiet: true, millisecondsIntoSecond: 999) == 2)
    #expect(
      pacer.waitMilliseconds(
        framePending: false, at: later, quiet: false, millisecondsIntoSecond: 900) == 50)
    #expect(
      pacer.waitMilliseconds(framePending: true, at: start + .milliseconds(10), quiet: true) == 24)
  }
}
