import Foundation
import LandingPages
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

// Compiled pages (CompiledPages.swift) against the template walk they replace: every route of
// every shipped config, with every kind of parameter value, for each platform / crawler / in-app
// browser / language, both ways, byte for byte — the page, the fallback redirect and the
// not-found page.

@Suite("Compiled pages: byte-identical to rendering")
struct CompiledPageTests {
    static let configs = ["linkwell", "fitconnect", "diallodev", "computers", "coffeebreak", "fitconnect-clipboard"]

    static func path(_ name: String) -> String {
        if name == "fitconnect-clipboard" { return clipboardConfig }
        return name == "linkwell"
            ? Fixture.root.appendingPathComponent("config/linkwell.json5").path
            : Fixture.root.appendingPathComponent("config/examples/\(name).json5").path
    }

    /// FitConnect with the iOS clipboard hand-off (`deferredLinks`): its App Store button carries the link.
    static let clipboardConfig: String = {
        let text = try! String(contentsOfFile: path("fitconnect"), encoding: .utf8)
            .replacingOccurrences(of: #"domains: ["fitconnect.app"],"#, with: #"domains: ["fitconnect.app"], deferredLinks: { ios: "clipboard" },"#)
        precondition(text.contains("deferredLinks"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipboard-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("linkwell.json5").path
        try! text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }()

    static let userAgents: [String?] = [
        nil,
        "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 312.0.0.33.111",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/460.0.0.0;]",
    ]
    static let languages: [String?] = [nil, "de-CH, de;q=0.9", "ja", "pt-BR", "xx"]
    /// Values beyond the route samples: what a link can carry.
    static let extraValues = ["<script>alert(1)</script>", "a\"b'c&d", "%41%2F", "\u{1F600} caf\u{E9}", "{title}", "x y\tz", "Zq", "."]

    /// The links of a config: every route with its sample parameters and the extra values.
    static func links(_ table: RouteTable) -> [(CompiledSite, LinkMatch)] {
        var out: [(CompiledSite, LinkMatch)] = []
        for site in table.sites {
            for entry in site.routes {
                var sets = (0..<9).map { entry.sampleParameters(variant: $0) }
                for value in extraValues {
                    var p = entry.sampleParameters()
                    for (name, old) in p where entry.pattern.segments.contains(where: {
                        if case let .param(n, _, _, oneOf) = $0 { n == name && oneOf == nil } else { false }
                    }) || entry.requiredQuery.contains(name) { p[name] = old.isEmpty ? old : value }
                    sets.append(p)
                }
                for (i, name) in entry.optionalQuery.enumerated() {
                    var p = entry.sampleParameters(variant: i)
                    p[name] = "opt & <\(i)>"
                    sets.append(p)
                }
                for params in sets {
                    guard let url = try? table.build(site: site.name, route: entry.route!.name, parameters: params),
                          case let .matched(match) = table.resolve(url) else { continue }
                    out.append((site, match))
                }
            }
        }
        return out
    }

    @Test("every route × variant of every shipped config: compiled page == rendered page", arguments: configs)
    func pagesMatch(config: String) throws {
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: Self.path(config))
        let snapshot = try #require(loaded, "\(report.errors)")
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        let landing = renderer.landing
        var compiled = 0
        var total = 0
        var handOffs = 0
        let links = Self.links(snapshot.table)
        #expect(!links.isEmpty)
        for (site, match) in links {
            for ua in Self.userAgents {
                for lang in Self.languages {
                    let facts = RequestFacts(rawTarget: "/", host: site.canonicalHost, userAgent: ua, acceptLanguage: lang)
                    let browser = BrowserFacts(userAgent: ua)
                    // The walk: what the server did before pages were compiled.
                    let links = LandingLinks(table: snapshot.table, site: site, match: match)
                    let decision = FallbackDecision.decide(browser: browser, site: site, match: match, links: links)
                    let fast = renderer.compiledAnswer(for: match, site: site, request: facts)
                    total += 1
                    if fast != nil { compiled += 1 }
                    switch decision {
                    case let .redirect(_, target, _):
                        if let fast { #expect(fast == .redirect(target), "\(config) \(match) \(ua ?? "-")") }
                    case .landing:
                        let slow = landing.page(for: match, site: site, browser: browser, acceptLanguage: lang).body
                        if String(decoding: slow, as: UTF8.self).contains("data-linkwell-copy=") { handOffs += 1 }
                        if let fast {
                            #expect(fast == .page(slow), "\(config) route \(match.route) \(match.parameters) UA \(ua ?? "-") lang \(lang ?? "-")")
                        }
                    }
                    // A short link that overrides nothing is served the compiled page: the override
                    // path with empty overrides must give the same bytes.
                    let iPad = ua?.contains("iPad") ?? false
                    // What a plain short link carries: its target, which only a forced redirect uses.
                    let empty = LinkOverrides(redirectTarget: "https://\(site.canonicalHost)/elsewhere")
                    #expect(Responder.overridesNothing(empty))
                    let emptyLinks = LandingLinks(table: snapshot.table, site: site, match: match).overridden(by: empty)
                    switch FallbackDecision.decide(browser: browser, site: site, match: match, links: emptyLinks, overrides: empty, iPad: iPad) {
                    case let .redirect(_, target, _):
                        if let fast { #expect(fast == .redirect(target), "empty overrides: \(config) \(match)") }
                    case .landing:
                        let slow = landing.page(for: match, site: site, browser: browser, acceptLanguage: lang, overrides: empty, iPad: iPad).body
                        if let fast { #expect(fast == .page(slow), "empty overrides: \(config) \(match.route) \(ua ?? "-")") }
                    }
                    // Through the Responder too: the same bytes whichever way it went.
                    let answer = renderer.answer(for: match, site: site, request: facts)
                    if case let .page(response)? = answer, case .landing = decision {
                        #expect(response.body == landing.page(for: match, site: site, browser: browser, acceptLanguage: lang).body)
                    }
                    // The request path's answer: the literal by reference, the parameters written.
                    if case .landing = decision, let page = renderer.compiledPage(for: match, site: site, browser: browser,
                                                                                  catalog: renderer.locale(site: site, browser: browser, acceptLanguage: lang)).compiled,
                       case let .page(bytes)? = fast {
                        let spans = page.answer(match: match, site: site, display: landing.parameterDisplay, qrCode: landing.qrCode,
                                                previewCard: landing.previewCard, locale: renderer.locale(site: site, browser: browser, acceptLanguage: lang).tag,
                                                byReference: true)
                        guard case let .spans(literal, written, spans)? = spans else {
                            Issue.record("no spans for \(config) \(match.route)")
                            continue
                        }
                        #expect(SpanBody(constant: literal, written: written, spans: spans).bytes == bytes, "spans: \(config) \(match.route) \(ua ?? "-")")
                    }
                }
            }
        }
        // Nearly every request is compiled: only `.`/`..` values (and nothing else) go the slow way.
        let slowExpected = links.filter { $0.1.parameters.values.contains { !CompiledLandingPage.isPlain($0) } }.count
        #expect(compiled == total - slowExpected * Self.userAgents.count * Self.languages.count, "\(config): \(compiled) of \(total) compiled")
        // Only the opt-in site's iPhone and iPad pages carry the clipboard hand-off.
        #expect((handOffs > 0) == (config == "fitconnect-clipboard"), "\(config): \(handOffs) pages with the clipboard hand-off")
    }

    @Test("not-found page: the prepared one per site, platform and language is the rendered one", arguments: configs)
    func notFoundMatches(config: String) throws {
        let (loaded, _) = ServerRuntime.loadSnapshot(configPath: Self.path(config))
        let snapshot = try #require(loaded)
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        for site in snapshot.table.sites {
            for ua in Self.userAgents {
                for lang in Self.languages {
                    let facts = RequestFacts(rawTarget: "/", host: site.canonicalHost, userAgent: ua, acceptLanguage: lang)
                    let slow = renderer.landing.notFound(site: site, browser: BrowserFacts(userAgent: ua), acceptLanguage: lang)
                    for _ in 0..<2 {
                        let fast = renderer.notFound(site: site, request: facts)
                        #expect(fast.status == 404)
                        #expect(fast.body == slow.body)
                        #expect(fast.headers.map { "\($0.0): \($0.1)" } == slow.headers.map { "\($0.0): \($0.1)" })
                    }
                }
            }
        }
    }

    @Test("a link with real overrides keeps the override path", arguments: [
        LinkOverrides(title: "Sale"), LinkOverrides(description: "d"), LinkOverrides(image: "https://cdn.example.com/i.png"),
        LinkOverrides(iosFallback: "https://example.com/ios"), LinkOverrides(ipadFallback: "https://example.com/ipad"),
        LinkOverrides(forcedRedirect: true, redirectTarget: "https://example.com/"),
        LinkOverrides(playReferrer: [(name: "utm_source", value: "x")]), LinkOverrides(appStoreParameters: [(name: "ct", value: "y")]),
    ])
    func realOverridesAreNotNothing(overrides: LinkOverrides) {
        #expect(!Responder.overridesNothing(overrides))
    }

    static func nonCharacterwise(_ name: String, _ v: [String]) -> [UInt8]? {
        switch name {
        case "hash": Array(String(v[0].utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }).utf8)
        case "length": Array("n=\(v[0].utf8.count)".utf8)
        case "first character": Array(String(v[0].prefix(1)).utf8)
        default: Array(v[0].uppercased().utf8)
        }
    }

    @Test("learning refuses what is not character-wise", arguments: ["hash", "length", "first character", "upper-cased"])
    func refusesNonCharacterwise(name: String) {
        #expect(CompiledText.learn(characters: [CompiledText.allCharacters]) { Self.nonCharacterwise(name, $0) } == nil)
    }

    @Test("learning: escaping per place, written for inputs never seen", arguments: ["<p>\u{E9} & \u{FC}</p>", "a", "x/y?z=1#f", "\u{65E5}\u{672C}"])
    func learnsEscapers(value: String) throws {
        let render = { (v: [String]) -> [UInt8]? in
            Array(("<a href=\"/s?q=" + PercentEncoding.encodeComponent(PercentEncoding.encodeComponent(v[0])) + "\">"
                   + HTMLEscaping.text(v[0]) + "</a>").utf8)
        }
        let text = try #require(CompiledText.learn(characters: [CompiledText.allCharacters], render: render))
        #expect(text.usedSlots == [0])
        #expect(text.bytes([Substring(value)]) == render([value]))
    }
}
