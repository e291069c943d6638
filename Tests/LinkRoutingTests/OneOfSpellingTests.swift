// A oneOf value is compared as Swift compares strings (canonical equivalence), and the parser
// reports the config's spelling of it: the generated routers (`linkwell codegen`) give the same.

import Foundation
import LinkRouting
import Testing

@Suite("oneOf values in the config's spelling")
struct OneOfSpellingTests {
    static let table: RouteTable = {
        let text = #"{ sites: [{ domains: ["menu.example"], ios: [{ teamID: "ABCDE12345", bundleID: "com.menu.app" }], routes: [{ name: "dish", path: "/dish/{name}", params: { name: { oneOf: ["caf\u00e9", "\u03a9"] } } }] }] }"#
        return try! RouteTable(config: try! ConfigLoader.decode(Data(text.utf8), file: "menu.json5").config)
    }()

    @Test(arguments: [
        ("https://menu.example/dish/caf%C3%A9", "caf\u{E9}"),
        ("https://menu.example/dish/cafe%CC%81", "caf\u{E9}"),     // decomposed é
        ("https://menu.example/dish/%E2%84%A6", "\u{3A9}"),        // U+2126 OHM SIGN is Ω
    ])
    func configSpelling(url: String, value: String) throws {
        let match = try #require(Self.table.resolve(url).match)
        #expect(match.parameters["name"].map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
    }

    @Test func otherValuesDoNotMatch() {
        #expect(Self.table.resolve("https://menu.example/dish/cafe").match == nil)
    }
}
