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
    #expect(pacer.mayDraw(at: start + .milliseconds(33)))
  }

  @Test func aWaitingFrameShortensTheKeyWait() {
    var pacer = FramePacer()
    pacer.didDraw(at: start)
    #expect(pacer.waitMilliseconds(framePending: true, at: start + .milliseconds(10)) == 24)
    #expect(pacer.waitMilliseconds(framePending: true, at: start + .milliseconds(40)) == 1)
    #expect(pacer.waitMilliseconds(framePending: false, at: start + .milliseconds(10)) == 50)
  }
}
