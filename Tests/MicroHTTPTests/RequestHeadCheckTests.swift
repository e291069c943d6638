import Foundation
import Testing
@testable import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The RFC 9112 checks on raw bytes through a real daemon, and the pure pieces they use.
@Suite("RequestHeadCheck")
struct RequestHeadCheckTests {
    static let ok = "GET /prepared HTTP/1.1\r\nHost: t\r\n"

    @Test("raw request heads → the status the daemon answers", arguments: [
        (ok + "\r\n", 200),
        ("GET /prepared HTTP/1.0\r\n\r\n", 200),
        ("GET /prepared HTTP/1.1\r\n\r\n", 400),  // no Host
        (ok + "Host: u\r\n\r\n", 400),
        ("GET /prepared HTTP/1.1\r\nHost : t\r\n\r\n", 400),
        (ok + "X-A: a\r\n b\r\n\r\n", 400),  // obs-fold
        (ok + "X-A: a\u{0}b\r\n\r\n", 400),
        (ok + "X-A: a\u{1}b\r\n\r\n", 400),
        ("GET /prep\u{0}ared HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /prepared%zz HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /prepared%00 HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        (ok + "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (ok + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        (ok + "Transfer-Encoding: gzip\r\n\r\n", 501),
        (ok + "Transfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 8192) + "\r\nx\r\n0\r\n\r\n", 400),
        (ok + "X-A: " + String(repeating: "a", count: 8200) + "\r\n\r\n", 431),
        ("GET /" + String(repeating: "u", count: 8200) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
    ])
    func rawHeads(head: String, expected: Int) throws {
        let server = try TestServer(host: "127.0.0.1")
        let reply = try rawExchange(port: server.port, Array(head.utf8))
        #expect(reply.hasPrefix("HTTP/1.1 \(expected) "), "\(reply.prefix(120))")
        #expect(!reply.contains("\r\n\r\nHTTP/1.1 "), "one response, one header block: \(reply.prefix(300))")
    }

    @Test("a refused head closes the connection, and the completion hook reports it once")
    func refusedHeadIsReported() throws {
        let recorder = SummaryRecorder()
        let server = try TestServer(host: "127.0.0.1", recorder: recorder)
        let reply = try rawExchange(port: server.port, Array("GET /prepared HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8))
        #expect(reply.contains("Connection: close"))
        let summary = recorder.waitFor { $0.status == 400 }
        #expect(summary?.rejectedBy == .headCheck)
        #expect(summary?.rawTarget == "/prepared")
    }

    @Test("percent escapes in the path", arguments: [
        ("/a%20b", nil), ("/a%2Fb?x=%zz", nil), ("/a%zz", "the path has a '%' that is not followed by two hex digits"),
        ("/a%2", "the path has a '%' that is not followed by two hex digits"), ("/a%", "the path has a '%' that is not followed by two hex digits"),
        ("/a%00b", "the request-target has %00 in its path"), ("/a?b=%00", nil),
    ] as [(String, String?)])
    func pathEscapes(target: String, problem: String?) {
        #expect(RequestHeadCheck.pathEscapeProblem(target) == problem)
    }

    @Test("Host values", arguments: [
        ("example.com", true), ("example.com:8080", true), ("[::1]:8080", true), ("example.com ", true),
        ("", false), (".example.com", false), ("a b", false), ("example.com/x", false), ("u@example.com", false),
        ("example.com\t", false), ("exa\u{1}mple", false),
    ])
    func hosts(host: String, valid: Bool) {
        #expect(RequestHeadCheck.isValidHost(Array(host.utf8)) == valid)
    }
}

/// Sends `bytes` on a fresh connection and reads until the server closes it (or 5 s pass).
func rawExchange(port: UInt16, _ bytes: [UInt8]) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    #expect(connected == 0)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    shutdown(fd, Int32(SHUT_WR))
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { break }
        out += chunk[..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

@Suite("ConnectionTracker")
struct ConnectionTrackerTests {
    static func tracker(limit: Int = 3, perIP: Int = 2, exempt: [String] = []) -> ConnectionTracker {
        ConnectionTracker(options: HTTPDaemonOptions(
            listen: [ListenAddress(host: "127.0.0.1", port: 0)], connectionLimit: limit, perIPConnectionLimit: perIP,
            perIPLimitExemptions: exempt.compactMap(IPNetwork.init)))
    }

    @Test("per-address and global limits refuse and count; exempt networks pass", arguments: [
        (["10.0.0.1", "10.0.0.1", "10.0.0.1"], [] as [String], [true, true, false], [ConnectionRefusal.perAddressLimit: 1]),
        (["10.0.0.1", "10.0.0.1", "10.0.0.1"], ["10.0.0.0/8"], [true, true, true], [:]),
        (["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], [], [true, true, true, false], [.connectionLimit: 1]),
    ])
    func limits(addresses: [String], exempt: [String], admitted: [Bool], refused: [ConnectionRefusal: Int]) {
        let tracker = Self.tracker(exempt: exempt)
        var results: [Bool] = []
        for (i, address) in addresses.enumerated() {
            let ok = tracker.admit(address)
            results.append(ok)
            if ok { tracker.started(ConnectionState(fd: -1 - Int32(i), address: address, acceptedNanos: 0)) }
        }
        #expect(results == admitted)
        #expect(tracker.statistics().refused == refused)
        #expect(tracker.statistics().open == admitted.filter { $0 }.count)
    }

    @Test("closing a connection frees its place")
    func closing() {
        let tracker = Self.tracker(limit: 1, perIP: 0)
        let first = ConnectionState(fd: -1, address: "10.0.0.1", acceptedNanos: 0)
        #expect(tracker.admit("10.0.0.1"))
        tracker.started(first)
        #expect(!tracker.admit("10.0.0.2"))
        tracker.closed(first)
        #expect(tracker.admit("10.0.0.2"))
    }

    @Test("refusals are reported summed, then the counter starts again")
    func reports() {
        let tracker = Self.tracker(limit: 1, perIP: 0)
        #expect(tracker.admit("10.0.0.1"))
        tracker.started(ConnectionState(fd: -1, address: "10.0.0.1", acceptedNanos: 0))
        for _ in 0..<5 { _ = tracker.admit("10.0.0.9") }
        #expect(tracker.sweep(now: 1).events == [.refused(.connectionLimit, count: 5, addresses: ["10.0.0.9"])])
        #expect(tracker.sweep(now: 2).events == [])
    }

    @Test("saturated from 90 % of the limit", arguments: [(0, 10, false), (8, 10, false), (9, 10, true), (10, 10, true)])
    func saturation(open: Int, limit: Int, saturated: Bool) {
        #expect(HTTPConnectionStatistics(open: open, limit: limit, refused: [:], closedByHeadDeadline: 0).saturated == saturated)
    }
}
