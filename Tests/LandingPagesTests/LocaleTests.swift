import Foundation
import LinkRouting
import Testing
@testable import LandingPages

@Suite("LandingPages: languages")
struct LocaleTests {
    static let shipped = ["de", "en", "es", "fr", "it", "ja", "pt", "pt-BR"]

    @Test("Accept-Language → catalog: q-values, order, pt-BR → pt → site default → en", arguments: [
        ("pt-BR", nil, "pt-BR"), ("pt-br", nil, "pt-BR"), ("pt-PT", nil, "pt"), ("pt", nil, "pt"),
        ("fr-CA,fr;q=0.9,en;q=0.8", nil, "fr"), ("en;q=0.5, de", nil, "de"), ("it;q=0.2, ja;q=0.8", nil, "ja"),
        ("es-419", nil, "es"), ("de-CH-1996", nil, "de"), ("zh-Hant-TW, ja;q=0.1", nil, "ja"),
        ("nl, sv;q=0.9", nil, "en"), ("nl", "pt-BR", "pt-BR"), ("nl", "pt-AO", "pt"), ("*", "it", "it"), ("*", nil, "en"),
        ("ja;q=0, fr;q=0.1", nil, "fr"), ("fr;q=abc, de;q=0.3", nil, "de"), ("fr;q=2, de;q=0.3", nil, "de"),
        ("", nil, "en"), (",,;q=1, <script>", nil, "en"), ("x-klingon, en-GB;q=0.9", "de", "en"), ("nl", "xx", "en"),
    ] as [(String, String?, String)])
    func negotiation(header: String, siteDefault: String?, expected: String) {
        #expect(LocaleNegotiation.choose(acceptLanguage: header, available: Self.shipped, siteDefault: siteDefault) == expected)
    }

    @Test("no header → the site default, else en")
    func noHeader() {
        #expect(LocaleNegotiation.choose(acceptLanguage: nil, available: Self.shipped, siteDefault: nil) == "en")
        #expect(LocaleNegotiation.choose(acceptLanguage: nil, available: Self.shipped, siteDefault: "fr") == "fr")
    }

    @Test("q-value ordering keeps the header's order among equals")
    func ranges() {
        let r = LocaleNegotiation.ranges("de;q=0.5, fr, it;q=0.5, *;q=0.1, ja;q=0")
        #expect(r.map(\.range) == ["fr", "de", "it", "*"])
    }

    @Test("every shipped catalog has every key, none empty except the Japanese store eyebrows", arguments: shipped)
    func catalogs(tag: String) throws {
        let r = try LandingRenderer(table: LP.table())
        let c = try #require(r.catalogs[tag])
        for key in StringCatalog.requiredKeys {
            let text = try #require(c.strings[key])
            #expect(!text.isEmpty || (tag == "ja" && key.hasSuffix("Eyebrow")), "\(tag).\(key)")
        }
        // Placeholders are the same as the English ones.
        let en = r.catalogs["en"]!
        for key in StringCatalog.requiredKeys {
            let names = { (s: String) in Set(s.matches(of: /\{([a-zA-Z]+)\}/).map { String($0.1) }) }
            #expect(names(c.strings[key]!) == names(en.strings[key]!), "\(tag).\(key)")
        }
        #expect(Set(r.locales) == Set(Self.shipped))
    }

    @Test("the page: <html lang>, the catalog's strings, per-locale preview text; crawlers get the site default")
    func page() {
        var site = LP.site(preview: PreviewConfig(title: "Item {id}", description: "See item {id}.",
                                                  locales: ["pt-BR": PreviewText(title: "Item {id} no Shop"), "pt": PreviewText(title: "Artigo {id}", description: "Veja o artigo {id}.")]))
        site.landing?.defaultLocale = "de"
        let t = LP.table(site)
        let r = try! LandingRenderer(table: t)
        let (s, m) = LP.match(t, "https://shop.example.com/item/7")
        func html(_ ua: String, _ lang: String?) -> String {
            String(decoding: r.page(for: m, site: s, browser: BrowserFacts(userAgent: ua), acceptLanguage: lang).body, as: UTF8.self)
        }
        let br = html(UA.iPhone, "pt-BR,pt;q=0.9,en;q=0.8")
        #expect(br.contains(#"<html lang="pt-BR">"#) && br.contains("<title>Item 7 no Shop</title>") && br.contains("Abrir no Shop"))
        #expect(br.contains(#"<meta name="description" content="See item 7.">"#))  // pt-BR has no description: the plain one
        let pt = html(UA.android, "pt-PT")
        #expect(pt.contains(#"<html lang="pt">"#) && pt.contains("<title>Artigo 7</title>") && pt.contains("Veja o artigo 7.") && pt.contains("Abrir na app Shop"))
        let ja = html(UA.desktop, "ja")
        #expect(ja.contains(#"<html lang="ja">"#) && ja.contains("App Storeからダウンロード") && ja.contains("<title>Item 7</title>"))
        let crawler = html(UA.iMessage, "pt-BR")
        #expect(crawler.contains(#"<html lang="de">"#) && crawler.contains("<title>Item 7</title>"))
        let nl = html(UA.iPhone, "nl")
        #expect(nl.contains(#"<html lang="de">"#) && nl.contains("In Shop öffnen"))
        let nf = String(decoding: r.notFound(site: s, browser: BrowserFacts(userAgent: UA.iPhone), acceptLanguage: "fr").body, as: UTF8.self)
        #expect(nf.contains(#"<html lang="fr">"#) && nf.contains("Ce lien ne mène nulle part"))
        #expect(r.page(for: m, site: s, browser: BrowserFacts(userAgent: UA.iPhone)).header("Vary") == "User-Agent, Accept-Language")
    }
}
