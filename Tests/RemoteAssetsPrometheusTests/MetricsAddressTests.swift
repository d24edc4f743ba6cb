import RemoteAssetsPrometheus
import Testing

/// `--metrics HOST:PORT`: loopback unless a host is given; bad values say what is wrong.
@Suite struct MetricsAddressTests {
  @Test(arguments: [
    (":9464", "127.0.0.1", 9464), ("9464", "127.0.0.1", 9464),
    ("127.0.0.1:9464", "127.0.0.1", 9464), ("0.0.0.0:80", "0.0.0.0", 80),
    ("localhost:9100", "localhost", 9100), ("[::1]:9464", "::1", 9464),
  ])
  func parses(text: String, host: String, port: Int) throws {
    #expect(try MetricsAddress(parsing: text) == MetricsAddress(host: host, port: port))
  }

  @Test(arguments: [
    ("", "no port"), (":", "no port"), ("host:", "no port"), (":abc", "1 to 65535"),
    (":0", "1 to 65535"), (":65536", "1 to 65535"), (":-1", "1 to 65535"),
    ("::1:9464", "brackets"), ("[::1]9464", "no :PORT"), ("[::1:9464", "no closing ]"),
    ("ho st:9464", "name or an IP"), ("\u{1B}[31m:9464", "name or an IP"),
  ])
  func rejects(text: String, reason: String) {
    #expect {
      _ = try MetricsAddress(parsing: text)
    } throws: { error in
      "\(error)".contains(reason) && "\(error)".contains("HOST:PORT")
        && !"\(error)".unicodeScalars.contains { $0.value < 0x20 }
    }
  }

  @Test func describesItselfAsHostColonPort() {
    #expect(MetricsAddress(port: 9464).description == "127.0.0.1:9464")
    #expect(MetricsAddress(host: "::1", port: 1).description == "[::1]:1")
  }
}
