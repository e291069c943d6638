// HTTPHandler.headReceived: a request refused on its head is answered before a byte of its body is
// read; a per-request body limit; what the head decided reaches `handle`. And the shutdown that
// goes with it: a request whose handler has started is answered, one whose handler has not
// started by the deadline is never handled.

import Foundation
import Synchronization
import Testing
@testable import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

/// Refuses requests without `Authorization: Bearer ok` on their head; `/small` takes 10 bytes of
/// body; `/slow` sleeps 1.5 s in the handler. Answers `<kept> <body bytes> <too large>`.
final class GateHandler: HTTPHandler {
    let handled = Atomic<Int>(0)

    func headReceived(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.header("Authorization") == "Bearer ok" else {
            return .answer(.dynamic(status: 401, headers: [("WWW-Authenticate", "Bearer")], body: Array("no token\n".utf8)))
        }
        request.keepForHandler("checked")
        return .readBody(limit: request.rawPath == "/small" ? 10 : nil)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        handled.add(1, ordering: .sequentiallyConsistent)
        if request.rawPath == "/slow" { usleep(1_500_000) }
        let kept = request.keptForHandler as? String ?? "nothing"
        return .dynamic(status: 200, headers: [], body: Array("\(kept) \(request.body.count) \(request.bodyTooLarge)".utf8))
    }
}

/// A client socket kept open across steps (send part of a request, later the rest, then read).
final class OpenSocket {
    let fd: Int32

    init(port: UInt16, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the server closes (or the timeout passes in silence).
    func readAll() -> String {
        String(decoding: readAllBytes(), as: UTF8.self)
    }

    func readAllBytes() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }
}

@Suite struct HeadDecisionTests {
    static func daemon(_ handler: GateHandler, threads: Int = 1) throws -> HTTPDaemon {
        try HTTPDaemon(
            options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: threads, requestBodyLimit: 1000,
                                       collectsRequestBodies: true),
            handler: handler)
    }

    /// A daemon on `GateHandler`, and a client that sent it `POST path` with `body` of `length` bytes.
    static func started(path: String, length: Int, body: String) throws -> (GateHandler, HTTPDaemon, OpenSocket) {
        let handler = GateHandler()
        let daemon = try Self.daemon(handler)
        let client = try OpenSocket(port: daemon.boundAddresses[0].port)
        client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ok\r\nContent-Length: \(length)\r\n\r\n\(body)")
        return (handler, daemon, client)
    }

    @Test("a request refused on its head is answered without its body being sent, and is never handled")
    func refusedBeforeTheBody() throws {
        let handler = GateHandler()
        let daemon = try Self.daemon(handler)
        defer { daemon.stop() }
        // 15 MiB announced, not one byte of it sent: the answer comes anyway, and the connection closes.
        let client = try OpenSocket(port: daemon.boundAddresses[0].port)
        client.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 15728640\r\n\r\n")
        let reply = client.readAll()
        #expect(reply.hasPrefix("HTTP/1.1 401"), "\(reply)")
        #expect(reply.lowercased().contains("connection: close"))
        #expect(reply.hasSuffix("no token\n"))
        #expect(handler.handled.load(ordering: .sequentiallyConsistent) == 0)
    }

    @Test("the head's body limit and what it kept reach the handler", arguments: [
        ("/small", 10, "checked 10 false"), ("/small", 11, "checked 0 true"), ("/other", 11, "checked 11 false"),
    ])
    func perRequestLimit(path: String, size: Int, expected: String) throws {
        let handler = GateHandler()
        let daemon = try Self.daemon(handler)
        defer { daemon.stop() }
        let body = String(repeating: "x", count: size)
        let reply = try RawClient.exchange(
            Array("PATCH \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ok\r\nConnection: close\r\nContent-Length: \(size)\r\n\r\n\(body)".utf8),
            to: daemon.boundAddresses[0])
        let text = String(decoding: reply, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200") && text.hasSuffix(expected), "\(text)")
    }

    @Test("shutdown: the request in its handler at the deadline is answered; one whose body ends later gets 503 and is not handled")
    func shutdownHandlesOrRefuses() throws {
        let handler = GateHandler()
        // Two polling threads: while /slow holds one in its handler, the other accepts /late.
        let daemon = try Self.daemon(handler, threads: 2)
        let port = daemon.boundAddresses[0].port
        let slow = try OpenSocket(port: port)
        slow.send("POST /slow HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ok\r\nContent-Length: 2\r\n\r\nab")
        #expect(waitUntil { handler.handled.load(ordering: .sequentiallyConsistent) == 1 })
        let late = try OpenSocket(port: port)
        late.send("POST /late HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ok\r\nContent-Length: 4\r\n\r\nab")
        #expect(waitUntil { daemon.inFlightRequests() == 2 })

        let result = Mutex<HTTPDaemon.ShutdownResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let r = daemon.shutdown(gracePeriod: .milliseconds(300), answerGrace: .seconds(5))
            result.withLock { $0 = r }
            done.signal()
        }
        // Past the 300 ms deadline while /slow is still in its handler: the rest of /late's body arrives.
        usleep(700_000)
        late.send("cd")
        let lateReply = late.readAll()
        #expect(lateReply.hasPrefix("HTTP/1.1 503"), "\(lateReply)")
        #expect(lateReply.contains("not processed"))
        let slowReply = slow.readAll()
        #expect(slowReply.hasPrefix("HTTP/1.1 200") && slowReply.hasSuffix("checked 2 false"), "\(slowReply)")
        done.wait()
        #expect(handler.handled.load(ordering: .sequentiallyConsistent) == 1, "/late was never handled")
        let r = try #require(result.withLock { $0 })
        #expect(!r.drained && r.cutAnswers == 0)
    }

    @Test("shutdown: a handler still running past the deadline and the answer grace finishes, and its answer is sent")
    func shutdownWaitsForARunningHandler() throws {
        let (handler, daemon, slow) = try Self.started(path: "/slow", length: 1, body: "a")
        #expect(waitUntil { handler.handled.load(ordering: .sequentiallyConsistent) == 1 })
        // The handler sleeps 1.5 s: far past both limits.
        let r = daemon.shutdown(gracePeriod: .milliseconds(100), answerGrace: .milliseconds(200))
        #expect(!r.drained && r.cutAnswers == 0 && r.cutRequests == 0)
        let reply = slow.readAll()
        #expect(reply.hasPrefix("HTTP/1.1 200") && reply.hasSuffix("checked 1 false"), "\(reply)")
    }

    @Test("shutdown: a body still arriving at the deadline is cut, never handled")
    func shutdownCutsAnUnfinishedUpload() throws {
        let (handler, daemon, upload) = try Self.started(path: "/x", length: 100, body: "ab")
        #expect(waitUntil { daemon.inFlightRequests() == 1 })
        let r = daemon.shutdown(gracePeriod: .milliseconds(200))
        #expect(!r.drained && r.cutRequests == 1 && r.cutAnswers == 0)
        #expect(!upload.readAll().contains("HTTP/1.1 200"))
        #expect(handler.handled.load(ordering: .sequentiallyConsistent) == 0)
    }
}
