/// A colour of the basic eight-colour palette every terminal has.
public enum TerminalColor: UInt8, Sendable, Hashable, CaseIterable {
  case black, red, green, yellow, blue, magenta, cyan, white
}
