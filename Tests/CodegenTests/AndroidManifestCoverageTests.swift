// The manifest's path rules, run through the project's own android.os.PatternMatcher: they cover
// every path a route accepts (Android 12–14 have nothing else), and literal routes claim nothing
// more. Android matches the decoded path, so the samples are decoded first.

import Foundation
import Testing
@testable import Codegen
import LinkRouting
import PlatformMatchers

@Suite("Android manifest paths")
struct AndroidManifestCoverageTests {
    static let tables: [(String, String)] = [
        ("shipped diallodev", ""),
        ("nested", #"{ name: "post", path: "/post/{id}" }, { name: "comments", path: "/post/{id}/comments" }"#),
        ("rest", #"{ name: "file", path: "/files/{path*}" }, { name: "home", path: "/" }, { name: "all", path: "/u/{id}/{more*}" }"#),
        ("prefix and suffix", #"{ name: "user", path: "/u/@{name}" }, { name: "page", path: "/{slug}.html" }, { name: "pdf", path: "/d/{doc}.pdf" }"#),
        ("oneOf", #"{ name: "lang", path: "/{lang}/docs/{page}", params: { lang: { oneOf: ["en", "fr", "pt-BR"] } } }, { name: "item", path: "/{item}.html", params: { item: { oneOf: ["a", "b.c"] } } }"#),
        ("literal specials", #"{ name: "odd", path: "/a.b/{x}/c+d" }, { name: "lit", path: "/x.y/[z]" }"#),
    ]

    static func table(_ name: String) throws -> RouteTable {
        let routes = tables.first { $0.0 == name }!.1
        if routes.isEmpty { return try CodegenGoldenTests.load("config/examples/diallodev.json5") }
        let text = #"{ sites: [{ domains: ["example.com"], android: [{ package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }], routes: ["# + routes + #"] }] }"#
        return try RouteTable(config: try ConfigLoader.decode(Data(text.utf8), file: "test.json5").config)
    }

    static func matchers(_ rules: [AndroidPathRule]) throws -> [AndroidPatternMatcher] {
        try rules.map { rule in
            let kind: AndroidPatternMatcher.Kind
            switch rule.kind {
            case .path: kind = .literal
            case .pathPrefix: kind = .prefix
            case .pathAdvancedPattern: kind = .advancedGlob
            }
            return try AndroidPatternMatcher(pattern: rule.value, kind: kind)
        }
    }

    @Test("every accepted path is covered", arguments: tables.map(\.0))
    func covers(name: String) throws {
        let table = try Self.table(name)
        for site in table.sites {
            let model = try SiteModel(site: site, table: table, options: CodegenOptions(configPath: "t"))
            for app in site.androidApps {
                let all = try Self.matchers(AndroidManifestGenerator.rules(model, package: app.package))
                for route in model.routes {
                    let own = try Self.matchers(AndroidManifestGenerator.rules(for: route.entry, route: route.config.name))
                    let samples = RouteTable.samplePaths(for: route.entry, variants: 9)
                    for path in samples.accepted where !path.uppercased().contains("%2F") {
                        let decoded = PercentEncoding.decode(path)
                        #expect(all.contains { $0.matches(decoded) }, "\(route.config.name): \(path) (decoded \(decoded)) is not covered")
                    }
                    // A route without parameters, or whose values are all listed, claims exactly its paths.
                    let exact = route.entry.pattern.segments.allSatisfy {
                        if case .literal = $0 { return true }
                        if case let .param(_, _, _, oneOf) = $0 { return oneOf != nil }
                        return false
                    }
                    guard exact else { continue }
                    // (A near miss spelled with escapes — `/%41I`, `%2F` — decodes to a path Android
                    // cannot tell apart: platform limits `validate` names, not manifest mistakes.)
                    for path in samples.nearMisses where !path.split(separator: "/").isEmpty && !path.contains("%") {
                        let decoded = PercentEncoding.decode(path)
                        let accepted = table.resolve(site: site, path: path, query: nil, fragment: nil).match?.route == route.config.name
                        if !accepted, !decoded.hasSuffix("//") {
                            #expect(!own.contains { $0.matches(decoded) }, "\(route.config.name): near miss \(path) is claimed")
                        }
                    }
                }
            }
        }
    }

    @Test("literal text is escaped for the advanced glob and for the manifest")
    func escaping() throws {
        let table = try Self.table("literal specials")
        let model = try SiteModel(site: table.sites[0], table: table, options: CodegenOptions(configPath: "t"))
        let rules = AndroidManifestGenerator.rules(model, package: "com.example.app")
        #expect(rules.map(\.value) == [#"/a\.b/[^/]+/c\+d/*"#, "/x.y/[z]", "/x.y/[z]/"])
        let xml = AndroidManifestGenerator.file(model, app: table.sites[0].androidApps[0], header: ["h"])
        #expect(xml.contains(#"android:pathAdvancedPattern="/a\\.b/[^/]+/c\\+d/*""#))
        #expect(xml.contains(#"android:path="/x.y/[z]""#))
        let nested = try Self.table("prefix and suffix")
        let m2 = try SiteModel(site: nested.sites[0], table: nested, options: CodegenOptions(configPath: "t"))
        let x2 = AndroidManifestGenerator.file(m2, app: nested.sites[0].androidApps[0], header: ["h"])
        #expect(x2.contains(#"android:pathAdvancedPattern="/d/[^/]+/*""#))
        #expect(x2.contains("also claims any '…' segment for {doc}"))
    }
}

@Suite("Codegen naming and headers")
struct CodegenNamingTests {
    @Test(arguments: [
        ("aiWorkspace", "aiWorkspace", "AiWorkspace", "AI_WORKSPACE"),
        ("ai-workspace", "aiWorkspace", "AiWorkspace", "AI_WORKSPACE"),
        ("raspberry-pi", "raspberryPi", "RaspberryPi", "RASPBERRY_PI"),
        ("pt-BR", "ptBR", "PtBR", "PT_BR"),
        ("b.c", "bC", "BC", "B_C"),
        ("64bit", "_64bit", "_64bit", "_64BIT"),
        ("fitconnect.app", "fitconnectApp", "FitconnectApp", "FITCONNECT_APP"),
        ("utm_source", "utmSource", "UtmSource", "UTM_SOURCE"),
    ])
    func names(input: String, lower: String, upper: String, snake: String) {
        #expect(Naming.lowerCamel(input) == lower)
        #expect(Naming.upperCamel(input) == upper)
        #expect(Naming.upperSnake(input) == snake)
    }

    @Test("keywords and the types' own members get a suffix")
    func collisions() {
        var used = Naming.reservedMembers
        #expect(Naming.unique("url", in: &used) == "url2")
        #expect(Naming.unique("in", in: &used) == "in2")
        #expect(Naming.unique("default", in: &used) == "default2")
        #expect(Naming.unique("post", in: &used) == "post")
        #expect(Naming.unique("post", in: &used) == "post2")
    }

    @Test("a header's command line splits back into the words", arguments: [
        ["codegen", "swift", "--config", "config/linkwell.json5", "--site", "diallodev"],
        ["codegen", "kotlin", "--config", "my configs/it's.json5", "--site", "a b", "--kotlin-package", "com.x"],
    ])
    func shellWords(words: [String]) {
        let line = Codegen.shellLine(words)
        #expect(Codegen.shellWords(line) == ["linkwell"] + words)
        #expect(Codegen.shellWords(line.replacingAll("--", with: "\\-\\-")) == ["linkwell"] + words)
    }
}
