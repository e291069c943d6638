import Foundation
import Synchronization
import Testing
@testable import MicroHTTP

/// A finished request's context is reused by the next request on its thread, with its target's
/// and known headers' `String`s and the handler's note object: nothing of one request may show
/// in the next.
@Suite("Request context reuse")
struct RequestReuseTests {
    /// The handler's note: the `note` query parameter of the request that filled it.
    final class Note: @unchecked Sendable {
        var value = ""
    }

    /// `/known…`: the target and User-Agent the handler saw; fills a note when `?note=` is given.
    struct KnownHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if let query = request.rawQuery, query.hasPrefix("note=") {
                request.note(Note.init)?.value = String(query.dropFirst(5))
            }
            let text = "target=\(request.rawTarget) ua=\(request.header(.userAgent) ?? "(nil)")\n"
            return .dynamic(status: 200, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
        }
    }

    /// What the completion hook saw of each request: its target, its note's value and object.
    final class Seen: Sendable {
        let rows = Mutex<[(target: String, note: String?, object: ObjectIdentifier?)]>([])
    }

    @Test("pipelined requests on one connection see their own target, headers and note")
    func nothingLeaksIntoTheNextRequest() throws {
        let seen = Seen()
        let options = HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 2, connectionTimeoutSeconds: 10)
        let daemon = try HTTPDaemon(options: options, handler: KnownHandler(), onRequestCompleted: { summary in
            // The note is read here and not kept, as the server's hook does.
            let note = summary.note.map { unsafeDowncast($0, to: Note.self) }
            seen.rows.withLock { $0.append((summary.rawTarget, note?.value, note.map { ObjectIdentifier($0) })) }
        })
        defer { daemon.stop() }
        let long = "/known/" + String(repeating: "a", count: 40)
        let agent = "agent-one/1.0 (a value longer than a small string)"
        let requests = [
            "GET \(long)?note=first HTTP/1.1\r\nHost: t\r\nUser-Agent: \(agent)\r\n\r\n",
            "GET \(long)?note=second HTTP/1.1\r\nHost: t\r\nUser-Agent: \(agent)\r\n\r\n",
            "GET \(long) HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /known/b?note=third HTTP/1.1\r\nHost: t\r\nUser-Agent: agent-two/2.0 (another long enough value)\r\nConnection: close\r\n\r\n",
        ]
        let reply = String(decoding: try rawExchange(port: daemon.boundAddresses[0].port, requests.joined()), as: UTF8.self)
        // Split on the byte: "\r\n" is one Character, which a split on "\n" would not cut.
        let bodies = reply.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix("target=") }
        #expect(bodies == [
            "target=\(long)?note=first ua=\(agent)",
            "target=\(long)?note=second ua=\(agent)",
            "target=\(long) ua=(nil)",
            "target=/known/b?note=third ua=agent-two/2.0 (another long enough value)",
        ])
        #expect(waitUntil { seen.rows.withLock { $0.count } == 4 })
        let rows = seen.rows.withLock { $0 }
        #expect(rows.map(\.target) == ["\(long)?note=first", "\(long)?note=second", long, "/known/b?note=third"])
        #expect(rows.map(\.note) == ["first", "second", nil, "third"], "a request that filled no note reports none")
        #expect(rows[0].object != nil && rows[0].object == rows[1].object && rows[1].object == rows[3].object,
                "the note object is reused once the hook let it go")
    }
}
