// android.util.JsonReader with `lenient = false`, as StatementParser drives it, plus AOSP's
// JsonParser on top (which copies each statement into org.json and refuses numbers, nulls and
// booleans inside arrays). It differs from RFC 8259 (and from `JSONValue.parse`) in both
// directions, and those differences are reproduced here:
//
// - accepted: `;` between object members; `TRUE`, `False`, `NULL` in any case; raw control
//   characters and unknown escapes (`\a` → `a`) inside strings; `\u` with a sign (`\u+04A`);
//   anything after the closing `]` of the statement list (the reader never looks at it);
// - rejected: a byte-order mark (it is read as an unquoted value), comments, trailing commas,
//   single quotes, unquoted names or values, `=` for `:`, and — from JsonParser — any number or
//   null inside a statement, and booleans inside arrays.
//
// The body is decoded as UTF-8 with U+FFFD for malformed bytes (Kotlin `readText()`), and the
// reader works on UTF-16 units like Java.

import LinkwellJSON
struct AssetLinksReader {
    private let text: [UInt16]
    private var pos = 0
    private var depth = 0
    private var statementIndex: Int?
    private var path: [PathStep] = []

    enum PathStep {
        case key(String)
        case index(Int)
    }

    init(bytes: [UInt8]) {
        text = Array(String(decoding: bytes, as: UTF8.self).utf16)
    }

    /// Whether anything but whitespace follows the position (after the statement list).
    var hasTrailingContent: Bool {
        text[pos...].contains { $0 != Unit.space && $0 != Unit.tab && $0 != Unit.newline && $0 != Unit.carriageReturn }
    }

    // MARK: Statement list

    /// `reader.beginArray()` on a fresh document.
    mutating func beginStatementList() throws(AssetLinksRejection) {
        if text.first == 0xFEFF {
            throw syntax(
                "the file starts with a byte-order mark (U+FEFF), which Android's JSON reader takes for an unquoted value",
                fix: "save the file as UTF-8 without a BOM", at: 0)
        }
        var probe = pos
        while probe < text.count, [Unit.space, Unit.tab, Unit.newline, Unit.carriageReturn].contains(text[probe]) { probe += 1 }
        if probe == text.count {
            throw AssetLinksRejection(
                kind: .notAStatementList, problem: "the file is empty",
                fix: "serve a JSON array of statements; [] if there is nothing to declare")
        }
        let c = try nextNonWhitespace()
        if c == Unit.openBracket { return }
        pos -= 1
        if c == Unit.openBrace {
            throw AssetLinksRejection(
                kind: .notAStatementList, line: location(pos).line, column: location(pos).column,
                problem: "the file is a single JSON object, but Android reads a JSON array of statements",
                fix: "wrap the statement in [ ... ]")
        }
        throw AssetLinksRejection(
            kind: .notAStatementList, line: location(pos).line, column: location(pos).column,
            problem: "the file starts with \(describeValueStart(c)), but Android reads a JSON array of statements",
            fix: "make the whole file one JSON array: [{\"relation\": [...], \"target\": {...}}]")
    }

    /// `reader.hasNext()` inside the statement list; false after consuming the closing `]`.
    mutating func hasNextStatement(first: Bool) throws(AssetLinksRejection) -> Bool {
        statementIndex = nil
        path = []
        return try arrayHasNext(first: first)
    }

    /// `JsonParser.parse(reader)` for one element of the statement list.
    mutating func readStatement(index: Int) throws(AssetLinksRejection) -> AndroidJSONObject {
        statementIndex = index
        path = []
        let c = try nextNonWhitespace()
        guard c == Unit.openBrace else {
            pos -= 1
            throw AssetLinksRejection(
                kind: .statementNotAnObject, statementIndex: index,
                line: location(pos).line, column: location(pos).column,
                problem: "the statement is \(describeValueStart(c)), not an object",
                fix: "every element of the top-level array must be a statement object {\"relation\": [...], \"target\": {...}}")
        }
        return try readObjectBody()
    }

    // MARK: Values

    private mutating func readValue(inArray: Bool) throws(AssetLinksRejection) -> AndroidJSON {
        let c = try nextNonWhitespace()
        let start = pos - 1
        switch c {
        case Unit.openBrace: return .object(try readObjectBody())
        case Unit.openBracket: return .array(try readArrayBody())
        case Unit.quote: return .string(try readString())
        case Unit.apostrophe:
            throw syntax("a single-quoted string", fix: "use double quotes", at: start)
        default:
            pos -= 1
            switch try readLiteral() {
            case let .bool(b):
                if inArray {
                    throw unsupported(
                        "a boolean inside an array (AOSP's JsonParser accepts only strings, objects and arrays there)",
                        fix: "remove it or write it as a string", at: start)
                }
                return .bool(b)
            case .null:
                throw unsupported(
                    "null (AOSP's JsonParser refuses null anywhere in a statement)",
                    fix: "remove the member or give it a string value", at: start)
            case let .number(n):
                throw unsupported(
                    "the number \(n) (AOSP's JsonParser refuses numbers anywhere in a statement)",
                    fix: "write it as a string (\"\(n)\") or remove it", at: start)
            }
        }
    }

    private mutating func enter(at start: Int) throws(AssetLinksRejection) {
        depth += 1
        if depth > 512 { throw syntax("nesting deeper than 512 levels", fix: "flatten the document", at: start) }
    }

    private mutating func readObjectBody() throws(AssetLinksRejection) -> AndroidJSONObject {
        try enter(at: pos - 1)
        defer { depth -= 1 }
        var object = AndroidJSONObject()
        var first = true
        while let name = try nextName(first: first) {
            first = false
            path.append(.key(name))
            let value = try readValue(inArray: false)
            path.removeLast()
            object.put(name, value)
        }
        return object
    }

    private mutating func readArrayBody() throws(AssetLinksRejection) -> [AndroidJSON] {
        try enter(at: pos - 1)
        defer { depth -= 1 }
        var elements: [AndroidJSON] = []
        var first = true
        while try arrayHasNext(first: first) {
            first = false
            path.append(.index(elements.count))
            elements.append(try readValue(inArray: true))
            path.removeLast()
        }
        return elements
    }

    /// JsonReader.nextInArray: consumes the separator; false after consuming `]`.
    private mutating func arrayHasNext(first: Bool) throws(AssetLinksRejection) -> Bool {
        if !first {
            let c = try nextNonWhitespace()
            switch c {
            case Unit.closeBracket: return false
            case Unit.comma: break
            case Unit.semicolon:
                throw syntax("';' between array elements", fix: "separate array elements with ','", at: pos - 1)
            default:
                throw syntax(
                    "\(describeUnit(c)) where ',' or ']' should follow an array element",
                    fix: "separate array elements with ',' and close the array with ']'", at: pos - 1)
            }
        }
        let c = try nextNonWhitespace()
        switch c {
        case Unit.closeBracket:
            if first { return false }
            throw syntax("a trailing comma before ']'", fix: "remove the comma after the last element", at: pos - 1)
        case Unit.comma, Unit.semicolon:
            throw syntax("an empty array element (two separators in a row)", fix: "remove the extra separator", at: pos - 1)
        default:
            pos -= 1
            return true
        }
    }

    /// JsonReader.nextInObject + objectValue: the next member name (after its `:`), nil after `}`.
    private mutating func nextName(first: Bool) throws(AssetLinksRejection) -> String? {
        let c = try nextNonWhitespace()
        if c == Unit.closeBrace { return nil }
        if first {
            pos -= 1
        } else if c != Unit.comma && c != Unit.semicolon {
            throw syntax(
                "\(describeUnit(c)) where ',' or '}' should follow an object member",
                fix: "separate members with ',' and close the object with '}'", at: pos - 1)
        }
        let q = try nextNonWhitespace()
        let name: String
        switch q {
        case Unit.quote:
            name = try readString()
        case Unit.apostrophe:
            throw syntax("a single-quoted member name", fix: "use double quotes", at: pos - 1)
        case Unit.closeBrace:
            throw syntax("a trailing comma before '}'", fix: "remove the comma after the last member", at: pos - 1)
        default:
            throw syntax(
                "\(describeUnit(q)) where a member name in double quotes should be",
                fix: "quote member names: \"relation\": [...]", at: pos - 1)
        }
        let colon = try nextNonWhitespace()
        guard colon == Unit.colon else {
            let fix = colon == Unit.equals ? "use ':' between a name and its value" : "put ':' after the member name"
            throw syntax("\(describeUnit(colon)) after the member name \"\(name)\" instead of ':'", fix: fix, at: pos - 1)
        }
        return name
    }

    /// JsonReader.nextString after the opening quote.
    private mutating func readString() throws(AssetLinksRejection) -> String {
        let start = pos - 1
        var out: [UInt16] = []
        while pos < text.count {
            let c = text[pos]
            pos += 1
            if c == Unit.quote { return String(decoding: out, as: UTF16.self) }
            guard c == Unit.backslash else {
                out.append(c)
                continue
            }
            guard pos < text.count else { break }
            let e = text[pos]
            pos += 1
            switch e {
            case 0x75:  // u
                guard pos + 4 <= text.count else {
                    throw syntax("an unterminated \\u escape", fix: "write \\u followed by four hex digits", at: pos - 2)
                }
                guard let value = javaParseInt(text[pos..<pos + 4], radix: 16) else {
                    throw syntax(
                        "an invalid \\u escape \"\\u\(String(decoding: text[pos..<pos + 4], as: UTF16.self))\"",
                        fix: "write \\u followed by four hex digits", at: pos - 2)
                }
                pos += 4
                out.append(UInt16(truncatingIfNeeded: value))
            case 0x74: out.append(Unit.tab)  // t
            case 0x62: out.append(0x08)  // b
            case 0x6E: out.append(Unit.newline)  // n
            case 0x72: out.append(Unit.carriageReturn)  // r
            case 0x66: out.append(Unit.formFeed)  // f
            default: out.append(e)  // \" \\ \/ and any other character stand for themselves
            }
        }
        throw syntax("an unterminated string", fix: "close the string with '\"'", at: start)
    }

    private enum Literal {
        case null
        case bool(Bool)
        case number(String)
    }

    /// JsonReader.nextLiteral + decodeLiteral.
    private mutating func readLiteral() throws(AssetLinksRejection) -> Literal {
        let start = pos
        scan: while pos < text.count {
            switch text[pos] {
            case Unit.slash, Unit.backslash, Unit.semicolon, Unit.hash, Unit.equals:
                let what = text[pos] == Unit.slash || text[pos] == Unit.hash ? " (comments are not allowed)" : ""
                throw syntax("\(describeUnit(text[pos])) outside a string\(what)", fix: "remove it, or quote the value", at: pos)
            case Unit.openBrace, Unit.closeBrace, Unit.openBracket, Unit.closeBracket, Unit.colon, Unit.comma,
                Unit.space, Unit.tab, Unit.formFeed, Unit.carriageReturn, Unit.newline:
                break scan
            default:
                pos += 1
            }
        }
        let literal = Array(text[start..<pos])
        if literal.isEmpty {
            throw syntax("\(pos < text.count ? describeUnit(text[pos]) : "the end of the file") where a value should be",
                         fix: "give the member a value", at: start)
        }
        func equalsIgnoringCase(_ word: String) -> Bool {
            literal.count == word.utf16.count
                && zip(literal, word.utf16).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0) == $1 }
        }
        if equalsIgnoringCase("null") { return .null }
        if equalsIgnoringCase("true") { return .bool(true) }
        if equalsIgnoringCase("false") { return .bool(false) }
        let string = String(decoding: literal, as: UTF16.self)
        if Self.isJSONNumber(literal) { return .number(string) }
        throw syntax("the unquoted text \(string.debugDescription)", fix: "put strings in double quotes", at: start)
    }

    /// JsonReader.decodeNumber: -?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]+)?
    private static func isJSONNumber(_ s: [UInt16]) -> Bool {
        var i = 0
        func peek() -> UInt16 { i < s.count ? s[i] : 0 }
        func isDigit(_ c: UInt16) -> Bool { c >= Unit.zero && c <= Unit.nine }
        if peek() == Unit.minus { i += 1 }
        if peek() == Unit.zero {
            i += 1
        } else if isDigit(peek()) {
            while isDigit(peek()) { i += 1 }
        } else {
            return false
        }
        if peek() == Unit.dot {
            i += 1
            while isDigit(peek()) { i += 1 }
        }
        if peek() == 0x65 || peek() == 0x45 {
            i += 1
            if peek() == Unit.plus || peek() == Unit.minus { i += 1 }
            guard isDigit(peek()) else { return false }
            while isDigit(peek()) { i += 1 }
        }
        return i == s.count
    }

    /// JsonReader.nextNonWhitespace in strict mode.
    private mutating func nextNonWhitespace() throws(AssetLinksRejection) -> UInt16 {
        while pos < text.count {
            let c = text[pos]
            pos += 1
            switch c {
            case Unit.tab, Unit.space, Unit.newline, Unit.carriageReturn:
                continue
            case Unit.slash:
                if pos == text.count { return c }
                throw syntax("a comment ('/' outside a string)", fix: "remove the comment; JSON has no comments", at: pos - 1)
            case Unit.hash:
                throw syntax("a '#' comment", fix: "remove the comment; JSON has no comments", at: pos - 1)
            default:
                return c
            }
        }
        throw syntax("the file ends too early (unclosed '[', '{' or '\"')", fix: "close every array, object and string", at: text.count)
    }

    // MARK: Messages

    private func describeUnit(_ c: UInt16) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(UnicodeScalar(UInt8(c))))'" }
        let hex = String(c, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private func describeValueStart(_ c: UInt16) -> String {
        switch c {
        case Unit.openBracket: return "an array"
        case Unit.openBrace: return "an object"
        case Unit.quote: return "a string"
        case Unit.apostrophe: return "a single-quoted string"
        case 0x74, 0x66, 0x54, 0x46: return "a boolean"
        case 0x6E, 0x4E: return "null"
        case Unit.minus, Unit.zero...Unit.nine: return "a number"
        default: return "\(describeUnit(c))"
        }
    }

    private func location(_ at: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for u in text[..<min(at, text.count)] {
            if u == Unit.newline {
                line += 1
                column = 1
            } else if !(0xDC00...0xDFFF).contains(u) {
                column += 1
            }
        }
        return (line, column)
    }

    private var field: String? { AssetLinksRejection.fieldName(path) }

    private func syntax(_ problem: String, fix: String, at: Int) -> AssetLinksRejection {
        let (line, column) = location(at)
        return AssetLinksRejection(
            kind: .syntax, statementIndex: statementIndex, field: field, line: line, column: column,
            problem: problem, fix: fix)
    }

    private func unsupported(_ problem: String, fix: String, at: Int) -> AssetLinksRejection {
        let (line, column) = location(at)
        return AssetLinksRejection(
            kind: .unsupportedValue, statementIndex: statementIndex, field: field, line: line, column: column,
            problem: "the value is " + problem, fix: fix)
    }
}
