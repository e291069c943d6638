// The key structure the unknown-key warnings read: built by the syntax check's pass over the
// text (`JSON5Syntax.scan`), it must be exactly what reading the document through `Decoder`
// gives (how it was built before), for every shipped config and for the awkward spellings.

import Foundation
import Testing
@testable import LinkRouting

@Suite("Config key structure from the syntax check")
struct KeyTreeTests {
    static func throughDecoder(_ bytes: [UInt8]) throws -> ConfigLoader.KeyTree {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        return try decoder.decode(ConfigLoader.KeyTree.self, from: Data(bytes))
    }

    static func fromScanner(_ bytes: [UInt8]) throws -> ConfigLoader.KeyTree {
        try JSON5Syntax.scan(bytes).get()
    }

    @Test func everyShippedConfig() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var files = [root.appendingPathComponent("config/linkwell.json5")]
        for dir in ["config/examples", "docs/examples", "config/deploy"] {
            let url = root.appendingPathComponent(dir)
            files += (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil))?.filter { $0.pathExtension == "json5" } ?? []
        }
        #expect(files.count >= 5)
        for file in files where !file.lastPathComponent.hasPrefix("broken") {
            let bytes = try [UInt8](Data(contentsOf: file))
            let scanned = try Self.fromScanner(bytes)
            #expect(scanned == (try Self.throughDecoder(bytes)), "\(file.lastPathComponent)")
            guard case let .object(top) = scanned else { Issue.record("\(file.lastPathComponent): not an object"); continue }
            #expect(top["sites"] != nil, "\(file.lastPathComponent)")
        }
    }

    @Test(arguments: [
        "{}",
        "{ a: [] }",
        "{ a: {}, b: [{}, [], 1, 'x', null, true, -Infinity, NaN, 0x1F, .5] }",
        #"{ "quoted": 1, 'single': { inner: [ { deep: "v" } ] } }"#,
        #"{ "esc\u0061ped": 1, \u0062ar: 2, "tab\tkey": 3, "caf\u00e9": 4 }"#,
        "{ // comment\n  a: 1, /* block */ b: [1, 2,], }",
        "{ sites: [ { name: 'x', routes: [ { name: 'r', path: '/p', params: { id: { pattern: '[0-9]+' } } } ] } ] }",
        "{ a: 1, a: { b: 2 } }",
        "{ a: { b: 2 }, a: 1 }",
    ])
    func awkwardSpellings(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(try Self.fromScanner(bytes) == Self.throughDecoder(bytes), "\(text)")
    }

    @Test func aSyntaxErrorIsAnErrorNotATree() {
        guard case let .failure(error) = JSON5Syntax.scan(Array("{ a: 1 b: 2 }".utf8)) else {
            Issue.record("no error")
            return
        }
        #expect(error.message.contains("expected ',' or '}' after the value of 'a'"))
    }
}
