import LinkRouting
import MicroHTTP
import Testing
@testable import LinkServer

// The association files' own step (`Responder.wellKnown(_:_:)`) against the general path: where
// it answers, the answer is the one `Responder.respond` gives for the same request; where the
// general path could answer differently, it gives way.

@Suite("Association files' fast path")
struct WellKnownFastPathTests {
    let snapshot = Fixture.snapshot([Fixture.shop(), Fixture.blog])
    let aasa = "/.well-known/apple-app-site-association"

    func request(_ target: String, method: String = "GET", host: String? = "shop.example.com",
                 _ headers: [(name: String, value: String)] = [], peer: String = "127.0.0.1") -> HTTPRequest {
        HTTPRequest(method: method, rawTarget: target, headers: (host.map { [(name: "Host", value: $0)] } ?? []) + headers, peerAddress: peer)
    }

    /// The general path's answer to the same request.
    func general(_ request: HTTPRequest) -> ResponderResult {
        Responder.respond(snapshot, RequestFacts(request))
    }

    static func prepared(_ response: HTTPResponse) -> PreparedResponse? {
        if case let .prepared(prepared) = response { return prepared }
        return nil
    }

    @Test("answers the association files as the general path does", arguments: [
        ("/.well-known/apple-app-site-association", "GET", "shop.example.com", 200),
        ("/apple-app-site-association", "GET", "shop.example.com", 200),
        ("/.well-known/assetlinks.json", "GET", "shop.example.com", 200),
        ("/.well-known/assetlinks.json?x=1&y", "GET", "shop.example.com", 200),
        ("/.well-known/apple-app-site-association", "HEAD", "shop.example.com", 200),
        ("/.well-known/apple-app-site-association", "GET", "SHOP.Example.COM:8080", 200),
        ("/.well-known/apple-app-site-association", "GET", "blog.example.org.", 200),
    ])
    func sameAnswer(target: String, method: String, host: String, status: Int) throws {
        let r = request(target, method: method, host: host)
        let fast = try #require(Responder.wellKnown(snapshot, r))
        let slow = general(r)
        #expect(fast.result.response.status == status)
        let answered = try #require(Self.prepared(fast.result.response))
        #expect(answered === Self.prepared(slow.response))
        #expect(fast.result.kind == slow.kind)
        #expect(fast.result.site == slow.site)
        #expect(fast.result.route == slow.route)
        #expect(fast.result.client == slow.client)
        #expect(fast.result.scheme == slow.scheme)
        #expect(fast.result.click == nil && slow.click == nil)
        #expect(fast.path == String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]))
    }

    @Test("a matching If-None-Match gets the prepared 304, any other the 200", arguments: [
        (true, false), (true, true), (false, false),
    ])
    func revalidation(matching: Bool, weak: Bool) throws {
        let etag = try #require(snapshot.sites[0].aasa?.etag)
        let sent = matching ? (weak ? "W/" : "") + etag : "\"0000000000000000\""
        let r = request(aasa, [(name: "If-None-Match", value: "\"x\", " + sent)])
        let fast = try #require(Responder.wellKnown(snapshot, r))
        #expect(fast.result.response.status == (matching ? 304 : 200))
        let answered = try #require(Self.prepared(fast.result.response))
        #expect(answered === Self.prepared(general(r).response))
    }

    @Test("gives way wherever the general path could answer differently", arguments: [
        ("POST", "/.well-known/apple-app-site-association", "shop.example.com", [(String, String)]()),
        ("OPTIONS", "/.well-known/apple-app-site-association", "shop.example.com", []),
        ("GET", "/.well-known/apple-app-site-association", "shop.example.com", [("Forwarded", "for=192.0.2.1;host=blog.example.org")]),
        ("GET", "/.well-known/apple-app-site-association", "shop.example.com", [("X-Forwarded-For", "192.0.2.1")]),
        ("GET", "/.well-known/apple-app-site-association", "shop.example.com", [("X-Forwarded-Proto", "https")]),
        ("GET", "/.well-known/apple-app-site-association", "shop.example.com", [("X-Forwarded-Host", "blog.example.org")]),
        ("GET", "/.well-known/apple-app-site-association", "shop.example.com", [("If-None-Match", "\"a\""), ("If-None-Match", "\"b\"")]),
        ("GET", "/.well-known/apple-app-site-association", "unknown.example.net", []),
        ("GET", "/.well-known/assetlinks.json", "blog.example.org", []),
        ("GET", "/.well-known/apple-app-site-association/", "shop.example.com", []),
        ("GET", "/.WELL-KNOWN/apple-app-site-association", "shop.example.com", []),
        ("GET", "/.well-known/apple-app-site-associatio", "shop.example.com", []),
        ("GET", "/.well-known/%61pple-app-site-association", "shop.example.com", []),
        ("GET", "/.well-known/apple-app-site-association?a=b c", "shop.example.com", []),
        ("GET", "/.well-known/apple-app-site-association?\u{7F}", "shop.example.com", []),
        ("GET", "/does/not/exist", "shop.example.com", []),
    ])
    func givesWay(method: String, target: String, host: String, headers: [(String, String)]) {
        let r = request(target, method: method, host: host, headers.map { (name: $0.0, value: $0.1) })
        #expect(Responder.wellKnown(snapshot, r) == nil)
    }

    @Test("without a Host the one-site default answers, as on the general path")
    func noHost() throws {
        let one = Fixture.snapshot()
        let r = request(aasa, host: nil)
        let fast = try #require(Responder.wellKnown(one, r))
        let answered = try #require(Self.prepared(fast.result.response))
        #expect(answered === Self.prepared(Responder.respond(one, RequestFacts(r)).response))
        #expect(fast.result.site == "shop")
    }

    @Test("a site without the file gives way to the general path's 404 that says why")
    func noFile() {
        let r = request("/.well-known/assetlinks.json", host: "blog.example.org")
        #expect(Responder.wellKnown(snapshot, r) == nil)
        #expect(general(r).response.status == 404)
    }
}

/// The per-thread Host memo answers what the host table answers, and never from an older snapshot.
@Suite("Host memo")
struct HostMemoTests {
    @Test func sameAnswersAsTheTableAcrossHostsAndSnapshots() {
        let both = Fixture.snapshot([Fixture.shop(), Fixture.blog])
        let blogFirst = Fixture.snapshot([Fixture.blog, Fixture.shop()])
        let hosts = ["shop.example.com", "blog.example.org", "SHOP.example.com:8080", "127.0.0.1:9", "unknown.example", ""]
        // Alternating hosts and snapshots, each asked twice in a row (the second from the memo).
        for round in 0..<3 {
            for host in hosts {
                for snapshot in round % 2 == 0 ? [both, blogFirst] : [blogFirst, both] {
                    let expected = snapshot.table.siteIndex(forHost: host)
                    #expect(HostMemo.siteIndex(snapshot, host: host) == expected, "\(host)")
                    #expect(HostMemo.siteIndex(snapshot, host: host) == expected, "\(host), again")
                }
            }
        }
        // The same host maps to different sites in the two snapshots: the memo is per snapshot.
        #expect(both.table.siteIndex(forHost: "blog.example.org") != blogFirst.table.siteIndex(forHost: "blog.example.org"))
        #expect(HostMemo.siteIndex(both, host: "blog.example.org") == both.table.siteIndex(forHost: "blog.example.org"))
        #expect(HostMemo.siteIndex(blogFirst, host: "blog.example.org") == blogFirst.table.siteIndex(forHost: "blog.example.org"))
        #expect(both.serial != blogFirst.serial)
    }
}
