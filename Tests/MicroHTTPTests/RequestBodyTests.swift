// Request bodies kept for the handler (HTTPDaemonOptions.collectsRequestBodies): exact bytes with
// Content-Length and chunked, and a body over the limit handed over as bodyTooLarge — drained
// when small enough, answered unread when huge or when the client waits for 100 Continue.

import Foundation
import Testing
@testable import MicroHTTP

/// Answers `<status> <byte count> <too large>` and the body's bytes back.
struct BodyEcho: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.bodyTooLarge { return .dynamic(status: 413, headers: [], body: Array("too large, kept \(request.body.count)".utf8)) }
        return .dynamic(status: 200, headers: [], body: Array("\(request.method) \(request.body.count)\n".utf8) + request.body)
    }
}

@Suite struct RequestBodyTests {
    static let limit = 1000

    static func daemon() throws -> HTTPDaemon {
        try HTTPDaemon(
            options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 1, requestBodyLimit: limit,
                                       collectsRequestBodies: true),
            handler: BodyEcho())
    }

    static func post(_ daemon: HTTPDaemon, size: Int, extra: [String] = []) throws -> CurlResult {
        let file = NSTemporaryDirectory() + "/linkwell-body-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) })
        try body.write(to: URL(fileURLWithPath: file))
        return try curl(["-s", "-o", "-", "-w", "\n%{http_code}", "-X", "PATCH", "--data-binary", "@\(file)"] + extra
            + ["http://\(daemon.boundAddresses[0])/x"])
    }

    @Test(arguments: [(1, [String]()), (999, []), (1000, []), (1000, ["-H", "Transfer-Encoding: chunked"]), (300, ["-H", "Expect: 100-continue"])])
    func bodiesUpToTheLimitArriveWhole(size: Int, extra: [String]) throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let result = try Self.post(daemon, size: size, extra: extra)
        let expected = "PATCH \(size)\n" + String(decoding: (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }, as: UTF8.self) + "\n200"
        #expect(result.stdout == expected)
    }

    @Test(arguments: [
        (1001, [String]()),  // drained, then answered
        (3999, []),
        (5000, []),  // over 4 × the limit: answered before it is read
        (2000, ["-H", "Expect: 100-continue"]),  // the client waits: answered at once
        (2000, ["-H", "Transfer-Encoding: chunked"]),
    ])
    func largerBodiesReachTheHandlerAsTooLarge(size: Int, extra: [String]) throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let result = try Self.post(daemon, size: size, extra: extra)
        #expect(result.stdout == "too large, kept 0\n413", "\(result)")
    }

    @Test func withoutCollectingTheHandlerSeesNoBody() throws {
        let daemon = try HTTPDaemon(options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 1), handler: BodyEcho())
        defer { daemon.stop() }
        #expect(try Self.post(daemon, size: 10).stdout == "PATCH 0\n\n200")
    }
}
