// `linkwell codegen` output, byte for byte, against checked-in golden files: every target for
// every site of every shipped config. After an intended change:
// LINKWELL_UPDATE_GOLDEN=1 swift test --filter CodegenGolden, then review the diff.
// (tests/live/test_codegen.py compiles and runs the Swift and Kotlin files.)

import Foundation
import Testing
@testable import Codegen
import LinkRouting

@Suite("Codegen golden files")
struct CodegenGoldenTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let goldenDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/golden")
    static let configs = ["config/linkwell.json5"] + ["coffeebreak", "computers", "diallodev", "fitconnect"].map { "config/examples/\($0).json5" }

    static func load(_ relative: String) throws -> RouteTable {
        try RouteTable(config: try ConfigLoader.load(path: root.appendingPathComponent(relative).path).config)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var config: String
        var site: String
        var target: CodegenTarget
        var testDescription: String { "\(config) \(site) \(target.rawValue)" }
        var folder: String { URL(fileURLWithPath: config).deletingPathExtension().lastPathComponent }
    }

    static var cases: [Case] {
        configs.flatMap { c -> [Case] in
            guard let t = try? load(c) else { return [] }
            return t.sites.flatMap { s in CodegenTarget.allCases.map { Case(config: c, site: s.name, target: $0) } }
        }
    }

    /// The files, or the error's message as a `.error` file (a site without Android apps has
    /// no manifest: that answer is pinned too).
    static func generate(_ c: Case) throws -> [GeneratedFile] {
        let table = try load(c.config)
        let site = try #require(table.site(named: c.site))
        do {
            return try Codegen.files(c.target, site: site, table: table, options: CodegenOptions(configPath: c.config))
        } catch {
            return [GeneratedFile(name: "\(c.site).\(c.target.rawValue).error", contents: error.description + "\n")]
        }
    }

    @Test(arguments: cases)
    func matchesGolden(c: Case) throws {
        for file in try Self.generate(c) {
            let url = Self.goldenDir.appendingPathComponent(c.folder).appendingPathComponent(file.name)
            if ProcessInfo.processInfo.environment["LINKWELL_UPDATE_GOLDEN"] == "1" {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: url)
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(file.contents == expected, "\(file.name): \(Codegen.firstDifference(expected: expected, actual: file.contents))")
        }
    }

    @Test("every golden file is still generated (none left behind)")
    func noOrphans() throws {
        var generated = Set<String>()
        for c in Self.cases { for f in try Self.generate(c) { generated.insert("\(c.folder)/\(f.name)") } }
        let fm = FileManager.default
        var onDisk = Set<String>()
        for folder in try fm.contentsOfDirectory(atPath: Self.goldenDir.path) {
            for f in try fm.contentsOfDirectory(atPath: Self.goldenDir.appendingPathComponent(folder).path) { onDisk.insert("\(folder)/\(f)") }
        }
        #expect(onDisk == generated, "only on disk: \(onDisk.subtracting(generated).sorted()); not on disk: \(generated.subtracting(onDisk).sorted())")
    }

    @Test("deterministic, and the header names the config and a command that reproduces the file", arguments: cases)
    func header(c: Case) throws {
        let a = try Self.generate(c)
        #expect(a == (try Self.generate(c)))
        for file in a where !file.name.hasSuffix(".error") {
            #expect(file.contents.contains("\(Codegen.marker)\(c.config) (site '\(c.site)')"))
            let words = try #require(Codegen.headerCommand(in: file.contents), "\(file.name) has no command in its header")
            #expect(Array(words.prefix(6)) == ["codegen", c.target.rawValue, "--config", c.config, "--site", c.site])
        }
    }
}
