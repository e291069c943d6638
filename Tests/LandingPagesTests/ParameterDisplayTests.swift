// Text a visitor writes into a link reaches page text only within the route's bounds.

import Foundation
import LinkRouting
import Testing
@testable import LandingPages

@Suite("Parameter values in page text: maxLength, pattern and the default cap")
struct ParameterDisplayTests {
    static func site(params: [String: ParamConfig]? = nil) -> SiteConfig {
        var site = LP.site()
        site.routes = [
            .route(RouteConfig(name: "item", path: "/item/{id}", params: params,
                               preview: PreviewConfig(title: "Item {id}", description: "See item {id} in Shop.")))
        ]
        return site
    }

    static func page(_ site: SiteConfig, _ id: String) -> String {
        LP.render(site, url: "https://shop.example.com/item/" + PercentEncoding.encodeComponent(id), ua: UA.desktop)
    }

    @Test("a value within the bounds is the page's title and sentence")
    func shown() {
        let html = Self.page(Self.site(params: ["id": ParamConfig(maxLength: 8, pattern: "[A-Z0-9]+")]), "A1B2")
        #expect(html.contains("<title>Item A1B2</title>") && html.contains("See item A1B2 in Shop."))
    }

    @Test("a value past maxLength, outside the pattern or past the default 64: the app's name, no sentence", arguments: [
        (ParamConfig(maxLength: 8), "ABCDEFGHI"),
        (ParamConfig(pattern: "[A-Z0-9]+"), "Your account is locked. Call 555-0100"),
        (ParamConfig(pattern: "[a-z]+"), "abc\u{0301}"),  // the whole value must match
        (nil, String(repeating: "x", count: 65)),
    ] as [(ParamConfig?, String)])
    func hidden(spec: ParamConfig?, value: String) {
        let html = Self.page(Self.site(params: spec.map { ["id": $0] }), value)
        #expect(html.contains("<title>Shop</title>"))
        #expect(!html.contains("See item"))
        #expect(!html.contains("Item \(value.prefix(3))"))  // in no title, og:title or card text
        #expect(html.contains("content=\"Shop\""))  // og:title
    }

    @Test("the default cap lets 64 characters through")
    func defaultCap() {
        let value = String(repeating: "é", count: 64)
        #expect(Self.page(Self.site(), value).contains("<title>Item \(value)</title>"))
    }

    @Test("maxLength and pattern are checked in the config, with the fix")
    func validated() {
        let bad = LinkwellConfig(sites: [Self.site(params: ["id": ParamConfig(maxLength: 0, pattern: "[unclosed")])])
        let messages = bad.validate().filter { $0.severity == .error }.map(\.description)
        #expect(messages.contains { $0.contains("params.id.maxLength") && $0.contains("outside 1…2048") })
        #expect(messages.contains { $0.contains("params.id.pattern") && $0.contains("is not a regular expression") })
    }
}
