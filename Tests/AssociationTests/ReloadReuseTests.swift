// A reload takes an unchanged site's model and model findings from the load it replaces: a site
// whose text is byte for byte the same is not decoded again, an equal site is not checked again,
// and the report and model are those of a fresh load — errors included, word for word.

import Foundation
import Testing
@testable import Association
import LinkRouting

@Suite("Reload reuse")
struct ReloadReuseTests {
    /// A site; `clip` gives its iOS app an App Clip ID that does not extend the bundle ID (a warning).
    static func site(_ n: Int, clip: Bool = false, extra: String = "") -> String {
        """
          // site \(n)
          { name: "s\(n)", domains: ["s\(n).example.com"],
            ios: [{ teamID: "ABCDE12345", bundleID: "com.example.s\(n)"\(clip ? ", appClipBundleID: \"com.other.Clip\"" : ""), schemes: ["s\(n)app"] }],
            routes: [{ name: "post", path: "/post/{id}" }, /* a comment */ { exclude: "/post/x/*" }, { name: "all", path: "/post/{id}/{rest*}" }],\(extra) },

        """
    }

    static func config(_ sites: [String], root: String = "") -> String {
        "// reload test\n{\n\(root)  \"sites\": [\n\(sites.joined())  ],\n}\n"
    }

    final class File: Sendable {
        let dir: URL
        let path: String
        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-reuse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            path = dir.appendingPathComponent("linkwell.json5").path
        }
        func write(_ text: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        deinit { try? FileManager.default.removeItem(at: dir) }
    }

    @Test("an unchanged site keeps its model findings without being checked again; a changed one is checked")
    func siteChecksReused() throws {
        let file = try File()
        try file.write(Self.config([Self.site(0, clip: true), Self.site(1)]))
        let first = ConfigValidator.validate(path: file.path, platformCheck: false)
        let validated = try #require(first.validated, "\(first.errors)")
        #expect(first.warnings.map(\.path) == ["sites[0].ios[0].appClipBundleID"])
        #expect(validated.sites[0].siteDiagnostics.count == 1 && validated.sites[1].siteDiagnostics.isEmpty)

        let unchanged = GenerationCounter()
        let again = GenerationCounter.$current.withValue(unchanged) { ConfigValidator.validate(path: file.path, platformCheck: false, reusing: validated.sites) }
        #expect(unchanged.count(.siteChecks, site: 0) == 0 && unchanged.count(.siteChecks, site: 1) == 0)
        #expect(again.diagnostics.map(\.description) == first.diagnostics.map(\.description))

        // Site 1 gains the same warning: only it is checked, and both warnings are reported.
        try file.write(Self.config([Self.site(0, clip: true), Self.site(1, clip: true)]))
        let edited = GenerationCounter()
        let third = GenerationCounter.$current.withValue(edited) { ConfigValidator.validate(path: file.path, platformCheck: false, reusing: validated.sites) }
        #expect(edited.count(.siteChecks, site: 0) == 0 && edited.count(.siteChecks, site: 1) == 1)
        #expect(third.warnings.map(\.path) == ["sites[0].ios[0].appClipBundleID", "sites[1].ios[0].appClipBundleID"])
        #expect(third.diagnostics.map(\.description) == ConfigValidator.validate(path: file.path, platformCheck: false).diagnostics.map(\.description))
    }

    @Test("a site whose text is unchanged is not decoded again")
    func unchangedTextNotDecoded() throws {
        let file = try File()
        try file.write(Self.config([Self.site(0), Self.site(1)]))
        let validated = try #require(ConfigValidator.validate(path: file.path, platformCheck: false).validated)
        let sources = try validated.sites.map { try #require($0.source) }
        #expect(sources.map(\.config) == validated.config.sites)
        // Hand the reload a model for site 0 that its text does not say: it is taken as it is,
        // so site 0 was not decoded; site 1 (its text changed) is read from the file.
        var marked = sources[0].config
        marked.name = "taken from the previous load"
        // Its unknown-key warnings are taken as they were too.
        let note = Diagnostic(.warning, file: "old.json5", at: "sites[0].x", "taken from the previous load")
        let reused = ConfigLoader.SiteSource(text: sources[0].text, config: marked, warnings: [note])
        try file.write(Self.config([Self.site(0), Self.site(1, clip: true, extra: " bundleId: \"x\"")]))
        let reloaded = try ConfigLoader.load(path: file.path, reusing: [reused, sources[1]])
        #expect(reloaded.config.sites[0].name == "taken from the previous load")
        #expect(reloaded.warnings.map(\.description) == [note.withFile(file.path).description] + (try ConfigLoader.load(path: file.path).warnings.map(\.description)))
        #expect(reloaded.sites.map(\.warnings.count) == [1, 1])
        #expect(reloaded.config.sites[1] == (try ConfigLoader.load(path: file.path).config.sites[1]))
        #expect(reloaded.config.sites[1].ios?.first?.appClipBundleID == "com.other.Clip")
    }

    /// Loads three sites, writes `text` and reloads it with the first load's sites; and a fresh load of `text`.
    static func reloadAndFreshLoad(_ text: String) throws -> (reloaded: ValidationReport, fresh: ValidationReport) {
        let file = try File()
        try file.write(config([site(0), site(1), site(2)]))
        let validated = try #require(ConfigValidator.validate(path: file.path, platformCheck: false).validated)
        try file.write(text)
        return (ConfigValidator.validate(path: file.path, platformCheck: false, reusing: validated.sites),
                ConfigValidator.validate(path: file.path, platformCheck: false))
    }

    /// Edits a reload must read exactly as a first load does.
    static let edits: [(name: String, text: String)] = [
        ("unchanged", config([site(0), site(1), site(2)])),
        ("one site edited", config([site(0), site(1, extra: " website: \"https://s1.example.com\""), site(2)])),
        ("a site added", config([site(0), site(1), site(2), site(3)])),
        ("a site removed", config([site(0), site(2)])),
        ("two sites swapped", config([site(1), site(0), site(2)])),
        ("the server block added", config([site(0), site(1), site(2)], root: "  server: { threads: 3 },\n")),
        ("sites written twice (the first is read)", config([site(0), site(1), site(2)], root: "  sites: [],\n")),
        ("an unknown key in a site", config([site(0), site(1, extra: " bundleId: \"x\""), site(2)])),
    ]

    @Test("a reload's model and report are those of a fresh load", arguments: edits.indices)
    func reloadMatchesFreshLoad(edit: Int) throws {
        let (reloaded, fresh) = try Self.reloadAndFreshLoad(Self.edits[edit].text)
        #expect(reloaded.diagnostics.map(\.description) == fresh.diagnostics.map(\.description), "\(Self.edits[edit].name)")
        #expect(reloaded.validated?.config == fresh.validated?.config, "\(Self.edits[edit].name)")
        #expect(reloaded.validated?.sites.map { $0.source?.text } == fresh.validated?.sites.map { $0.source?.text }, "\(Self.edits[edit].name)")
    }

    /// Broken edits: the reload's errors, word for word, are a first load's.
    static let broken: [(name: String, text: String)] = [
        ("a wrong type in a site", config([site(0), site(1, extra: " website: 3"), site(2)])),
        ("a required key missing", config([site(0), site(1).replacingOccurrences(of: "teamID: \"ABCDE12345\", ", with: ""), site(2)])),
        ("a misspelt required key", config([site(0), site(1).replacingOccurrences(of: "bundleID:", with: "bundleId:"), site(2)])),
        ("a wrong type at the root", config([site(0), site(1), site(2)], root: "  server: { threads: \"3\" },\n")),
        ("a syntax error in a site", config([site(0), site(1).replacingOccurrences(of: "routes:", with: "routes"), site(2)])),
        ("a domain listed by two sites", config([site(0), site(1).replacingOccurrences(of: "s1.example.com", with: "s0.example.com"), site(2)])),
        ("a scheme used by two sites", config([site(0), site(1).replacingOccurrences(of: "s1app", with: "S0app"), site(2)])),
        ("a bad value in a site", config([site(0), site(1).replacingOccurrences(of: "ABCDE12345", with: "abcde12345"), site(2)])),
    ]

    @Test("a reload of a broken file reports exactly what a first load reports", arguments: broken.indices)
    func brokenReloadMatchesFreshLoad(edit: Int) throws {
        let (reloaded, fresh) = try Self.reloadAndFreshLoad(Self.broken[edit].text)
        #expect(!fresh.errors.isEmpty, "\(Self.broken[edit].name)")
        #expect(reloaded.diagnostics.map(\.description) == fresh.diagnostics.map(\.description), "\(Self.broken[edit].name)")
        #expect(reloaded.diagnostics.map(\.position) == fresh.diagnostics.map(\.position), "\(Self.broken[edit].name)")
    }
}
