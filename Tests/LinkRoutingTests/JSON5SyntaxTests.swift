// The JSON5 syntax checker: every error at its exact line and column, with what was expected;
// valid JSON5 (the spec's examples and every shipped config) passes.

import Foundation
import Testing
import LinkRouting

@Suite("JSON5 syntax")
struct JSON5SyntaxTests {
    @Test(arguments: [
        // missing comma: the caret goes right after the value, where the ',' belongs
        ("{\n  a: 1\n  b: 2\n}", 2, 7, "expected ',' or '}' after the value of 'a', found 'b' on line 3"),
        ("{ a: [1 2] }", 1, 8, "expected ',' or ']' after item 1 of the list, found '2'"),
        ("{ a: \"x\" b: 1 }", 1, 9, "expected ',' or '}' after the value of 'a', found 'b'"),
        // unclosed brace / bracket / string / comment: the caret on the opening character
        ("{\n  sites: [\n    { a: 1 },\n", 2, 10, "this '[' is never closed: the file ends before its ']'"),
        ("{ a: 1", 1, 1, "this '{' is never closed: the file ends before its '}' (the last complete member is 'a')"),
        ("{ a: \"abc }", 1, 6, "this string is never closed: the file ends before its closing '\"'"),
        ("{ a: 'abc\n}", 1, 6, "this string is not closed on its line"),
        ("{ a: 1 /* note\n}", 1, 8, "this /* comment is never closed"),
        // bad escapes: the caret on the backslash
        (#"{ a: "x\x4" }"#, 1, 8, #"invalid escape '\x4' in a string; expected 2 hex digits after \x"#),
        (#"{ a: "\u12G4" }"#, 1, 7, #"invalid escape '\u12' in a string; expected 4 hex digits after \u"#),
        (#"{ a: "\1" }"#, 1, 7, #"invalid escape '\1' in a string: a digit cannot be escaped"#),
        // trailing garbage
        ("{ a: 1 }\n}", 2, 1, "unexpected '}' after the end of the config; expected nothing more"),
        ("{ a: 1 } { b: 2 }", 1, 10, "unexpected '{' after the end of the config"),
        // tabs and non-ASCII count as one column each
        ("{\n\tnamé: \"é\" x }", 2, 11, "expected ',' or '}' after the value of 'namé', found 'x'"),
        // values and keys
        ("{ a: tru }", 1, 6, "'tru' is not a value"),
        ("{ a: 01 }", 1, 6, "invalid number: a leading zero is not allowed"),
        ("{ a: 1e }", 1, 6, "invalid number: the exponent has no digits"),
        ("{ a: 1,, }", 1, 8, "two commas in a row after 'a'"),
        ("{ 1a: 2 }", 1, 3, "unexpected '1' where a key should be"),
        ("{ a 1 }", 1, 5, "expected ':' after the key 'a', found '1'"),
        ("", 1, 1, "the file is empty"),
        ("{ a: }", 1, 6, "unexpected '}' where the value of 'a' should be"),
    ])
    func error(text: String, line: Int, column: Int, message: String) throws {
        let error = try #require(JSON5Syntax.check(Array(text.utf8)), "no error for \(text.debugDescription)")
        #expect(error.line == line && error.column == column, "\(error) for \(text.debugDescription)")
        #expect(error.message.hasPrefix(message), "\(error.message)")
        #expect(!error.fix.isEmpty)
    }

    @Test(arguments: [
        ([0x7B, 0x20, 0x61, 0x3A, 0x20, 0x22, 0xFF, 0x22, 0x20, 0x7D] as [UInt8], 1, 7),  // a lone 0xFF in a string
        (Array("{\n  a: \"é".utf8) + [0xC3] + Array("\" }".utf8), 2, 8),  // a truncated two-byte sequence
        (Array("{ a: 1 } // ".utf8) + [0xC0, 0x80], 1, 13),  // an overlong encoding in a comment
        (Array("{ a: \"".utf8) + [0xED, 0xA0, 0x80] + Array("\" }".utf8), 1, 7),  // a UTF-16 surrogate
    ])
    func invalidUTF8(bytes: [UInt8], line: Int, column: Int) throws {
        let error = try #require(JSON5Syntax.check(bytes))
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.message.hasPrefix("invalid UTF-8 (byte 0x"))
    }

    @Test(arguments: [
        // From https://spec.json5.org: comments, unquoted and single-quoted keys and strings,
        // trailing commas, hex, leading/trailing decimal points, +, Infinity, NaN, line continuations.
        """
        // comments
        {
          unquoted: 'and you can quote me on that',
          singleQuotes: 'I can use "double quotes" here',
          lineBreaks: "Look, Mom! \\
        No \\\\n's!",
          hexadecimal: 0xdecaf,
          leadingDecimalPoint: .8675309, andTrailing: 8675309.,
          positiveSign: +1,
          trailingComma: 'in objects', andIn: ['arrays',],
          "backwardsCompatible": "with JSON",
          infinity: -Infinity, nan: NaN, exp: 6.02e+23, zero: 0, neg: -0.5e-3,
          escapes: "\\t\\n\\r\\b\\f\\v\\0\\'\\"\\\\\\x41\\u00e9\\q",
          $dollar_under: null, t: true, f: false, nested: { a: [ {}, [], [[]] ] },
          \\u0061bc: 1, 'é': 2, naïve: 3, /* inline */ last: "x" /* end */
        }
        """,
        "\u{FEFF}{}\r\n",
        "[1, 2, 3,]",
        "\"just a string\"",
    ])
    func valid(text: String) {
        #expect(JSON5Syntax.check(Array(text.utf8)) == nil, "\(String(describing: JSON5Syntax.check(Array(text.utf8))))")
    }

    /// Every config the project ships passes (the checker runs before every load).
    @Test func shippedConfigsPass() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var files = [root.appendingPathComponent("config/linkwell.json5")]
        for dir in ["config/examples", "docs/examples"] {
            let url = root.appendingPathComponent(dir)
            files += (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil))?.filter { $0.pathExtension == "json5" } ?? []
        }
        #expect(files.count >= 5)
        for file in files where !file.lastPathComponent.hasPrefix("broken") {
            let bytes = try [UInt8](Data(contentsOf: file))
            #expect(JSON5Syntax.check(bytes) == nil, "\(file.lastPathComponent): \(String(describing: JSON5Syntax.check(bytes)))")
        }
    }

    /// What `linkwell validate` prints: file:line:column, the line and a caret under the column.
    @Test func diagnosticShowsLineAndCaret() throws {
        let text = "{\n\tsites: [\n\t\t{ domains: [\"example.com\"] routes: [] },\n\t],\n}\n"
        do {
            _ = try ConfigLoader.decode(Data(text.utf8), file: "my.json5")
            Issue.record("decoded a broken config")
        } catch {
            #expect(
                error.description == """
                    my.json5:3:29: error: expected ',' or '}' after the value of 'domains', found 'routes'
                      3 | \t\t{ domains: ["example.com"] routes: [] },
                        | \t\t                          ^
                        fix: add a ',' between the members (JSON5 allows one after the last, too)
                    """)
        }
    }

    @Test(arguments: [
        (#"fallback: { ios: "stor" }"#, "sites[0].fallback.ios", "'stor' is not one of the allowed values: landing, store, web", "did you mean 'store'?"),
        (#"aasa: { format: "modren" }"#, "sites[0].aasa.format", "'modren' is not one of the allowed values: modern, legacy, both", "did you mean 'modern'?"),
        (#"aasa: { format: "v2" }"#, "sites[0].aasa.format", "'v2' is not one of the allowed values: modern, legacy, both", "use one of modern, legacy, both"),
    ])
    func enumErrorsListTheAllowedValues(member: String, path: String, message: String, fix: String) throws {
        let text = #"{ sites: [ { domains: ["example.com"], \#(member), ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app" }], routes: [] } ] }"#
        do {
            _ = try ConfigLoader.decode(Data(text.utf8), file: "t.json5")
            Issue.record("decoded")
        } catch {
            let d = try #require(error.diagnostics.first)
            #expect(d.path == path && d.message == message, "\(d)")
            #expect(d.fix?.hasPrefix(fix) == true, "\(d)")
        }
    }

    @Test func missingKeyNamesTheTypo() throws {
        let text = #"{ sites: [ { domains: ["example.com"], ios: [{ teamID: "ABCDE12345", bundleId: "com.example.app" }], routes: [] } ] }"#
        do {
            _ = try ConfigLoader.decode(Data(text.utf8), file: "t.json5")
            Issue.record("decoded")
        } catch {
            #expect(error.diagnostics.map(\.path) == ["sites[0].ios[0]", "sites[0].ios[0].bundleId"])
            #expect(error.diagnostics[0].fix == "the object has 'bundleId': did you mean 'bundleID'? (keys are case-sensitive)")
            #expect(error.diagnostics[1].severity == .warning && error.diagnostics[1].fix == "did you mean 'bundleID'?")
        }
    }
}
