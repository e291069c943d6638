// Inputs the fuzzers (fuzz/harnesses, docs/dev/fuzzing.md) found crashing, kept as tests.

import Foundation
import Testing
import LinkRouting

@Suite("Fuzz regressions: ConfigLoader")
struct ConfigLoaderFuzzRegressionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var line: Int
        var column: Int
        var byte: String
        var testDescription: String { name }
    }

    static let cases = [
        // fuzz-config crash-59e79e0a: Foundation's JSON5 scanner trapped on 0xFF in an unquoted key.
        Case(name: "fuzz-config crash-59e79e0a (0xFF in an unquoted key)",
             bytes: Array("{Sequen".utf8) + Array(repeating: 0xFF, count: 19) + Array("ce".utf8), line: 1, column: 8, byte: "byte 0xFF"),
        Case(name: "Latin-1 é in a string value, line 3",
             bytes: Array("{\n  sites: [\n    { name: \"caf".utf8) + [0xE9] + Array("\", domains: [] } ] }".utf8), line: 3, column: 17, byte: "byte 0xE9"),
        Case(name: "lone continuation byte in an unquoted key",
             bytes: Array("{ a".utf8) + [0x80] + Array(": 1 }".utf8), line: 1, column: 4, byte: "byte 0x80"),
        Case(name: "truncated 3-byte sequence at the end",
             bytes: Array("{ sites: [] } // €".utf8).dropLast(), line: 1, column: 18, byte: "byte 0xE2"),
    ]

    @Test("invalid UTF-8 is an error naming the line, column and byte, not a crash", arguments: cases)
    func invalidUTF8(c: Case) throws {
        do {
            _ = try ConfigLoader.decode(Data(c.bytes), file: "fuzz.json5")
            Issue.record("decoded invalid UTF-8")
        } catch {
            let d = try #require(error.diagnostics.first)
            #expect(d.message == "is not valid UTF-8 at line \(c.line), column \(c.column)")
            #expect(d.value == c.byte)
            #expect(d.file == "fuzz.json5")
        }
    }

    @Test("valid UTF-8 beyond ASCII still decodes")
    func validUTF8() throws {
        let json = "{ sites: [ { name: \"café ☕ 😀\", domains: [\"example.com\"], routes: [] } ] }"
        let loaded = try ConfigLoader.decode(Data(json.utf8), file: "ok.json5")
        #expect(loaded.config.sites.first?.name == "café ☕ 😀")
    }
}
