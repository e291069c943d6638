// The console's CSV export: RFC 4180 records (CRLF, fields quoted only when they must be, quotes
// doubled) with cells a spreadsheet would run as a formula prefixed with '.

import Testing

@testable import LinkServer

@Suite struct ConsoleCSVTests {
    @Test(arguments: [
        (["a", "b"], "a,b\r\n"),
        (["has,comma", "has \"quote\""], "\"has,comma\",\"has \"\"quote\"\"\"\r\n"),
        (["two\nlines", ""], "\"two\nlines\",\r\n"),
        (["=1+2", "+1", "-1", "@SUM(A1)", "\tx"], "'=1+2,'+1,'-1,'@SUM(A1),'\tx\r\n"),
        (["=HYPERLINK(\"http://x\"), y"], "\"'=HYPERLINK(\"\"http://x\"\"), y\"\r\n"),
        (["a=b", "https://x/?q=-1"], "a=b,https://x/?q=-1\r\n"),
    ])
    func records(fields: [String], line: String) {
        #expect(Console.csvRow(fields) == line)
    }
}
