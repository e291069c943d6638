// FirstBytesCheck: the bytes a connection has received so far, judged before libmicrohttpd
// waits for a line end — 400 at once for what can never be a request, nothing for what still can.

import Testing
@testable import MicroHTTP

@Suite struct FirstBytesCheckTests {
    @Test("refused on the bytes received so far", arguments: [
        ([0x16, 0x03, 0x01, 0x00, 0xA5, 0x01], "TLS handshake"),
        (Array("\u{0}GET / HTTP/1.1\r\n".utf8), "does not start with an HTTP request line"),
        (Array("GET / HTTP/1.1\rHost: x".utf8), "not followed by LF"),
        (Array("GET / HTTP/1.1\r\nHost: x\rY".utf8), "not followed by LF"),
        (Array("GE(T / HTTP/1.1\r\n".utf8), "does not start with an HTTP request line"),
        (Array("\r\n\r\n\u{1}".utf8), "does not start with an HTTP request line"),
    ] as [([UInt8], String)])
    func refused(bytes: [UInt8], reason: String) throws {
        let problem = try #require(FirstBytesCheck.problem(in: bytes[...]))
        #expect(problem.contains(reason), "\(problem)")
    }

    @Test("left to libmicrohttpd: a request, or a prefix of one", arguments: [
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "G", "GET", "GET /", "GET / HTTP/1.1\r", "\r\n", "\r\nGET / HTTP/1.1\r\n",
        "get / HTTP/1.1\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "SSH-2.0-OpenSSH_9.6\r\n", "",
        "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n\rX", "POST / HTTP/1.1\nContent-Length: 3\n\n\u{16}\rX",  // a body may hold anything
    ])
    func allowed(text: String) {
        #expect(FirstBytesCheck.problem(in: Array(text.utf8)[...]) == nil)
    }
}
