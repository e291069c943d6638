import Foundation
import LandingPages
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

@Suite("Responder: generated preview cards")
struct PreviewCardServingTests {
    static func ogImage(_ html: String) -> String? {
        html.firstMatch(of: /property="og:image" content="https:\/\/[^\/"]+([^"]+)"/).map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test("the page's og:image path answers a 1200×630 PNG with an ETag and a long cache; a second request is a cache hit")
    func served() throws {
        let snapshot = Fixture.snapshot()
        let page = Responder.respond(snapshot, RequestFacts(rawTarget: "/item/42", host: "shop.example.com", userAgent: "Slackbot-LinkExpanding 1.0"))
        let path = try #require(Self.ogImage(String(decoding: page.response.body, as: UTF8.self)))
        #expect(path.hasPrefix("/static/og/") && path.contains(".png?l=%2Fitem%2F42&hl=en"))
        let r = Responder.respond(snapshot, RequestFacts(rawTarget: path, host: "shop.example.com"))
        #expect(r.response.status == 200 && r.response.header("Content-Type") == "image/png")
        #expect(r.response.header("Cache-Control") == "public, max-age=31536000, immutable")
        let png = r.response.body
        #expect(Array(png[16..<24]) == [0, 0, 0x04, 0xB0, 0, 0, 0x02, 0x76])  // IHDR 1200 × 630
        let etag = try #require(r.response.header("ETag"))
        #expect(Responder.respond(snapshot, RequestFacts(rawTarget: path, host: "shop.example.com", ifNoneMatch: etag)).response.status == 304)
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        #expect(renderer.cards.cachedCount == 1)
        _ = Responder.respond(snapshot, RequestFacts(rawTarget: path, host: "shop.example.com"))
        #expect(renderer.cards.cachedCount == 1)
    }

    @Test("a hash that does not match the link's card, an unknown link or a malformed name → 404 or not a card", arguments: [
        "/static/og/0123456789abcdef.png?l=%2Fitem%2F42&hl=en", "/static/og/0123456789abcdef.png?l=%2Fnope&hl=en",
        "/static/og/0123456789abcdef.png",
    ])
    func forged(path: String) {
        let r = Responder.respond(Fixture.snapshot(), RequestFacts(rawTarget: path, host: "shop.example.com"))
        #expect(r.response.status == 404)
    }

    @Test("rendered at most once per distinct card; the cache stays within its byte budget")
    func cache() {
        let cache = PreviewCardCache(budgetBytes: 100_000)
        var renders = 0
        let svgs = (0..<8).map { i in PreviewCardRenderer.svg(PreviewCard(site: "s", route: "r", link: "https://x/\(i)", appName: "A", title: "Title \(i) " + String(repeating: "word ", count: i), themeColor: "#336699", icon: nil, locale: "en"), icon: nil) }
        for round in 0..<2 {
            for svg in svgs.prefix(2) {
                let hash = BrandStylesheet.hash(Array(svg.utf8))
                guard case .card = cache.png(hash: hash, svg: { renders += 1; return svg }) else { Issue.record("round \(round)"); continue }
            }
        }
        #expect(renders == 2)
        for svg in svgs { _ = cache.png(hash: BrandStylesheet.hash(Array(svg.utf8))) { svg } }
        #expect(cache.cachedBytes <= 100_000 && cache.cachedCount >= 1)
        guard case .none = cache.png(hash: "0000000000000000", svg: { svgs[0] }) else { Issue.record("a forged hash made a card"); return }
        // While a card is being drawn, a request for another one is told to come back, not queued.
        let fresh = PreviewCardCache()
        let a = svgs[6], b = svgs[7]
        var during: PreviewCardCache.Outcome?
        _ = fresh.png(hash: BrandStylesheet.hash(Array(a.utf8))) {
            during = fresh.png(hash: BrandStylesheet.hash(Array(b.utf8))) { b }
            return a
        }
        guard case .busy = during else { Issue.record("expected busy, got \(String(describing: during))"); return }
        guard case .card = fresh.png(hash: BrandStylesheet.hash(Array(b.utf8)), svg: { b }) else { Issue.record("b after a"); return }
    }
}
