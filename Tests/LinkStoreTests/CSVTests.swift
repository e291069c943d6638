// The RFC 4180 reader and writer, table-driven: quoting, doubled quotes, embedded commas and
// line breaks, CRLF/LF, the byte-order mark, blank lines, a missing final line break, and the
// errors with their line and column.

import Testing

@testable import LinkStore

@Suite("CSV (RFC 4180)")
struct CSVTests {
    @Test(arguments: [
        ("a,b,c\r\n1,2,3\r\n", [["a", "b", "c"], ["1", "2", "3"]]),
        ("a,b\n1,2\n", [["a", "b"], ["1", "2"]]),
        ("a,b\n1,2", [["a", "b"], ["1", "2"]]),  // no final line break
        ("\u{FEFF}a,b\r\n1,2\r\n", [["a", "b"], ["1", "2"]]),  // BOM skipped
        ("\"a,b\",c\r\n", [["a,b", "c"]]),  // embedded comma
        ("\"say \"\"hi\"\"\",x\r\n", [["say \"hi\"", "x"]]),  // doubled quotes
        ("\"two\r\nlines\",x\r\n", [["two\r\nlines", "x"]]),  // embedded CRLF
        ("\"two\nlines\",x\n", [["two\nlines", "x"]]),  // embedded LF
        ("a,,c\r\n,,\r\n", [["a", "", "c"], ["", "", ""]]),  // empty fields
        ("\"\",x\r\n", [["", "x"]]),  // empty quoted field
        ("a\r\n\r\nb\r\n", [["a"], ["b"]]),  // blank line skipped
        ("x,\"end\"", [["x", "end"]]),  // quoted last field, no line break
        ("x,\"end\"\r\n", [["x", "end"]]),
        ("é,日本\r\n", [["é", "日本"]]),  // UTF-8
        ("a b , c\r\n", [["a b ", " c"]]),  // spaces are data
        ("a\rb,c\r\n", [["a\rb", "c"]]),  // a lone CR inside an unquoted field is data
        ("", []),
    ])
    func parses(text: String, expected: [[String]]) throws {
        var bytes = Array(text.utf8)
        if text.hasPrefix("\u{FEFF}") { bytes = [0xEF, 0xBB, 0xBF] + Array(text.dropFirst().utf8) }
        #expect(try CSV.parse(bytes).map(\.fields) == expected)
    }

    @Test func rowsAndLinesAreCountedAcrossQuotedLineBreaks() throws {
        let records = try CSV.parse(Array("h1,h2\r\n\"a\r\nb\r\nc\",x\r\nlast,y\r\n".utf8))
        #expect(records.map(\.row) == [1, 2, 3])
        #expect(records.map(\.line) == [1, 2, 5])
    }

    @Test(arguments: [
        ("a,\"open\r\n", 1, 3, "never closed"),
        ("a,b\r\nx\"y,z\r\n", 2, 2, "a quote inside an unquoted field"),
        ("\"q\"x,b\r\n", 1, 4, "text after a closing quote"),
        ("ok\r\n\"a\nb\"c\r\n", 3, 3, "text after a closing quote"),
    ])
    func errorsNameLineAndColumn(text: String, line: Int, column: Int, message: String) {
        #expect {
            try CSV.parse(Array(text.utf8))
        } throws: { error in
            guard let e = error as? CSVError else { return false }
            return e.line == line && e.column == column && e.message.contains(message)
        }
    }

    @Test(arguments: [
        ["plain", "with,comma", "with \"quote\"", "two\r\nlines", "lf\nonly", "", " padded ", "日本"],
        ["", "", ""],
    ])
    func writtenFieldsReadBack(fields: [String]) throws {
        let text = CSV.record(fields) + CSV.record(["x"])
        #expect(try CSV.parse(Array(text.utf8)).map(\.fields) == [fields, ["x"]])
    }
}
