// A JSON value that keeps what the platforms' parsers care about and Foundation hides:
// object member order, duplicate keys, and the difference between `1`, `true` and `"1"`.
// Used by the platform matchers (which must read any file, however odd) and by the
// generators (which must write deterministic bytes).

/// One JSON value. Objects keep their members in document order, duplicates included.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its source text so `1` and `1.0` stay distinguishable.
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object: its members in document order, duplicate keys kept (Android and Apple read duplicates differently).
    case object([(key: String, value: JSONValue)])

    /// Structural equality: numbers compare as text (`1` ≠ `1.0`), objects member by member in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member for `key`; with duplicate keys, the last one (what most parsers keep).
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The string, when the value is one.
    public var stringValue: String? { if case let .string(s) = self { return s } else { return nil } }
    /// The boolean, when the value is one.
    public var boolValue: Bool? { if case let .bool(b) = self { return b } else { return nil } }
    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? { if case let .array(a) = self { return a } else { return nil } }
    /// The members in document order, when the value is an object.
    public var objectValue: [(key: String, value: JSONValue)]? {
        if case let .object(o) = self { return o } else { return nil }
    }

    /// A short name of the value's type, for error messages ("a number", "an object").
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

// MARK: - Building values from Swift

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` in Swift source is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `true` / `false` in Swift source is a JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `42` in Swift source is a JSON number (its decimal text).
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// `[…]` in Swift source is a JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `["key": value, …]` in Swift source is a JSON object, members in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
    /// `nil` in Swift source is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Strict parsing (RFC 8259)

/// Why a document is not strict JSON, with the position a person can find it at.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong (`trailing comma before ']'`).
    public var message: String
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column of the problem, counted in Unicode scalars (not bytes).
    public var column: Int
    /// `line 1, column 7: trailing comma before ']'`.
    public var description: String { "line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Parses strict RFC 8259 JSON: no comments, no trailing commas, no byte-order mark,
    /// no single quotes, no NaN. This is what Apple's and Android's verifiers accept.
    ///
    /// ```swift
    /// let value = try JSONValue.parse(#"{"id": 45, "tags": ["a", "b"]}"#)
    /// value["id"]                         // .number("45")
    /// value["tags"]?.arrayValue?.count    // 2
    /// try JSONValue.parse("[1, 2,]")      // throws JSONSyntaxError: line 1, column 7: trailing comma before ']'
    /// ```
    /// - Throws: ``JSONSyntaxError`` with the line and column of the first problem.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses strict JSON from UTF-8 bytes (an HTTP body, a file); the same rules as the `String` version.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = StrictJSONParser(bytes: bytes)
        return try parser.parseDocument()
    }
}

private struct StrictJSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? index, bytes.count)
        var line = 1
        var column = 1
        var i = 0
        while i < end {
            if bytes[i] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw error("the file starts with a UTF-8 byte-order mark; save it without a BOM", at: 0)
        }
        if String(validating: bytes, as: UTF8.self) == nil {
            throw error("the file is not valid UTF-8", at: 0)
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describe(bytes[index])) after the end of the JSON value")
        }
        return value
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of the document") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "/"): throw error("comments are not allowed in JSON")
        case UInt8(ascii: "'"): throw error("strings must use double quotes")
        default: throw error("unexpected \(describe(bytes[index]))")
        }
    }

    mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
            throw error("unexpected \(describe(bytes[index]))")
        }
        index += w.count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 512 { throw error("nesting deeper than 512 levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        defer { depth -= 1 }
        var members: [(key: String, value: JSONValue)] = []
        if try opensEmpty(closingWith: "}") { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of the document inside an object") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
                throw error("expected a member name in double quotes, found \(describe(bytes[index]))")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key: key, value: value))
            if try closes(with: "}", inside: "an object") { return .object(members) }
        }
    }

    /// At an object's or array's opening bracket: one level deeper, the bracket consumed; true
    /// when `close` follows at once (an empty container, consumed too). The caller leaves the
    /// level when it returns.
    mutating func opensEmpty(closingWith close: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        try enter()
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: close) else { return false }
        index += 1
        return true
    }

    /// After a member or an element: false at a ',' (another follows), true at `close` (the
    /// container ends); both consumed.
    mutating func closes(with close: Unicode.Scalar, inside container: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of the document inside \(container)") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        if bytes[index] == UInt8(ascii: close) {
            index += 1
            return true
        }
        throw error("expected ',' or '\(close)' in \(container), found \(describe(bytes[index]))")
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if try opensEmpty(closingWith: "]") { return .array(elements) }
        while true {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
            elements.append(try parseValue())
            if try closes(with: "]", inside: "an array") { return .array(elements) }
        }
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("numbers must not have leading zeros") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a decimal point needs digits after it") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw error("control character in a string; escape it") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'")
            }
        }
    }
}

// MARK: - Deterministic serialisation

extension JSONValue {
    /// How ``serialized(_:sortKeys:)`` spaces its output.
    public enum Layout: Sendable {
        /// No whitespace at all.
        case compact
        /// Two-space indentation, one member per line; what a person reads with `curl`.
        case pretty
    }

    /// Deterministic text: object keys sorted by their UTF-8 bytes (duplicates keep their order),
    /// `/` never escaped, non-ASCII written as UTF-8, a trailing newline in the pretty layout.
    public func serialized(_ layout: Layout = .pretty, sortKeys: Bool = true) -> String {
        var out = ""
        write(into: &out, layout: layout, sortKeys: sortKeys, indent: 0)
        if layout == .pretty { out += "\n" }
        return out
    }

    private func write(into out: inout String, layout: Layout, sortKeys: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): out += n
        case let .string(s): JSONValue.writeString(s, into: &out)
        case let .array(elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                if layout == .pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(into: &out, layout: layout, sortKeys: sortKeys, indent: indent + 1)
            }
            if layout == .pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case let .object(members):
            if members.isEmpty {
                out += "{}"
                return
            }
            let ordered = sortKeys ? JSONValue.stableSorted(members) : members
            out += "{"
            for (i, member) in ordered.enumerated() {
                if i > 0 { out += "," }
                if layout == .pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSONValue.writeString(member.key, into: &out)
                out += layout == .pretty ? ": " : ":"
                member.value.write(into: &out, layout: layout, sortKeys: sortKeys, indent: indent + 1)
            }
            if layout == .pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    private static func stableSorted(_ members: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
        members.enumerated().sorted { a, b in
            let ka = Array(a.element.key.utf8)
            let kb = Array(b.element.key.utf8)
            if ka != kb { return ka.lexicographicallyPrecedes(kb) }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// How a string literal is escaped beyond the required `"`, `\` and control characters.
    public enum StringEscaping: Sendable {
        /// This project's output: U+2028 and U+2029 escaped too (JavaScript line terminators), `/` kept.
        case standard
        /// org.json's `JSONStringer` (what Android's StatementService prints): `/` escaped, U+2028/9 kept.
        case orgJSON
    }

    /// Appends `s` to `out` as a JSON string literal (quotes included; control characters escaped).
    public static func writeString(_ s: String, escaping: StringEscaping = .standard, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escaping == .orgJSON: out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || (escaping == .standard && (scalar.value == 0x2028 || scalar.value == 0x2029)) {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
