// Generated association files, byte for byte, against checked-in golden files: one folder per
// shipped config; a golden file nothing generates fails, a mismatch prints a unified diff.
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

    /// Every shipped config: `config/linkwell.json5` and each file of `config/examples/`, so a
    /// config added there gets golden files and one removed leaves its golden files stale. The
    /// `broken*.json5` examples are broken on purpose (the `validate` examples of docs/guide/getting-started.md;
    /// tests/live/test_cli.py checks what validate says about them).
    static let configs: [String] = {
        let examples = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("config/examples").path)) ?? []
        return ["linkwell"] + examples.filter { $0.hasSuffix(".json5") && !$0.hasPrefix("broken") }.map { String($0.dropLast(".json5".count)) }.sorted()
    }()

    /// One case per generated file. A config that does not load yields a case that fails with its error.
    static var cases: [Case] {
        configs.flatMap { c -> [Case] in
            guard let t = try? table(c) else { return [Case(config: c, file: "(the config does not load)")] }
            return t.sites.flatMap { s -> [Case] in
                var out: [Case] = []
                if !s.iosApps.isEmpty { out.append(Case(config: c, file: "\(s.name).apple-app-site-association.json")) }
                if !s.androidApps.isEmpty { out.append(Case(config: c, file: "\(s.name).assetlinks.json")) }
                return out
            }
        }
    }

    /// The files under `dir` (as `config/file`) that no case produces.
    static func staleFiles(in dir: URL, cases: [Case]) throws -> [String] {
        let expected = Set(cases.map { "\($0.config)/\($0.file)" })
        var found: [String] = []
        for config in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            var isDirectory: ObjCBool = false
            let sub = dir.appendingPathComponent(config)
            guard FileManager.default.fileExists(atPath: sub.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                found.append(config)
                continue
            }
            found += try FileManager.default.contentsOfDirectory(atPath: sub.path).map { "\(config)/\($0)" }
        }
        return found.filter { !expected.contains($0) }.sorted()
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
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record(
                "no golden file \(url.path) for config '\(c.config)': create it with LINKWELL_UPDATE_GOLDEN=1 swift test --filter GoldenFile, then review it")
            return
        }
        let identical = Array(data) == bytes  // a Bool, so a failure prints the diff below and not two byte arrays
        #expect(identical, "\(c.file) differs from its golden file:\n\(Self.diff(String(decoding: data, as: UTF8.self), actual, name: "\(c.config)/\(c.file)"))")
    }

    static func diff(_ expected: String, _ actual: String, name: String) -> String {
        UnifiedDiff.firstHunk(expected: expected, actual: actual, expectedName: "golden/\(name)", actualName: "generated/\(name)")
            ?? "the texts are equal, the bytes are not (invalid UTF-8?)"
    }

    @Test("no golden file is left without the config and site that generate it")
    func noStaleGoldenFiles() throws {
        let stale = try Self.staleFiles(in: Self.goldenDir, cases: Self.cases)
        #expect(stale == [], "stale golden files under \(Self.goldenDir.path): \(stale); delete them, or restore the config they came from")
    }

    @Test("a golden file whose config or site is gone is reported stale")
    func staleFilesAreFound() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        for file in ["linkwell/fitconnect.assetlinks.json", "linkwell/gone.assetlinks.json", "removed/removed.assetlinks.json"] {
            let url = dir.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: url)
        }
        try Data().write(to: dir.appendingPathComponent("notes.txt"))
        #expect(
            try Self.staleFiles(in: dir, cases: [Case(config: "linkwell", file: "fitconnect.assetlinks.json")])
                == ["linkwell/gone.assetlinks.json", "notes.txt", "removed/removed.assetlinks.json"])
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
