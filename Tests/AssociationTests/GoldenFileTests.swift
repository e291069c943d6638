// Generated association files, byte for byte, against checked-in golden files.
// After an intended change: LINKWELL_UPDATE_GOLDEN=1 swift test --filter GoldenFile, then review the diff.

import Foundation
import Testing
import Association
import LinkRouting
import LinkwellJSON

@Suite("Golden files")
struct GoldenFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let goldenDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/golden")

    struct Case: CustomTestStringConvertible, Sendable {
        var config: String
        var file: String
        var testDescription: String { "\(config): \(file)" }
    }

    static func table(_ config: String) throws -> RouteTable {
        let path = config == "linkwell" ? "config/linkwell.json5" : "config/examples/\(config).json5"
        return try RouteTable(config: try ConfigLoader.load(path: root.appendingPathComponent(path).path).config)
    }

    static let configs = ["linkwell", "fitconnect", "diallodev", "computers", "coffeebreak"]

    static var cases: [Case] {
        configs.flatMap { c -> [Case] in
            guard let t = try? table(c) else { return [] }
            return t.sites.flatMap { s -> [Case] in
                var out: [Case] = []
                if !s.iosApps.isEmpty { out.append(Case(config: c, file: "\(s.name).apple-app-site-association.json")) }
                if !s.androidApps.isEmpty { out.append(Case(config: c, file: "\(s.name).assetlinks.json")) }
                return out
            }
        }
    }

    /// The first differing line, with a little context, for a readable failure.
    static func diff(_ expected: String, _ actual: String) -> String {
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) where (i < e.count ? e[i] : nil) != (i < a.count ? a[i] : nil) {
            return "first difference at line \(i + 1):\n- \(i < e.count ? String(e[i]) : "<end>")\n+ \(i < a.count ? String(a[i]) : "<end>")"
        }
        return "identical"
    }

    @Test(arguments: cases)
    func matchesGolden(c: Case) throws {
        let table = try Self.table(c.config)
        let siteName = String(c.file.prefix { $0 != "." })
        let site = try #require(table.site(named: siteName))
        let bytes = c.file.hasSuffix("assetlinks.json") ? AssetLinksGenerator.bytes(for: site) : AASAGenerator.bytes(for: site)
        let actual = String(decoding: bytes, as: UTF8.self)
        let url = Self.goldenDir.appendingPathComponent(c.config).appendingPathComponent(c.file)
        if ProcessInfo.processInfo.environment["LINKWELL_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "\(c.file): \(Self.diff(expected, actual))")
    }

    @Test("generation is deterministic and strict JSON", arguments: configs)
    func deterministic(config: String) throws {
        for site in try Self.table(config).sites {
            let a = AASAGenerator.bytes(for: site)
            #expect(a == AASAGenerator.bytes(for: site))
            #expect(a.prefix(3) != [0xEF, 0xBB, 0xBF])
            _ = try JSONValue.parse(a)
            #expect(!String(decoding: a, as: UTF8.self).contains("\\/"), "slashes must not be escaped")
            let l = AssetLinksGenerator.bytes(for: site)
            _ = try JSONValue.parse(l)
            // Strict JSON that Foundation reads too.
            _ = try JSONSerialization.jsonObject(with: Data(a))
            _ = try JSONSerialization.jsonObject(with: Data(l))
        }
    }
}
