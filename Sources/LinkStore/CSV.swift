// RFC 4180 CSV, read and written without Foundation's help: quoted fields with embedded commas,
// quotes ("") and line breaks, CRLF or LF records, a UTF-8 byte-order mark skipped, a missing
// final line break accepted. Used by the Takeout importer and `links import/export`.

/// One CSV record with where it started (for error messages: "row 7 (line 9)").
public struct CSVRecord: Sendable, Equatable {
    public var fields: [String]
    /// 1-based record number (the header is row 1).
    public var row: Int
    /// 1-based line of the file the record starts on (quoted line breaks make it differ from `row`).
    public var line: Int
}

/// What is wrong with a CSV file, with its position.
public struct CSVError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}

public enum CSV {
    /// Parses `bytes` into records. Strict where RFC 4180 is: a quote inside an unquoted field,
    /// text after a closing quote, or an unterminated quoted field is an error naming the line
    /// and column. Empty lines between records are skipped.
    public static func parse(_ bytes: [UInt8]) throws(CSVError) -> [CSVRecord] {
        var records: [CSVRecord] = []
        try parse(bytes) { (r: CSVRecord) throws(CSVError) in records.append(r) }
        return records
    }

    /// Parses `bytes`, handing each record to `body` as soon as it is complete (a 100,000-row
    /// file is never held as records all at once).
    public static func parse(_ bytes: [UInt8], _ body: (CSVRecord) throws(CSVError) -> Void) throws(CSVError) {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var i = 0
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        var line = 1
        var lineStart = i
        var row = 0
        var fields: [String] = []
        var field: [UInt8] = []
        var recordLine = 1
        var atRecordStart = true

        func column(_ at: Int) -> Int { at - lineStart + 1 }
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        func endRecord() throws(CSVError) {
            endField()
            row += 1
            let record = CSVRecord(fields: fields, row: row, line: recordLine)
            fields.removeAll(keepingCapacity: true)
            atRecordStart = true
            try body(record)
        }

        while i < n {
            if atRecordStart {
                // Skip blank lines between records.
                if bytes[i] == lf { i += 1; line += 1; lineStart = i; continue }
                if bytes[i] == cr, i + 1 < n, bytes[i + 1] == lf { i += 2; line += 1; lineStart = i; continue }
                atRecordStart = false
                recordLine = line
            }
            let b = bytes[i]
            if b == quote && field.isEmpty {
                // A quoted field: up to the closing quote, "" is one quote.
                let openLine = line, openColumn = column(i)
                i += 1
                var closed = false
                while i < n {
                    let c = bytes[i]
                    if c == quote {
                        if i + 1 < n, bytes[i + 1] == quote { field.append(quote); i += 2; continue }
                        closed = true
                        i += 1
                        break
                    }
                    if c == lf { line += 1; lineStart = i + 1 }
                    field.append(c)
                    i += 1
                }
                guard closed else {
                    throw CSVError(line: openLine, column: openColumn, message: "a quoted field opened here is never closed; end it with '\"' (a quote inside a field is written '\"\"')")
                }
                if i < n, bytes[i] != comma, bytes[i] != lf, !(bytes[i] == cr && i + 1 < n && bytes[i + 1] == lf), !(bytes[i] == cr && i + 1 == n) {
                    throw CSVError(line: line, column: column(i), message: "text after a closing quote; put the whole field in quotes and write a quote inside it as '\"\"'")
                }
                continue
            }
            switch b {
            case comma:
                endField()
                i += 1
            case lf:
                try endRecord()
                i += 1
                line += 1
                lineStart = i
            case cr where i + 1 < n && bytes[i + 1] == lf:
                try endRecord()
                i += 2
                line += 1
                lineStart = i
            case cr where i + 1 == n:
                i += 1
            case quote:
                throw CSVError(line: line, column: column(i), message: "a quote inside an unquoted field; put the whole field in quotes and write the quote as '\"\"'")
            default:
                field.append(b)
                i += 1
            }
        }
        if !atRecordStart { try endRecord() }
    }

    /// One field as RFC 4180 writes it: quoted when it holds a comma, a quote, CR or LF (or
    /// starts or ends with a space), quotes doubled.
    public static func field(_ s: String) -> String {
        let needs = s.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || s.hasPrefix(" ") || s.hasSuffix(" ")
        guard needs else { return s }
        var out = "\""
        for c in s { if c == "\"" { out += "\"\"" } else { out.append(c) } }
        return out + "\""
    }

    /// A record: fields joined with commas, ended with CRLF.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }
}
