// The Android expressions of an entry are written on bytes when its text is ASCII, and on
// `String`s character by character otherwise. The oracle: the character-by-character way, for
// every entry of every shipped config, the feature config and shapes that exercise each rule
// (`+`, `.`, `*` and `\` in literal text, suffixes, rest parameters, `oneOf` values, the root).

import Foundation
import Testing
@testable import Association
import LinkRouting

@Suite("Android expressions on bytes")
struct AndroidExpressionTests {
    /// Shapes for each rule of the Android expressions.
    static let shapesConfig = """
        {
          sites: [
            { name: "shapes", domains: ["shapes.example"],
              android: [{ id: "droid", package: "com.example.droid",
                          fingerprints: ["38:17:17:3B:E6:4C:38:8E:0B:4F:AD:88:1E:C7:E6:B3:CF:6E:96:26:BF:19:A2:8E:1D:AA:40:34:C2:CB:D7:20"] }],
              routes: [
                { name: "root", path: "/" },
                { name: "plus", path: "/c++/{id}" },
                { name: "dots", path: "/a.b/{id}.html" },
                { name: "dotted", path: "/v1.2/about" },
                { name: "star", path: "/x%2Ay/{id}" },
                { name: "slug", path: "/{slug}.html" },
                { name: "rest", path: "/f/{path*}" },
                { name: "rootrest", path: "/{all*}" },
                { name: "suffixrest", path: "/g/{id}.txt/{rest*}" },
                { name: "prefixed", path: "/v{ver}/x" },
                { name: "two", path: "/k/{a}/{b}" },
                { name: "nested", path: "/k/{a}" },
                { name: "oneof", path: "/q/{v}/{w}", params: { v: { oneOf: ["x", "y*", "a.b", "c+d"] } } },
                { name: "query", path: "/s/{q}", query: { q: { required: true } } },
                { name: "accent", path: "/o/{lang}", params: { lang: { oneOf: ["a", "é"] } } },
                { name: "encoded", path: "/caf%C3%A9/{id}" },
                { exclude: "/k/z/*" },
                { exclude: "/n.html" },
              ] },
          ],
        }
        """

    static func tables() throws -> [(String, RouteTable)] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-android-expressions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("shapes.json5").path
        try shapesConfig.write(toFile: path, atomically: true, encoding: .utf8)
        return try StreamedDocumentTests.tables() + [("shapes", try RouteTable(config: try ConfigLoader.load(path: path).config))]
    }

    @Test("the expressions written on bytes are the ones written by character, for every entry")
    func bytesEqualCharacters() throws {
        var onBytes = 0
        var byCharacter = 0
        for (name, table) in try Self.tables() {
            for site in table.sites {
                for entry in RouteTable.claimsSite(for: site).entries {
                    let reference = ComponentPlan.androidPathsByCharacter(for: entry)
                    #expect(ComponentPlan.androidPaths(for: entry) == reference, "\(name): \(entry.pattern.source)")
                    guard let bytes = ComponentPlan.asciiAndroidPaths(for: entry) else {
                        byCharacter += 1
                        continue
                    }
                    onBytes += 1
                    #expect(bytes == reference, "\(name): \(entry.pattern.source)")
                }
            }
        }
        // Both ways are taken: most entries are ASCII, some are not.
        #expect(onBytes >= 30)
        #expect(byCharacter >= 3)
    }

    @Test("an entry with non-ASCII text or values is left to the character way")
    func nonASCIIFallsBack() throws {
        let table = try #require(try Self.tables().first { $0.0 == "shapes" }?.1)
        let entries = table.sites[0].entries
        for source in ["/o/{lang}", "/caf%C3%A9/{id}"] {
            let entry = try #require(entries.first { $0.pattern.source == source })
            #expect(ComponentPlan.asciiAndroidPaths(for: entry) == nil, "\(source)")
        }
        for source in ["/c++/{id}", "/a.b/{id}.html", "/q/{v}/{w}", "/x%2Ay/{id}"] {
            let entry = try #require(entries.first { $0.pattern.source == source })
            #expect(ComponentPlan.asciiAndroidPaths(for: entry) != nil, "\(source)")
        }
    }

    @Test("the ASCII rules: literal wildcards and Android 15's dots")
    func asciiRules() {
        #expect(ComponentPlan.asciiAndroidLiteral(Array("a*b\\c?d".utf8)) == Array("a?b?c?d".utf8))
        #expect(ComponentPlan.asciiAndroid15SafeDots(Array("/a.b".utf8)) == Array("/a?b".utf8))
        #expect(ComponentPlan.asciiAndroid15SafeDots(Array("/a.b/*".utf8)) == Array("/a?b/*".utf8))
        #expect(ComponentPlan.asciiAndroid15SafeDots(Array("/a.b/*/x".utf8)) == Array("/a.b/*/x".utf8))
        #expect(ComponentPlan.asciiAndroid15SafeDots(Array("/*/a.b/*".utf8)) == Array("/*/a.b/*".utf8))
        for text in ["/a.b", "/a.b/*", "/a.b/*/x", "/*/a.b/*", "/a?b.c", "/plain"] {
            #expect(String(decoding: ComponentPlan.asciiAndroid15SafeDots(Array(text.utf8)), as: UTF8.self) == ComponentPlan.android15SafeDots(text))
        }
    }
}
