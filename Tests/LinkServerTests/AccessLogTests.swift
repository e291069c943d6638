import Foundation
import Testing
@testable import LinkServer

/// The buffered access log prints what `EventLog.event("request", …)` printed, byte for byte.
@Suite struct AccessLogTests {
    static let hostile = [
        "/", "", "/a b", "/quote\"d", "/back\\slash", "/new\nline", "/cr\rtab\t", "/bell\u{07}\u{08}\u{0C}\u{1B}[31m",
        "/del\u{7F}", "/csi\u{9B}2J", "/c1\u{80}\u{9F}\u{A0}", "/ls\u{2028}ps\u{2029}", "/é/日本/🦊", "/a=b", "/%00%0a",
        "/x?utm=1&b=\"2\"", String(repeating: "/long", count: 200),
    ]

    static let durations = [0, 1, 499, 500, 501, 999, 1_000, 1_500, 2_500, 12_345, 999_500, 1_000_500, 123_456_789, 3_000_000_500, 86_400_000_000_000]

    static var lines: [RequestLogLine] {
        var out: [RequestLogLine] = []
        for (i, path) in hostile.enumerated() {
            out.append(RequestLogLine(site: i % 3 == 0 ? nil : "site \(path)", method: i % 2 == 0 ? "GET" : "M\u{9B}\"", path: path,
                                      status: i % 4 == 0 ? 0 : 200 + i, intendedStatus: i % 4 == 0 ? 503 : nil, outcome: i % 4 == 0 ? "client_abort" : nil,
                                      bytes: i * 1000, durationNanos: durations[i % durations.count], client: i % 5 == 0 ? "::1" : path,
                                      scheme: i % 3 == 0 ? nil : "https", route: i % 2 == 0 ? nil : path, kind: "landing",
                                      rejectedBy: i % 6 == 0 ? "linkwell" : nil))
        }
        for d in durations {
            out.append(RequestLogLine(site: "s", method: "GET", path: "/", status: 200, intendedStatus: nil, outcome: nil, bytes: 1,
                                      durationNanos: d, client: "127.0.0.1", scheme: "http", route: nil, kind: "aasa", rejectedBy: nil))
        }
        return out
    }

    @Test(arguments: [EventLog.Format.json, .text], [(0, 0), (1_764_590_400, 789), (951_825_599, 999), (4_102_444_799, 1)])
    func sameBytesAsTheEventLog(format: EventLog.Format, time: (Int, Int)) {
        let (seconds, millis) = time
        let stamp = EventLog.timestamp(Date(timeIntervalSince1970: Double(seconds) + (Double(millis) + 0.5) / 1000))
        for line in Self.lines {
            let expected = EventLog.line(format: format, time: stamp, "request", line.fields)
            let got = AccessLog.formatted(line, format: format, seconds: seconds, nanos: millis * 1_000_000 + 500_000)
            #expect(String(decoding: got, as: UTF8.self) == expected)
            #expect(got == Array(expected.utf8))
        }
    }

    /// Lines written from many threads reach the file whole and all of them, after `flush()`.
    @Test func concurrentLinesAreWholeAndComplete() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log").path
        defer { unlink(path) }
        let log = try AccessLog(format: .json, destination: .file(path))
        let threads = 8, perThread = 3_000
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                log.record(RequestLogLine(site: "t\(t)", method: "GET", path: "/\(t)/\(i)/" + String(repeating: "x", count: i % 300), status: 200,
                                          intendedStatus: nil, outcome: nil, bytes: i, durationNanos: i * 1000, client: "127.0.0.1",
                                          scheme: "http", route: nil, kind: "aasa", rejectedBy: nil))
            }
        }
        log.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(text.hasSuffix("\n"))
        #expect(lines.count + log.dropped == threads * perThread)
        var seen = Set<String>()
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let path = try #require(object?["path"] as? String)
            seen.insert(path)
        }
        #expect(seen.count == lines.count)
    }
}
