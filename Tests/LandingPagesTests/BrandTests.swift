import Foundation
import LinkRouting
import Testing
@testable import LandingPages

@Suite("LandingPages: brand")
struct BrandTests {
    @Test("WCAG contrast of known pairs", arguments: [
        ("#ffffff", "#000000", 21.0), ("#777777", "#ffffff", 4.48), ("#3b4cca", "#ffffff", 6.83), ("#0e7c66", "#ffffff", 5.13), ("#007aff", "#000000", 5.23),
    ])
    func contrast(a: String, b: String, ratio: Double) {
        #expect(abs(RGBColor(hex: a)!.contrast(with: RGBColor(hex: b)!) - ratio) < 0.01)
    }

    @Test("the stylesheet: the theme colour as the accent in light and dark mode, readable text on it, links at 4.5:1", arguments: [
        "#3B4CCA", "#0E7C66", "#6F4E37", "#FFD60A", "#111111", "#f0f",
    ])
    func stylesheet(color: String) throws {
        let style = try #require(BrandStylesheet(themeColor: color))
        let accent = RGBColor(hex: color)!
        #expect(style.css.contains("--accent: \(accent);"))
        #expect(style.css.components(separatedBy: "--accent: \(accent);").count == 3)  // light and dark
        let links = style.css.matches(of: /--accent-text: (#[0-9a-f]{6});/).map { RGBColor(hex: String($0.1))! }
        #expect(links.count == 2)
        #expect(links[0].contrast(with: BrandStylesheet.lightBackground) >= 4.5)
        #expect(links[1].contrast(with: BrandStylesheet.darkBackground) >= 4.5)
        #expect(style.path == "/static/brand-\(BrandStylesheet.hash(Array(style.css.utf8))).css")
        #expect(BrandStylesheet(themeColor: "#000001")?.path != style.path)
    }

    @Test("no stylesheet without a valid colour", arguments: [nil, "", "blue", "#12345", "3B4CCA", "#GGGGGG"] as [String?])
    func invalid(color: String?) {
        #expect(BrandStylesheet(themeColor: color) == nil)
    }

    @Test("validate: a theme colour under 4.5:1 warns with the nearest colour that passes", arguments: [
        "#007AFF", "#FF3B30", "#777777", "#1E90FF",
    ])
    func lowContrast(color: String) throws {
        var site = LP.site()
        site.landing?.themeColor = color
        let d = try #require(LandingDiagnostics.check(LP.table(site)).first { $0.path == "sites[0].landing.themeColor" })
        #expect(d.severity == .warning && d.message.contains("below WCAG AA's 4.5:1"))
        let fix = try #require(d.fix)
        let suggested = try #require(fix.firstMatch(of: /"(#[0-9A-F]{6})"/).map { RGBColor(hex: String($0.1))! })
        #expect(fix.contains("white text"))
        #expect(suggested.contrast(with: .white) >= 4.5)
        #expect(BrandStylesheet.contrastProblem(themeColor: suggested.description) == nil)
        // Nearest: one 1% step less toward black would not pass.
        let original = RGBColor(hex: color)!
        let step = try #require(original.nearest(toward: .black, against: .white, ratio: 4.5))
        #expect(step.color == suggested && step.steps > 0)
        #expect(RGBColor(hex: original.mixed(with: .black, Double(step.steps - 1) / 100).description)!.contrast(with: .white) < 4.5)
    }

    @Test("validate: readable colours and the shipped ones do not warn; a malformed one does", arguments: ["#3B4CCA", "#0E7C66", "#6F4E37", "#1F6FB2", "#000", "#FF9500", "#34C759"])
    func fine(color: String) {
        var site = LP.site()
        site.landing?.themeColor = color
        #expect(!LandingDiagnostics.check(LP.table(site)).contains { $0.path.hasSuffix("themeColor") })
        site.landing?.themeColor = "navy"
        #expect(LandingDiagnostics.check(LP.table(site)).contains { $0.path == "sites[0].landing.themeColor" && $0.message.contains("not a #RRGGBB") })
    }

    @Test("validate: a missing store link per platform and a website that loops, each with a fix")
    func storeAndWebsite() {
        var site = LP.site(appStoreID: nil)
        site.website = "https://shop.example.com/"
        site.android = nil
        let d = LandingDiagnostics.check(LP.table(site))
        #expect(d.map(\.path).sorted() == ["sites[0].android", "sites[0].ios[0].appStoreID", "sites[0].website"])
        #expect(d.allSatisfy { $0.severity == .warning && $0.fix != nil })
        #expect(d.first { $0.path == "sites[0].website" }!.message.contains("not-found page"))
        #expect(LandingDiagnostics.check(LP.table(LP.site())).isEmpty)
    }

    @Test("the page: icon (per app over landing.icon) with apple-touch-icon, brand stylesheet, store buttons")
    func page() {
        var site = LP.site()
        site.landing?.icon = "/static/icons/shop.svg"
        site.android?[0].icon = "https://cdn.example.com/android.png"
        let ios = LP.render(site, ua: UA.iPhone)
        #expect(ios.contains(#"<img class="icon" src="/static/icons/shop.svg""#) && ios.contains(#"<link rel="apple-touch-icon" href="/static/icons/shop.svg">"#))
        #expect(ios.contains(#"<link rel="stylesheet" href="\#(BrandStylesheet(themeColor: "#123456")!.path)">"#))
        #expect(ios.contains(#"<a class="button store app-store" id="app-store" href="https://apps.apple.com/app/id123456789"><span class="eyebrow">Download on the</span> <span class="label">App Store</span></a>"#))
        let android = LP.render(site, ua: UA.android)
        #expect(android.contains(#"<img class="icon" src="https://cdn.example.com/android.png""#))
        #expect(android.contains(#"<span class="eyebrow">Get it on</span> <span class="label">Google Play</span>"#))
    }
}
