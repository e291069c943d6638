import Foundation
import Synchronization
import Testing
@testable import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

// Live tests of the libmicrohttpd wrapper: a daemon on an OS-chosen loopback port, driven by
// Debian's curl (and a raw socket where curl would hide the bytes).

@Suite("HTTPDaemon")
struct HTTPDaemonTests {

    // MARK: - Prepared responses, HEAD, keep-alive

    @Test("a prepared response is served byte for byte, with its headers and length", arguments: loopbacks)
    func preparedResponse(host: String) throws {
        let server = try TestServer(host: host)
        let result = try curl(["-D", "-", "-o", server.bodyFile, server.url("/prepared")])
        #expect(result.exitCode == 0)
        let head = HTTPHead(result.stdout)
        #expect(head.status == 200)
        #expect(head["content-type"] == "application/json")
        #expect(head["x-prepared"] == "yes")
        #expect(head["content-length"] == String(TestHandler.preparedBody.count))
        #expect(head["date"] != nil)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: server.bodyFile))) == TestHandler.preparedBody)
    }

    @Test("HEAD sends the GET headers and Content-Length, and no body")
    func head() throws {
        let server = try TestServer(host: "127.0.0.1")
        for path in ["/prepared", "/dynamic"] {
            let getLength = HTTPHead(try curl(["-D", "-", "-o", "/dev/null", server.url(path)]).stdout)["content-length"]
            let reply = try rawExchange(
                port: server.port, "HEAD \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.hasSuffix("\r\n\r\n"), "nothing may follow the header block of a HEAD reply")
            #expect(HTTPHead(text)["content-length"] == getLength)
            #expect(getLength != nil && getLength != "0")
        }
    }

    @Test("a span body is sent in order: shared bytes by reference and the request's own, with its headers and length")
    func spanBody() throws {
        let body = TestHandler.spanBody()
        #expect(body.bytes == TestHandler.spanExpected)
        #expect(body.count == TestHandler.spanExpected.count)
        #expect(HTTPResponse.spans(status: 200, headers: [], body: body).body == TestHandler.spanExpected)
        let server = try TestServer(host: "127.0.0.1")
        // Twice on one connection, then HEAD: the body, the length, no body after a HEAD's head.
        let result = try curl(["-D", "-", "-o", server.bodyFile, server.url("/spans"), "-o", server.bodyFile, server.url("/spans")])
        #expect(result.exitCode == 0)
        let head = HTTPHead(result.stdout)
        #expect(head.status == 200)
        #expect(head["x-spans"] == "yes")
        #expect(head["content-length"] == String(TestHandler.spanExpected.count))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: server.bodyFile))) == TestHandler.spanExpected)
        let reply = String(decoding: try rawExchange(port: server.port, "HEAD /spans HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 200"))
        #expect(reply.hasSuffix("\r\n\r\n"))
        #expect(HTTPHead(reply)["content-length"] == String(TestHandler.spanExpected.count))
    }

    @Test("two requests in one curl run reuse the connection, prepared and dynamic", arguments: loopbacks)
    func keepAlive(host: String) throws {
        let server = try TestServer(host: host)
        let result = try curl(["-v", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                               server.url("/prepared"), server.url("/echo"), server.url("/prepared")])
        #expect(result.exitCode == 0)
        #expect(result.stderr.contains("Re-using existing connection"), "\(result.stderr)")
        #expect(!result.stderr.lowercased().contains("< connection: close"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "Connected to").count == 2, "exactly one TCP connection")
    }

    // MARK: - The request as the handler sees it

    @Test("the request-target reaches the handler exactly as sent", arguments: [
        "/a%2Fb/c%20d?x=%26&y",
        "/post/%E2%9C%93?q=a+b&q=%2B",
        "/x/../y/./z?",
        "/plain",
    ])
    func rawTarget(target: String) throws {
        let server = try TestServer(host: "127.0.0.1")
        let echo = try server.echo(target, extra: ["--path-as-is"])
        #expect(echo["rawTarget"] == target)
        #expect(echo["method"] == "GET")
        #expect(echo["version"] == "HTTP/1.1")
    }

    @Test("header lookup is case-insensitive and absent headers are nil")
    func headerLookup() throws {
        let server = try TestServer(host: "127.0.0.1")
        let echo = try server.echo("/echo", extra: ["-H", "x-TeSt-HeAdEr: hello there", "-H", "X-Dup: one", "-H", "X-Dup: two"])
        #expect(echo["X-Test-Header"] == "hello there")
        #expect(echo["x-test-header"] == "hello there")
        #expect(echo["missing"] == "(nil)")
        #expect(echo["dups"] == "one,two")
    }

    @Test("the handler reads the Cookie header exactly as sent, and sees no other Cookie (libmicrohttpd's parse is bypassed)")
    func cookieAsSent() throws {
        let server = try TestServer(host: "127.0.0.1")
        let sent = "a=1; b=\"two\"; c"
        let echo = try server.echo("/echo", extra: ["-H", "Cookie: \(sent)", "-H", "X-After: 1"])
        #expect(echo["cookie"] == sent)
        #expect(echo["cookies"] == sent)
        #expect(echo["headerNames"]?.split(separator: ",").filter { $0.lowercased() == "cookie" }.count == 1, "\(echo)")
        let none = try server.echo("/echo")
        #expect(none["cookie"] == "(nil)")
        #expect(none["cookies"] == "")
        #expect(none["headerNames"]?.lowercased().contains("cookie") == false, "\(none)")
    }

    @Test("the default pool is 28 KiB for 16 KB heads (libmicrohttpd mallocs up to 32 KiB; above, it mmaps per connection)")
    func defaultPool() {
        let options = HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)])
        #expect(options.headLimits.headBytes == 16 * 1024)
        #expect(options.effectiveConnectionMemoryLimit == 28 * 1024)
    }

    @Test("the peer address is the client's IP", arguments: loopbacks)
    func peerAddress(host: String) throws {
        let server = try TestServer(host: host)
        #expect(try server.echo("/echo")["peer"] == host)
    }

    @Test("a request body is drained; the handler decides (405) and the connection stays usable")
    func postBody() throws {
        let server = try TestServer(host: "127.0.0.1")
        let result = try curl([
            "-v", "-o", "/dev/null", "-w", "%{http_code}\n", "--data-binary", String(repeating: "b", count: 50_000), server.url("/prepared"),
            "--next", "-o", "/dev/null", "-w", "%{http_code}\n", server.url("/prepared"),
        ])
        #expect(result.stdout == "405\n200\n", "\(result)")
        #expect(result.stderr.contains("Re-using existing connection"), "\(result.stderr)")
    }

    // MARK: - Oversized requests

    /// Measured with libmicrohttpd 0.9.75 at 8 KiB: a request line plus headers of ~7.7 KB fit,
    /// but MHD copies the Cookie header to parse it and keeps an entry per cookie, so cookies
    /// count more than twice (one 3.8 KB cookie fits; 30 cookies of 95 bytes do not).
    /// 16 KiB takes ~7.9 KB of cookies. A too-big Cookie header is answered by closing the
    /// connection rather than 431 (MHD has no memory left for the reply); other headers get 431.
    @Test("a browser request with 2 KB of cookies fits the default 8 KiB; 16 KiB takes a 7 KB cookie")
    func saneHeaders() throws {
        let browser = [
            "-H", "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            "-H", "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "-H", "Accept-Language: en-GB,en;q=0.9",
            "-H", "Accept-Encoding: gzip, deflate, br",
            "-H", "Referer: https://t.co/abcdefghij",
            "-H", "X-Forwarded-For: 203.0.113.7, 198.51.100.23",
        ]
        let server = try TestServer(host: "127.0.0.1")
        let cookies = ["-H", "Cookie: " + (0..<20).map { "c\($0)=" + String(repeating: "v", count: 95) }.joined(separator: "; ")]
        let echo = try server.echo("/echo", extra: browser + cookies)
        #expect(echo["method"] == "GET")
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")] + browser + cookies).stdout == "200")
        let oneCookie = ["-H", "Cookie: session=" + String(repeating: "v", count: 3_000)]
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")] + browser + oneCookie).stdout == "200")

        let bigCookie = ["-H", "Cookie: big=" + String(repeating: "v", count: 7_000)]
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")] + browser + bigCookie).stdout == "200")
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")]).stdout == "200")
    }

    /// A `Cookie` line of `count` cookies of `size` bytes each.
    static func cookieLine(_ count: Int, _ size: Int) -> String {
        "Cookie: " + (0..<count).map { "c\($0)=" + String(repeating: "v", count: size) }.joined(separator: "; ")
    }

    static let headBudgetCases: [([String], Int)] = [
        ([cookieLine(80, 45)], 200),
        ([cookieLine(150, 45)], 200),
        (["X-A: " + String(repeating: "a", count: 7_500), "X-B: " + String(repeating: "b", count: 7_500)], 200),
        // 16 KB: an 8 KB Cookie line of 150 cookies plus 7.6 KB of another header.
        ([cookieLine(150, 48), "X-A: " + String(repeating: "a", count: 7_600)], 200),
        // 128 header lines in 15 KB: libmicrohttpd keeps a 64-byte record of each in the pool.
        ((0..<128).map { (i: Int) -> String in "X-\(i): " + String(repeating: "h", count: 110) }, 200),
        (["Cookie: big=" + String(repeating: "v", count: 9_000)], 431),
        // A 13 KB Cookie line of 240 cookies: libmicrohttpd's copy of it would overflow the pool.
        ([cookieLine(240, 48)], 431),
        (["X-A: " + String(repeating: "a", count: 6_000), "X-B: " + String(repeating: "b", count: 6_000), "X-C: " + String(repeating: "c", count: 6_000)], 431),
    ]

    /// The head budget (16 KB in all, 8 KB a line, as nginx's per-line limit) over the default
    /// pool: everything within it is answered, everything beyond gets one well-formed 431.
    @Test("request heads within 16 KB are answered; beyond, exactly one well-formed 431", arguments: headBudgetCases)
    func headBudget(headers: [String], expected: Int) throws {
        let server = try TestServer(host: "127.0.0.1")
        let raw = try curl(["-s", "-i", server.url("/prepared")] + headers.flatMap { ["-H", $0] }).stdout
        #expect(raw.components(separatedBy: "HTTP/1.1 ").count == 2, "one status line: \(raw.prefix(300))")
        #expect(raw.hasPrefix("HTTP/1.1 \(expected) "), "\(raw.prefix(200))")
    }

    /// libmicrohttpd writes the response header block into what the request left of the pool; when
    /// it did not fit, MHD closed the connection without a byte (`PoolRoom`).
    @Test("a head that leaves no room in the pool for the reply gets one well-formed 431, and the hook says so")
    func headFillingThePool() throws {
        let recorder = SummaryRecorder()
        let server = try TestServer(host: "127.0.0.1", recorder: recorder)
        // 200 short lines in 15.5 KB (within the limits): their records leave too little for the reply.
        let lines = (0..<200).map { (i: Int) -> String in "X\(i): " + String(repeating: "h", count: 70) + "\r\n" }.joined()
        let many = String(decoding: try rawExchange(port: server.port, "GET /prepared HTTP/1.1\r\nHost: t\r\n" + lines + "\r\n"), as: UTF8.self)
        #expect(many.components(separatedBy: "HTTP/1.1 ").count == 2, "\(many.prefix(300))")
        #expect(many.hasPrefix("HTTP/1.1 431 ") && many.contains("\r\nConnection: close\r\n"), "\(many.prefix(300))")
        #expect(many.hasSuffix("send fewer or shorter header lines.\n"), "\(many.suffix(200))")
        let summary = try #require(recorder.waitFor { $0.status == 431 && $0.rawTarget == "/prepared" })
        #expect(summary.outcome == .completed && summary.rejectedBy == nil)
        // Heads far over the 16 KB limit that end where the pool does (28 KiB); they got no reply.
        let start = "GET /prepared HTTP/1.1\r\nHost: t\r\n"
        for size in stride(from: 27_900, to: 28_120, by: 4) {
            var head = start, left = size - start.utf8.count - 2
            while left > 0 {
                let line = min(left, 7_000)
                head += "X-P: " + String(repeating: "p", count: max(0, line - 7)) + "\r\n"
                left -= line
            }
            let reply = String(decoding: try rawExchange(port: server.port, head + "\r\n"), as: UTF8.self)
            #expect(reply.components(separatedBy: "HTTP/1.1 ").count == 2 && reply.hasPrefix("HTTP/1.1 431 "),
                    "a \(head.utf8.count + 2)-byte head: \(reply.prefix(200))")
        }
    }

    @Test("a 10 KB header gets a 4xx and the daemon keeps serving")
    func oversizedHeader() throws {
        let recorder = SummaryRecorder()
        let server = try TestServer(host: "127.0.0.1", recorder: recorder)
        let big = "X-Big: " + String(repeating: "h", count: 10_000)
        let status = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", big, server.url("/prepared")]).stdout
        #expect(status == "431", "a header line over 8 KB gets 431 Request Header Fields Too Large")
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")]).stdout == "200")
        let rejected = recorder.waitFor { $0.status == 431 }
        #expect(rejected?.rawTarget == "/prepared")
        #expect(rejected?.outcome == .completed)
        #expect(rejected?.rejectedBy == .headCheck)
    }

    @Test("an 8 KB URL gets a 4xx and the daemon keeps serving")
    func oversizedURL() throws {
        let server = try TestServer(host: "127.0.0.1")
        let long = "/echo/" + String(repeating: "u", count: 8 * 1024)
        let status = try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url(long)]).stdout
        #expect(status == "414", "libmicrohttpd 0.9.75 answers 414 URI Too Long")
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url("/prepared")]).stdout == "200")
    }

    // MARK: - Completion hook

    @Test("the completion hook reports method, target, status, bytes, peer, duration and chosen headers")
    func completionHook() throws {
        let recorder = SummaryRecorder()
        let server = try TestServer(host: "127.0.0.1", recorder: recorder)
        _ = try curl(["-o", "/dev/null", "-A", "probe/1.0", server.url("/prepared?from=hook")])
        _ = try curl(["-o", "/dev/null", "-I", server.url("/prepared")])
        let get = try #require(recorder.waitFor { $0.rawTarget == "/prepared?from=hook" })
        #expect(get.method == "GET")
        #expect(get.status == 200)
        #expect(get.bodyBytes == TestHandler.preparedBody.count)
        #expect(get.peerAddress == "127.0.0.1")
        #expect(get.outcome == .completed)
        #expect(get.durationNanos > 0 && get.durationNanos < 5_000_000_000)
        #expect(get.headers.map(\.name) == ["User-Agent"])
        #expect(get.headers.first?.value == "probe/1.0")
        let head = try #require(recorder.waitFor { $0.method == "HEAD" })
        #expect(head.bodyBytes == 0)
        #expect(server.daemon.inFlightRequests() == 0)
    }

    // MARK: - Lifecycle

    @Test("quiesce refuses new connections, finishes the in-flight request, then connections drain to 0")
    func quiesceDrains() throws {
        let recorder = SummaryRecorder()
        let server = try TestServer(host: "127.0.0.1", recorder: recorder)
        let slow = try BackgroundCurl(["-s", "-D", "-", server.url("/slow")])
        #expect(waitUntil { server.daemon.inFlightRequests() == 1 })
        server.daemon.quiesce()
        server.daemon.quiesce()  // idempotent

        let refused = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", server.url("/prepared")])
        #expect(refused.exitCode == 7, "connection refused after quiesce: \(refused)")

        let reply = slow.finish()
        #expect(reply.exitCode == 0)
        #expect(HTTPHead(reply.stdout).status == 200)
        #expect(HTTPHead(reply.stdout)["connection"] == "close")
        #expect(reply.stdout.hasSuffix("slow done"))
        #expect(waitUntil { server.daemon.activeConnections() == 0 })
        #expect(server.daemon.inFlightRequests() == 0)
        #expect(recorder.waitFor { $0.rawTarget == "/slow" }?.outcome == .completed)
        server.daemon.stop()
        server.daemon.stop()  // idempotent
    }

    @Test("shutdown(gracePeriod:) waits for the slow request, not for idle keep-alive connections")
    func gracefulShutdown() throws {
        let server = try TestServer(host: "127.0.0.1")
        let idle = try IdleConnection(port: server.port)
        defer { idle.close() }
        let slow = try BackgroundCurl(["-s", server.url("/slow")])
        // Both: the idle connection's own request may still be finishing when curl connects.
        #expect(waitUntil { server.daemon.inFlightRequests() == 1 && server.daemon.activeConnections() == 2 },
                "\(server.daemon.connectionStatistics())")
        let started = ContinuousClock.now
        #expect(server.daemon.shutdown(gracePeriod: .seconds(5)).drained)
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(slow.finish().stdout == "slow done")
    }

    @Test("binding a busy port names the address and the cause")
    func busyPort() throws {
        let first = try TestServer(host: "127.0.0.1")
        let taken = ListenAddress(host: "127.0.0.1", port: first.port)
        let logged = Mutex<[String]>([])
        let options = HTTPDaemonOptions(listen: [taken], threads: 1, logger: { line in logged.withLock { $0.append(line) } })
        #expect {
            _ = try HTTPDaemon(options: options, handler: TestHandler())
        } throws: { error in
            let message = String(describing: error)
            return message.hasPrefix("cannot listen on 127.0.0.1:\(first.port): address already in use")
                && message.contains("--listen")
        }
        // libmicrohttpd's own diagnostics reach the logger hook, one line each, not stderr.
        let lines = logged.withLock { $0 }
        #expect(lines.contains { $0.contains("bind") }, "\(lines)")
        #expect(lines.allSatisfy { !$0.hasSuffix("\n") })
        // The first daemon is unharmed.
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", first.url("/prepared")]).stdout == "200")
    }

    @Test("when the second address fails, the first one is released again")
    func partialStartRollsBack() throws {
        let blocker = try TestServer(host: "::1")
        // The free port is found by binding port 0 and closing it, so another process's client
        // socket can take it in between (on a machine running fuzzers or load tests, thousands of
        // loopback connections a second use such ports). An unreleased port fails every attempt;
        // a port taken by someone else only that one.
        var failures: [String] = []
        for _ in 0..<3 {
            let probe = try HTTPDaemon(options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], threads: 1),
                                       handler: TestHandler())
            let freePort = probe.boundAddresses[0].port
            probe.stop()
            let addresses = [ListenAddress(host: "127.0.0.1", port: freePort), ListenAddress(host: "::1", port: blocker.port)]
            #expect(throws: HTTPDaemonError.self) {
                _ = try HTTPDaemon(options: HTTPDaemonOptions(listen: addresses, threads: 1), handler: TestHandler())
            }
            // 127.0.0.1:freePort was started and must have been stopped again.
            do {
                let again = try HTTPDaemon(options: HTTPDaemonOptions(listen: [addresses[0]], threads: 1), handler: TestHandler())
                #expect(again.boundAddresses == [addresses[0]])
                return
            } catch {
                failures.append("\(error)")
            }
        }
        Issue.record("the first address was not released after the second failed, 3 times: \(failures)")
    }

    @Test("an address that is not on this machine, and one that is not numeric")
    func badAddresses() throws {
        #expect {
            _ = try HTTPDaemon(options: HTTPDaemonOptions(listen: [ListenAddress(host: "192.0.2.1", port: 0)], threads: 1),
                               handler: TestHandler())
        } throws: { String(describing: $0).hasPrefix("cannot listen on 192.0.2.1:0: address not available") }
        #expect(throws: HTTPDaemonError.invalidAddress(
            "localhost:80", reason: "'localhost' is not a numeric IPv4 address (names are not resolved; use 127.0.0.1, 0.0.0.0, ::1 or ::)")) {
            _ = try ListenAddress(parsing: "localhost:80")
        }
    }

    @Test("restarting on the same port right after serving works (SO_REUSEADDR, no TIME_WAIT wait)")
    func restartSamePort() throws {
        var port: UInt16 = 0
        do {
            let first = try TestServer(host: "127.0.0.1")
            port = first.port
            // The server closes first here, leaving its side of the connection in TIME_WAIT.
            _ = try curl(["-o", "/dev/null", "-H", "Connection: close", first.url("/prepared")])
        }
        let second = try HTTPDaemon(
            options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: port)], threads: 1), handler: TestHandler())
        #expect(second.boundAddresses.first?.port == port)
    }

    @Test("both address families on one daemon report their real ports")
    func twoAddresses() throws {
        let daemon = try HTTPDaemon(
            options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0), ListenAddress(host: "::1", port: 0)], threads: 2),
            handler: TestHandler())
        #expect(daemon.boundAddresses.map(\.host) == ["127.0.0.1", "::1"])
        #expect(daemon.boundAddresses.allSatisfy { $0.port != 0 })
        for address in daemon.boundAddresses {
            #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://\(address)/prepared"]).stdout == "200")
        }
    }

    // MARK: - No socket needed

    @Test("listen addresses parse and print", arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080),
        ("[::1]:8080", "::1", 8080),
        ("0.0.0.0:0", "0.0.0.0", 0),
        ("[::]:443", "::", 443),
    ] as [(String, String, UInt16)])
    func parseListenAddress(text: String, host: String, port: UInt16) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == text)
    }

    @Test("malformed listen addresses are rejected with the fix", arguments: [
        "8080", "::1:8080", "[::1]8080", "127.0.0.1:http", "127.0.0.1:70000", "[::1:80", "300.1.1.1:80",
    ])
    func rejectListenAddress(text: String) {
        #expect(throws: HTTPDaemonError.self) { _ = try ListenAddress(parsing: text) }
    }

    @Test("options are checked before any port opens")
    func invalidOptions() {
        #expect(throws: HTTPDaemonError.invalidOption("no listen address; give at least one, e.g. 127.0.0.1:8080")) {
            _ = try HTTPDaemon(options: HTTPDaemonOptions(listen: []), handler: TestHandler())
        }
        #expect(throws: HTTPDaemonError.self) {
            _ = try HTTPDaemon(
                options: HTTPDaemonOptions(listen: [ListenAddress(host: "127.0.0.1", port: 0)], connectionMemoryLimit: 100),
                handler: TestHandler())
        }
    }

    @Test("a request built without a socket answers header lookups case-insensitively")
    func detachedRequest() {
        let request = HTTPRequest(rawTarget: "/p%20q?x=1", headers: [(name: "Accept", value: "text/html"), (name: "X-A", value: "1"), (name: "x-a", value: "2")])
        #expect(request.header("accept") == "text/html")
        #expect(request.header("ACCEPT") == "text/html")
        #expect(request.header("missing") == nil)
        #expect(request.headerValues("X-A") == ["1", "2"])
        #expect(request.rawPath == "/p%20q")
        #expect(request.rawQuery == "x=1")
        #expect(HTTPRequest(rawTarget: "/").rawQuery == nil)
    }

    @Test("a prepared response keeps its bytes and refuses the headers libmicrohttpd computes itself")
    func preparedResponseObject() {
        let prepared = PreparedResponse(status: 201, headers: [("Content-Type", "text/plain"), ("Content-Length", "99")], body: Array("hi".utf8))
        #expect(prepared.body == Array("hi".utf8))
        #expect(prepared.bodyCount == 2)
        #expect(prepared.rejectedHeaders == ["Content-Length"])
        #expect(prepared.headers.map(\.0) == ["Content-Type"])
        #expect(HTTPResponse.prepared(prepared).header("content-type") == "text/plain")
        let empty = PreparedResponse(status: 204, headers: [], body: [])
        #expect(empty.body.isEmpty)
    }

    @Test("a response's header is found by name ignoring ASCII case, and only by the whole name")
    func responseHeaderByName() {
        let response = HTTPResponse.dynamic(status: 200, headers: [("X-Linkwell-Miss", "1"), ("Content-Type", "text/html"), ("Vary", "a")], body: [])
        #expect(response.header("content-type") == "text/html")
        #expect(response.header("CONTENT-TYPE") == "text/html")
        #expect(response.header("x-linkwell-miss") == "1")
        #expect(response.header("content-typ") == nil)
        #expect(response.header("content-types") == nil)
        #expect(response.header("Content_Type") == nil)
        #expect(response.header("vary") == "a")
        #expect(response.header("varz") == nil)
    }
}

// MARK: - Test fixtures

private let loopbacks = ["127.0.0.1", "::1"]

/// Answers /prepared (shared PreparedResponse; 405 for POST), /echo… (what the handler saw),
/// /dynamic (fixed bytes, built per request), /slow (1 s), and 404 otherwise.
struct TestHandler: HTTPHandler {
    static let preparedBody: [UInt8] = Array(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.app"],"components":[{"/":"/post/*"}]}]}}"#.utf8) + [0, 255, 10]
    let prepared = PreparedResponse(
        status: 200, headers: [("Content-Type", "application/json"), ("X-Prepared", "yes")], body: TestHandler.preparedBody)
    let notAllowed = PreparedResponse(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8))

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.rawPath
        if path.hasPrefix("/prepared") {
            return request.method == "GET" || request.method == "HEAD" ? .prepared(prepared) : .prepared(notAllowed)
        }
        if path.hasPrefix("/echo") {
            let lines = [
                "method=\(request.method)",
                "rawTarget=\(request.rawTarget.dropFirst("/echo".count))",
                "version=\(request.httpVersion)",
                "peer=\(request.peerAddress)",
                "X-Test-Header=\(request.header("X-Test-Header") ?? "(nil)")",
                "x-test-header=\(request.header("x-test-header") ?? "(nil)")",
                "missing=\(request.header("X-Not-Sent") ?? "(nil)")",
                "dups=\(request.headerValues("x-dup").joined(separator: ","))",
                "cookie=\(request.header("Cookie") ?? "(nil)")",
                "cookies=\(request.headerValues("cookie").joined(separator: "|"))",
                "headerNames=\(request.headers.map(\.name).joined(separator: ","))",
            ]
            return .dynamic(status: 200, headers: [("Content-Type", "text/plain")], body: Array(lines.joined(separator: "\n").utf8))
        }
        if path == "/dynamic" {
            return .dynamic(status: 200, headers: [("Content-Type", "text/plain")], body: Array("built for this request\n".utf8))
        }
        if path == "/spans" {
            return .spans(status: 200, headers: [("Content-Type", "text/plain"), ("X-Spans", "yes")], body: TestHandler.spanBody())
        }
        if path == "/slow" {
            usleep(1_000_000)
            return .dynamic(status: 200, headers: [], body: Array("slow done".utf8))
        }
        return .dynamic(status: 404, headers: [], body: Array("not found\n".utf8))
    }
}

extension TestHandler {
    /// Shared bytes and per-request bytes, interleaved: "<p>" "ab" "</p><i>" "" "</i>" "ZZ" and an
    /// empty span, 8 KiB of constant bytes at the end (a body sent over several writes).
    static let spanConstant: [UInt8] = Array("<p></p><i></i>".utf8) + Array(repeating: UInt8(ascii: "c"), count: 8192)
    static let spanExpected: [UInt8] = Array("<p>ab</p><i></i>ZZ".utf8) + Array(repeating: UInt8(ascii: "c"), count: 8192)

    static func spanBody() -> SpanBody {
        let n = Int32(14)
        let k = n + Int32(8192)
        return SpanBody(constant: spanConstant, written: Array("abZZ".utf8),
                        spans: [0, 3, k, k + 2, 3, 10, 10, 10, 10, 14, k + 2, k + 4, k + 4, k + 4, 14, k])
    }
}

/// A daemon on an OS-chosen port, stopped when the value goes away.
final class TestServer {
    let daemon: HTTPDaemon
    let host: String
    let port: UInt16
    let bodyFile: String

    init(host: String, recorder: SummaryRecorder? = nil, connectionMemoryLimit: Int? = nil) throws {
        let options = HTTPDaemonOptions(
            listen: [ListenAddress(host: host, port: 0)], threads: 2, connectionTimeoutSeconds: 10,
            connectionMemoryLimit: connectionMemoryLimit, summaryHeaders: ["User-Agent"])
        var hook: (@Sendable (HTTPRequestSummary) -> Void)?
        if let recorder { hook = { recorder.record($0) } }
        daemon = try HTTPDaemon(options: options, handler: TestHandler(), onRequestCompleted: hook)
        self.host = host
        port = daemon.boundAddresses[0].port
        bodyFile = NSTemporaryDirectory() + "/linkwell-httpd-test-\(UUID().uuidString)"
    }

    deinit {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: bodyFile)
    }

    func url(_ target: String) -> String {
        "http://\(ListenAddress(host: host, port: port))\(target)"
    }

    /// GET /echo + target; the handler's `key=value` lines.
    func echo(_ target: String, extra: [String] = []) throws -> [String: String] {
        let path = target.hasPrefix("/echo") ? target : "/echo" + target
        let result = try curl(extra + [url(path)])
        #expect(result.exitCode == 0, "\(result.stderr)")
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }
}

final class SummaryRecorder: Sendable {
    private let summaries = Mutex<[HTTPRequestSummary]>([])

    func record(_ summary: HTTPRequestSummary) {
        summaries.withLock { $0.append(summary) }
    }

    /// The first summary matching `predicate`, waiting up to 3 s (the hook runs after the reply).
    func waitFor(_ predicate: (HTTPRequestSummary) -> Bool) -> HTTPRequestSummary? {
        var found: HTTPRequestSummary?
        _ = waitUntil {
            found = summaries.withLock { $0.first(where: predicate) }
            return found != nil
        }
        return found
    }
}

struct CurlResult: CustomStringConvertible {
    var exitCode: Int32
    var stdout: String
    var stderr: String
    var description: String { "curl exit \(exitCode)\n\(stdout)\n\(stderr)" }
}

/// Runs /usr/bin/curl with a 10 s cap (loopback only).
func curl(_ arguments: [String]) throws -> CurlResult {
    try BackgroundCurl(arguments).finish()
}

final class BackgroundCurl {
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "--noproxy", "*"] + arguments
        process.standardOutput = out
        process.standardError = err
        try process.run()
    }

    func finish() -> CurlResult {
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CurlResult(
            exitCode: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Status and headers of the last header block in curl's `-D -` / `-I` output.
struct HTTPHead {
    var status = 0
    var fields: [String: String] = [:]

    init(_ text: String) {
        for line in text.components(separatedBy: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
                fields = [:]
            } else if let colon = line.firstIndex(of: ":") {
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    subscript(name: String) -> String? { fields[name.lowercased()] }
}

/// Sends `request` to 127.0.0.1:`port` on a plain socket and returns everything until EOF.
func rawExchange(port: UInt16, _ request: String) throws -> [UInt8] {
    let client = try OpenSocket(port: port, timeoutSeconds: 5)
    client.send(request)
    return client.readAllBytes()
}

/// A keep-alive connection that has been served once and then sits idle.
final class IdleConnection {
    private let socket: OpenSocket

    init(port: UInt16) throws {
        socket = try OpenSocket(port: port)
        socket.send("GET /prepared HTTP/1.1\r\nHost: t\r\n\r\n")
        var chunk = [UInt8](repeating: 0, count: 4096)
        #expect(recv(socket.fd, &chunk, chunk.count, 0) > 0)
    }

    func close() {
        Glibc.shutdown(socket.fd, Int32(SHUT_RDWR))
    }
}

/// Polls `condition` every 10 ms for up to `seconds`.
func waitUntil(seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
