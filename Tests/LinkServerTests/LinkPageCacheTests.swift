import Association
import Foundation
import LandingPages
import LinkRouting
import MicroHTTP
import Testing

@testable import LinkServer
@testable import LinkStore

// Short links with overrides, answered once per link and variant (LinkPageCache.swift), against
// the per-request override path they replace: every kind of override × User-Agents × languages,
// through the Responder both ways, byte for byte (status, headers, body, click); an edited link
// serves its new bytes at once; the cache keeps within its bounds.

/// The landing renderer without its link answers: the Responder renders every short link with
/// overrides per request (what it did before LinkPageCache).
struct PerRequestLinkRenderer: PageRenderer {
    let base: LandingPageRenderer

    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse { base.page(for: match, site: site, request: request) }
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse { base.notFound(site: site, request: request) }
    func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse? { base.asset(path: path, site: site, request: request) }
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse {
        base.page(for: match, site: site, request: request, overrides: overrides)
    }
    func answer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> PageAnswer? { base.answer(for: match, site: site, request: request) }
    var answersCarrySecurityHeaders: Bool { base.answersCarrySecurityHeaders }
}

@Suite("Short links with overrides: answered once per variant, byte-identical to rendering")
struct LinkPageCacheTests {
    static let awkward = "<b>\"Sale\" & 'more'</b> caf\u{E9} \u{1F600} {title} %41%2F\t\\`"

    /// One link per kind of override (and all of them together), to `target` on `site`; the
    /// fallbacks lead to the target's host (a host the site allows browsers to be sent to).
    static func links(site: String, target: String) -> [ShortLink] {
        let web = "https://" + (URLParts(target)?.host ?? "")
        func link(_ code: String, _ edit: (inout ShortLink) -> Void) -> ShortLink {
            var l = ShortLink(code: code, site: site, target: target, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            edit(&l)
            return l
        }
        let campaign = FDLParameters(utmSource: "news<letter>", utmMedium: "e&mail", utmCampaign: "spring \u{E9}", utmTerm: "t\"1", utmContent: "c'2")
        return [
            link("title") { $0.previewTitle = awkward },
            link("desc") { $0.previewDescription = awkward },
            link("image") { $0.previewImage = "https://cdn.example.com/i.png?a=1&b=<2>" },
            link("preview") { $0.previewTitle = "Half price"; $0.previewDescription = "Only now"; $0.previewImage = "https://cdn.example.com/p.png" },
            link("ifl") { $0.iosFallback = web + "/ios?x=1&y=\"2\"" },
            link("ipfl") { $0.fdl = FDLParameters(ipadFallback: web + "/ipad") },
            link("afl") { $0.androidFallback = web + "/android?q=a&r=<b>" },
            link("ofl") { $0.desktopFallback = web + "/desk" },
            link("utm") { $0.fdl = campaign },
            link("store") { $0.fdl = FDLParameters(at: "1l3v", ct: "camp&1", mt: "8", pt: "12<3>") },
            link("efr") { $0.forcedRedirect = true },
            link("efrafl") { $0.forcedRedirect = true; $0.androidFallback = web + "/a"; $0.fdl = FDLParameters(ipadFallback: web + "/ip") },
            link("all") {
                $0.previewTitle = awkward; $0.previewDescription = "d & <e>"; $0.previewImage = "https://cdn.example.com/all.png"
                $0.iosFallback = web + "/i"; $0.androidFallback = web + "/a"; $0.desktopFallback = web + "/d"
                $0.fdl = FDLParameters(ipadFallback: web + "/p", utmSource: "s", utmMedium: "m", utmCampaign: "c", utmTerm: "t", utmContent: "x",
                                       at: "a", ct: "c", mt: "8", pt: "p")
            },
        ]
    }

    /// The shipped config (one link set per site, to its first route's sample URL), and a site
    /// whose iPhones get the store redirect (so fallbacks replace a redirect).
    static func cases() throws -> [(name: String, snapshot: Snapshot, links: [ShortLink], hosts: [String])] {
        var out: [(name: String, snapshot: Snapshot, links: [ShortLink], hosts: [String])] = []
        let cell = LinkIndexCell()
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: CompiledPageTests.path("linkwell"), liveLinks: cell)
        let shipped = try #require(loaded, "\(report.errors)")
        var links: [ShortLink] = []
        var hosts: [String] = []
        for site in shipped.table.sites {
            guard let entry = site.routes.first(where: { $0.route != nil }),
                  let url = try? shipped.table.build(site: site.name, route: entry.route!.name, parameters: entry.sampleParameters()) else { continue }
            links += Self.links(site: site.name, target: url)
            hosts.append(site.canonicalHost)
        }
        cell.set(LinkIndexCell.State(index: LinkIndex(links: links, table: nil)))
        out.append(("linkwell", shipped, links, hosts))

        let shop = ShortLinkOverridesTests.site()
        let shopLinks = Self.links(site: "shop", target: "https://shop.example.com/item/42") + Self.links(site: "shop", target: "https://shop.example.com/go/x").map {
            var l = $0
            l.code += "-go"
            return l
        }
        out.append(("shop", try Snapshot(table: Fixture.table([shop]), publicDirectory: Fixture.publicDir, links: shopLinks), shopLinks, ["shop.example.com"]))
        return out
    }

    static let userAgents = CompiledPageTests.userAgents + [
        "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1 Instagram 312.0",
        // A crawler in an in-app browser's clothes: the page is the crawler's, the click says both.
        "Mozilla/5.0 (Linux; Android 14) Instagram 312.0 facebookexternalhit/1.1",
        "",
    ]

    /// What differs between two answers (nil: nothing), short enough to read in a failure.
    static func difference(_ a: ResponderResult, _ b: ResponderResult) -> String? {
        if a.response.status != b.response.status { return "status \(a.response.status) vs \(b.response.status)" }
        let (x, y) = (a.response.headers.map { "\($0.0): \($0.1)" }, b.response.headers.map { "\($0.0): \($0.1)" })
        if x != y { return "headers \(x) vs \(y)" }
        if a.response.body != b.response.body {
            let at = zip(a.response.body, b.response.body).prefix { $0 == $1 }.count
            func around(_ body: [UInt8]) -> String { String(decoding: body[max(0, at - 40)..<min(body.count, at + 60)], as: UTF8.self) }
            return "bodies differ at byte \(at): …\(around(a.response.body))… vs …\(around(b.response.body))…"
        }
        if a.kind != b.kind || a.route != b.route || a.site != b.site { return "kind/route/site \(a.kind) \(a.route ?? "-") vs \(b.kind) \(b.route ?? "-")" }
        if a.click != b.click { return "click \(String(describing: a.click)) vs \(String(describing: b.click))" }
        return nil
    }

    @Test("every kind of override × User-Agent × language: the cached answer == the per-request one")
    func answersMatch() throws {
        for c in try Self.cases() {
            let renderer = try #require(c.snapshot.renderer as? LandingPageRenderer)
            let perRequest = try Snapshot(table: c.snapshot.table, publicDirectory: c.snapshot.publicDirectory,
                                          renderer: { _ in PerRequestLinkRenderer(base: renderer) }, links: c.links)
            var pages = 0
            var redirects = 0
            for link in c.links {
                let host = try #require(c.snapshot.table.site(named: link.site)).canonicalHost
                for ua in Self.userAgents {
                    for lang in CompiledPageTests.languages {
                        let facts = RequestFacts(rawTarget: "/" + link.code, host: host, userAgent: ua, acceptLanguage: lang)
                        let slow = Responder.respond(perRequest, facts)
                        #expect(slow.route != nil, "\(c.name) /\(link.code) must reach its route")
                        // Made on the first request of the variant, cached on the second.
                        for _ in 0..<2 {
                            let fast = Responder.respond(c.snapshot, facts)
                            let difference = Self.difference(fast, slow)
                            #expect(difference == nil, "\(c.name) /\(link.code) UA \(ua ?? "-") lang \(lang ?? "-")")
                            if fast.response.status == 200 {
                                guard case .prepared = fast.response else { Issue.record("\(c.name) /\(link.code): not from the cache"); continue }
                                pages += 1
                            } else {
                                redirects += 1
                            }
                        }
                    }
                }
            }
            #expect(pages > 0 && redirects > 0, "\(c.name): \(pages) pages, \(redirects) redirects")
            // Every link with overrides went through the cache (nothing was left to the slow path).
            #expect(renderer.compiled.links.count > 0)
        }
    }

    @Test("forced redirects: browsers are redirected, crawlers get the preview page")
    func forcedRedirects() throws {
        let c = try #require(try Self.cases().first { $0.name == "shop" })
        let crawler = Responder.respond(c.snapshot, RequestFacts(rawTarget: "/efr", host: "shop.example.com", userAgent: ShortLinkOverridesTests.slack))
        #expect(crawler.response.status == 200 && crawler.kind == .page)
        for ua in [ShortLinkOverridesTests.iPhone, ShortLinkOverridesTests.android, ShortLinkOverridesTests.desktop] {
            let r = Responder.respond(c.snapshot, RequestFacts(rawTarget: "/efr", host: "shop.example.com", userAgent: ua))
            #expect(r.response.status == 302 && r.response.header("Location") == "https://shop.example.com/item/42")
            #expect(r.click?.outcome == .redirect && r.click?.code == "efr")
        }
    }

    static func shopSnapshot(_ cell: LinkIndexCell) throws -> Snapshot {
        let table = Fixture.table([ShortLinkOverridesTests.site()])
        let loaded = LoadedConfig(validated: ValidatedConfig(file: "", table: table), server: ServerConfiguration(table.config.server))
        return try Snapshot(loaded: loaded, publicDirectory: Fixture.publicDir, liveLinks: cell)
    }

    static func title(_ r: ResponderResult) -> String? {
        let html = String(decoding: r.response.body, as: UTF8.self)
        guard let start = html.range(of: "<title>"), let end = html.range(of: "</title>", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    @Test("an edited, disabled or deleted link serves its new answer on the next request")
    func editsServeAtOnce() throws {
        let cell = LinkIndexCell()
        let snapshot = try Self.shopSnapshot(cell)
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        var link = ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42", previewTitle: "Old title")
        func get(_ ua: String = ShortLinkOverridesTests.slack) -> ResponderResult {
            Responder.respond(snapshot, RequestFacts(rawTarget: "/sale", host: "shop.example.com", userAgent: ua))
        }
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [link], table: nil)))
        #expect(Self.title(get()) == "Old title")
        #expect(Self.title(get()) == "Old title")
        #expect(renderer.compiled.links.count == 1)

        link.previewTitle = "New <title>"
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [link], table: nil)))
        #expect(Self.title(get()) == "New &lt;title&gt;")
        // The new index released the old entries.
        #expect(renderer.compiled.links.count == 1)

        // A forced redirect now: browsers go to the target, the crawler's preview stays.
        link.forcedRedirect = true
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [link], table: nil)))
        #expect(get(ShortLinkOverridesTests.iPhone).response.header("Location") == "https://shop.example.com/item/42")
        #expect(Self.title(get()) == "New &lt;title&gt;")

        link.disabled = true
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [link], table: nil)))
        #expect(get().response.status == 404)
        link.disabled = false
        link.expiresAt = Date(timeIntervalSince1970: 1_000_000)
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [link], table: nil)))
        #expect(get().response.status == 404)
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [], table: nil)))
        #expect(get().response.status == 404)
    }

    @Test("threads answering while the index is swapped: every answer is the old link's or the new one's, then the new one's")
    func concurrentSwap() throws {
        let cell = LinkIndexCell()
        let snapshot = try Self.shopSnapshot(cell)
        let old = ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42", previewTitle: "Old title")
        var edited = old
        edited.previewTitle = "New title"
        let new = edited
        cell.set(LinkIndexCell.State(index: LinkIndex(links: [old], table: nil)))
        let agents = [ShortLinkOverridesTests.slack, ShortLinkOverridesTests.android, ShortLinkOverridesTests.desktop, ShortLinkOverridesTests.iPad]
        let titles = Locked<[String?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for round in 0..<40 {
                if i == 0, round == 20 { cell.set(LinkIndexCell.State(index: LinkIndex(links: [new], table: nil))) }
                let r = Responder.respond(snapshot, RequestFacts(rawTarget: "/sale", host: "shop.example.com", userAgent: agents[(i + round) % agents.count]))
                if r.response.status == 200 { titles.withLock { $0.append(Self.title(r)) } }
            }
        }
        #expect(titles.withLock { $0.allSatisfy { $0 == "Old title" || $0 == "New title" } })
        #expect(titles.withLock { $0.count } > 0)
        for ua in agents {
            let r = Responder.respond(snapshot, RequestFacts(rawTarget: "/sale", host: "shop.example.com", userAgent: ua))
            if r.response.status == 200 { #expect(Self.title(r) == "New title", "\(ua)") }
        }
    }

    @Test("an entry made from other contents of the same code is made again (same index)")
    func otherContentsAreMadeAgain() throws {
        let cache = LinkPageCache()
        let key = LinkPageCache.Key(site: 0, code: "sale", platform: .desktop, crawler: false, inAppBrowser: nil, locale: "en", iPad: false)
        let old = IndexedShortLink(link: ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/1", previewTitle: "A"), match: nil)
        var edited = old.link
        edited.previewTitle = "B"
        let new = IndexedShortLink(link: edited, match: nil)
        var made = 0
        func answer(_ link: IndexedShortLink, generation: UInt64) -> PageAnswer {
            cache.answer(key, link: link, generation: generation) {
                made += 1
                return LinkAnswer(answer: .redirect(link.link.previewTitle ?? ""), outcome: .web)
            }.answer
        }
        guard case .redirect("A") = answer(old, generation: 1), case .redirect("A") = answer(old, generation: 1) else { Issue.record("A"); return }
        #expect(made == 1)
        guard case .redirect("B") = answer(new, generation: 1) else { Issue.record("B"); return }
        #expect(made == 2 && cache.count == 1)
        // A request still on an older index gets its own answer and keeps nothing.
        guard case .redirect("A") = answer(old, generation: 0) else { Issue.record("older"); return }
        guard case .redirect("B") = answer(new, generation: 1) else { Issue.record("B again"); return }
        #expect(made == 3)
    }

    @Test("the cache stays within its count and byte budgets", arguments: [(8, 1 << 20), (1000, 48 * 1024)])
    func staysWithinBounds(capacity: Int, budget: Int) throws {
        let cache = LinkPageCache(capacity: capacity, byteBudget: budget)
        let page = [UInt8](repeating: 0x61, count: 1500)
        for i in 0..<200 {
            let code = "c\(i)"
            let key = LinkPageCache.Key(site: 0, code: code, platform: [.ios, .android, .desktop][i % 3], crawler: false, inAppBrowser: nil, locale: "en", iPad: false)
            let link = IndexedShortLink(link: ShortLink(code: code, site: "shop", target: "https://shop.example.com/"), match: nil)
            let response = HTTPResponse.prepared(PreparedResponse(status: 200, headers: LandingRenderer.pageHeaders, body: page))
            _ = cache.answer(key, link: link, generation: 1) { LinkAnswer(answer: .page(response), outcome: .appPage) }
            #expect(cache.count <= capacity && cache.bytes <= budget)
            #expect(cache.count >= 1)
        }
        // A page larger than a sixteenth of the budget is never kept.
        let big = LinkPageCache(capacity: capacity, byteBudget: budget)
        let key = LinkPageCache.Key(site: 0, code: "big", platform: .desktop, crawler: false, inAppBrowser: nil, locale: "en", iPad: false)
        let link = IndexedShortLink(link: ShortLink(code: "big", site: "shop", target: "https://shop.example.com/"), match: nil)
        _ = big.answer(key, link: link, generation: 1) {
            LinkAnswer(answer: .page(.dynamic(status: 200, headers: [], body: [UInt8](repeating: 0, count: budget / 16))), outcome: .appPage)
        }
        #expect(big.count == 0 && big.bytes == 0)
    }

    @Test("a flood of distinct links through the server keeps the cache within its default bounds")
    func floodThroughTheResponder() throws {
        let links = (0..<300).map { ShortLink(code: "f\($0)", site: "shop", target: "https://shop.example.com/item/\($0)", previewTitle: "Item \($0)") }
        let snapshot = try Snapshot(table: Fixture.table([ShortLinkOverridesTests.site()]), publicDirectory: Fixture.publicDir, links: links)
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        for link in links {
            for ua in [ShortLinkOverridesTests.slack, ShortLinkOverridesTests.android] {
                let r = Responder.respond(snapshot, RequestFacts(rawTarget: "/" + link.code, host: "shop.example.com", userAgent: ua))
                #expect(r.response.status == 200)
            }
        }
        let cache = renderer.compiled.links
        #expect(cache.count == 600 && cache.count <= cache.capacity && cache.bytes <= cache.byteBudget)
    }
}

@Suite("Resolved short links: kept per index, expiry checked per request")
struct ResolvedLinkCacheTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)
    static let table = Fixture.table([ShortLinkOverridesTests.site()])
    static let links = [
        ShortLink(code: "live", site: "shop", target: "https://shop.example.com/item/1", previewTitle: "One"),
        ShortLink(code: "web", site: "shop", target: "https://www.example.com/blog/1"),
        ShortLink(code: "soon", site: "shop", target: "https://shop.example.com/item/2", expiresAt: now.addingTimeInterval(10)),
        ShortLink(code: "off", site: "shop", target: "https://shop.example.com/item/3", disabled: true),
        ShortLink(code: "evil", site: "shop", target: "https://evil.example/"),
    ]

    @Test("the same answers as the index, first and cached, before and after an expiry", arguments: [-60.0, 9, 10, 11, 3600])
    func sameAsTheIndex(offset: Double) {
        let index = LinkIndex(links: Self.links, table: Self.table)
        let cache = ResolvedLinkCache()
        let at = Self.now.addingTimeInterval(offset)
        for code in Self.links.map(\.code) + ["none", "LIVE"] {
            // Cached at `now` first, then asked at `at`: expiry is checked on the cached link too.
            _ = cache.lookup(index, site: "shop", code: Substring(code), now: Self.now)
            for _ in 0..<2 {
                #expect(cache.lookup(index, site: "shop", code: Substring(code), now: at) == index.lookup(site: "shop", code: Substring(code), now: at), "\(code) at \(offset)")
            }
        }
        // Kept: the links that resolve (live, web, soon; not off, evil, none, LIVE).
        #expect(cache.count == 3)
        #expect(cache.lookup(index, site: "shop", code: "soon", now: Self.now.addingTimeInterval(10)) == nil)
    }

    @Test("a new index empties it; a request on an older index keeps nothing")
    func newIndexEmptiesIt() throws {
        let cache = ResolvedLinkCache()
        let old = LinkIndex(links: Self.links, table: Self.table)
        var edited = Self.links
        edited[0].previewTitle = "Two"
        let new = LinkIndex(links: edited, table: Self.table)
        #expect(cache.lookup(old, site: "shop", code: "live", now: Self.now)?.link.previewTitle == "One")
        #expect(cache.lookup(old, site: "shop", code: "web", now: Self.now) != nil)
        #expect(cache.count == 2)
        #expect(cache.lookup(new, site: "shop", code: "live", now: Self.now)?.link.previewTitle == "Two")
        #expect(cache.count == 1)
        #expect(cache.lookup(old, site: "shop", code: "live", now: Self.now)?.link.previewTitle == "One")
        #expect(cache.lookup(old, site: "shop", code: "web", now: Self.now) != nil)
        #expect(cache.count == 1)
        #expect(cache.lookup(new, site: "shop", code: "live", now: Self.now)?.link.previewTitle == "Two")
    }

    @Test("it stays within its capacity")
    func staysWithinCapacity() {
        let links = (0..<100).map { ShortLink(code: "c\($0)", site: "shop", target: "https://shop.example.com/item/\($0)") }
        let index = LinkIndex(links: links, table: Self.table)
        let cache = ResolvedLinkCache(capacity: 16)
        for link in links {
            #expect(cache.lookup(index, site: "shop", code: Substring(link.code), now: Self.now)?.link == link)
            #expect(cache.count <= 16 && cache.count >= 1)
        }
    }
}
