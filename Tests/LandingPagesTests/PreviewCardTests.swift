import Foundation
import LinkRouting
import Testing
@testable import LandingPages

@Suite("LandingPages: generated preview cards")
struct PreviewCardTests {
    static func card(_ title: String, color: String? = "#0E7C66") -> PreviewCard {
        PreviewCard(site: "shop", route: "item", link: "https://shop.example.com/item/42", appName: "Shop & Co <1>", title: title,
                    themeColor: color, icon: nil, locale: "en")
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ png: [UInt8]) -> (Int, Int)? {
        guard png.count > 24, Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array(png[12..<16]) == Array("IHDR".utf8) else { return nil }
        func be(_ i: Int) -> Int { png[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    @Test("any title renders as a 1200×630 PNG: short, long, CJK, RTL, emoji, markup", arguments: [
        "Post 42", String(repeating: "A very long title that keeps going ", count: 8), "東京の新しいカフェ特集：おすすめ十選と行き方",
        "مقال جديد عن تطوير التطبيقات", "שלום עולם — פוסט חדש", "Café ☕️ & <b>\"quotes\"</b>", "Supercalifragilisticexpialidocious-and-then-some-more-letters",
    ])
    func renders(title: String) throws {
        let svg = PreviewCardRenderer.svg(Self.card(title), icon: nil)
        #expect(!svg.contains("<b>") && svg.contains("Shop &amp; Co &lt;1&gt;"))
        let png = try PreviewCardRenderer.png(svg: svg).get()
        let size = try #require(Self.pngSize(png))
        #expect(size == (1200, 630))
        if let dir = ProcessInfo.processInfo.environment["LINKWELL_CARD_DIR"] {
            try Data(png).write(to: URL(fileURLWithPath: dir).appendingPathComponent("card-\(abs(title.hashValue)).png"))
        }
    }

    @Test("titles wrap to at most three lines that fit, with an ellipsis when cut", arguments: [
        ("Post 42", 1, false), (String(repeating: "word ", count: 40), 3, true), (String(repeating: "字", count: 20), 2, false),
        (String(repeating: "字", count: 80), 3, true), (String(repeating: "x", count: 200), 3, true), ("", 1, false),
    ])
    func wrap(title: String, lines: Int, ellipsis: Bool) {
        let got = PreviewCardRenderer.wrap(title)
        #expect(got.count == lines, "\(got)")
        #expect(got.last?.hasSuffix("…") == ellipsis)
        for line in got { #expect(PreviewCardRenderer.width(Substring(line)) <= PreviewCardRenderer.titleWidth / PreviewCardRenderer.titleSize + 0.001) }
    }

    @Test("RTL titles are anchored at the right; the icon is embedded when it is a local file")
    func layout() {
        #expect(PreviewCardRenderer.svg(Self.card("שלום"), icon: nil).contains(#"<tspan x="1120""#) && PreviewCardRenderer.svg(Self.card("שלום"), icon: nil).contains(#"direction="rtl""#))
        #expect(!PreviewCardRenderer.svg(Self.card("Hello"), icon: nil).contains("direction"))
        let svg = PreviewCardRenderer.svg(Self.card("Hi"), icon: (Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), "image/svg+xml"))
        #expect(svg.contains("xlink:href=\"data:image/svg+xml;base64,"))
    }

    @Test("the page's og:image is the card's absolute URL, with size, type and alt; a configured image wins")
    func pageTags() throws {
        var site = LP.site(preview: PreviewConfig(title: "Item {id}"))
        let t = LP.table(site)
        var r = try LandingRenderer(table: t)
        r.previewCard = { "/static/og/\(BrandStylesheet.hash(Array($0.title.utf8))).png" }
        let (s, m) = LP.match(t, "https://shop.example.com/item/9")
        let html = String(decoding: r.page(for: m, site: s, browser: BrowserFacts(userAgent: UA.iMessage)).body, as: UTF8.self)
        #expect(html.contains(#"<meta property="og:image" content="https://shop.example.com/static/og/\#(BrandStylesheet.hash(Array("Item 9".utf8))).png">"#))
        #expect(html.contains(#"<meta property="og:image:width" content="1200">"#) && html.contains(#"<meta property="og:image:height" content="630">"#))
        #expect(html.contains(#"<meta property="og:image:alt" content="Item 9 — Shop">"#) && html.contains(#"content="summary_large_image""#))
        site.landing?.image = "/static/og-default.png"
        let t2 = LP.table(site)
        var r2 = try LandingRenderer(table: t2)
        r2.previewCard = { _ in "/static/og/never.png" }
        let (s2, m2) = LP.match(t2, "https://shop.example.com/item/9")
        let html2 = String(decoding: r2.page(for: m2, site: s2, browser: BrowserFacts(userAgent: UA.iMessage)).body, as: UTF8.self)
        #expect(html2.contains(#"<meta property="og:image" content="https://shop.example.com/static/og-default.png">"#))
        #expect(!html2.contains("og:image:width"))
    }
}
