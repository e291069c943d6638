// A strict JSON5 syntax check (https://spec.json5.org) that says where a config goes wrong:
// line, column, the offending line and what was expected. Foundation's decoder on Linux only says
// "The given data was not valid JSON", so ConfigLoader runs this first. It builds no values.

/// A JSON5 syntax error at a position (1-based line and column; the column counts characters).
public struct JSON5SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in Unicode characters (a tab is one).
    public var column: Int
    /// What is wrong and what was expected: `expected ',' or '}' after the value of 'teamID', found 'bundleID'`.
    public var message: String
    /// How to fix it.
    public var fix: String
    /// The text of the offending line (without its line break), for the caret display.
    public var sourceLine: String

    /// `7:9: expected …`.
    public var description: String { "\(line):\(column): \(message)" }
}

/// The JSON5 syntax checker.
public enum JSON5Syntax {
    struct Position {
        var offset: Int
        var line: Int
        var column: Int
    }

    struct Failure: Error {
        var at: Position
        var message: String
        var fix: String
    }

    struct Scanner {
        let bytes: [UInt8]
        var pos = Position(offset: 0, line: 1, column: 1)
        var depth = 0
        /// Where the root object's `sites` list stands (the first `sites` key, the one the
        /// decoder reads), and each of its items: a reload compares them with the previous file's.
        var sitesList: Range<Int>? = nil
        var siteItems: [Range<Int>] = []
        /// Set just before the value of the root's `sites` key; `value` hands it to `array`.
        var collectSites = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        // MARK: Characters

        /// The Unicode scalar at the current offset and its length in bytes; nil at the end.
        /// Throws on invalid UTF-8 (with the position of the bad byte).
        func peek() throws(Failure) -> (scalar: UInt32, length: Int)? {
            try decode(at: pos)
        }

        func decode(at p: Position) throws(Failure) -> (scalar: UInt32, length: Int)? {
            let i = p.offset
            guard i < bytes.count else { return nil }
            let b0 = bytes[i]
            if b0 < 0x80 { return (UInt32(b0), 1) }
            let length: Int
            var scalar: UInt32
            switch b0 {
            case 0xC2...0xDF: length = 2; scalar = UInt32(b0 & 0x1F)
            case 0xE0...0xEF: length = 3; scalar = UInt32(b0 & 0x0F)
            case 0xF0...0xF4: length = 4; scalar = UInt32(b0 & 0x07)
            default: throw invalidUTF8(p, byte: b0)
            }
            guard i + length <= bytes.count else { throw invalidUTF8(p, byte: b0) }
            for k in 1..<length {
                let b = bytes[i + k]
                guard b & 0xC0 == 0x80 else { throw invalidUTF8(p, byte: b0) }
                scalar = scalar << 6 | UInt32(b & 0x3F)
            }
            let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { throw invalidUTF8(p, byte: b0) }
            return (scalar, length)
        }

        func invalidUTF8(_ p: Position, byte: UInt8) -> Failure {
            Failure(
                at: p, message: "invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))",
                fix: "save the file as UTF-8 (iconv -f LATIN1 -t UTF-8, or your editor's 'Save with encoding')")
        }

        static func isLineTerminator(_ c: UInt32) -> Bool { c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029 }

        /// Moves past one character, keeping line and column.
        mutating func advance() throws(Failure) {
            guard let (c, n) = try peek() else { return }
            pos.offset += n
            if Self.isLineTerminator(c) {
                if c == 0x0D, pos.offset < bytes.count, bytes[pos.offset] == 0x0A { pos.offset += 1 }
                pos.line += 1
                pos.column = 1
            } else {
                pos.column += 1
            }
        }

        func peekASCII() throws(Failure) -> UInt8? {
            guard let (c, _) = try peek() else { return nil }
            return c < 0x80 ? UInt8(c) : 0xFF
        }

        /// The text of a line, for the caret display (invalid bytes shown as U+FFFD).
        func sourceLine(_ line: Int) -> String {
            var current = 1
            var start = 0
            var i = 0
            while i < bytes.count, current < line {
                if bytes[i] == 0x0A || (bytes[i] == 0x0D && (i + 1 >= bytes.count || bytes[i + 1] != 0x0A)) {
                    current += 1
                    start = i + 1
                }
                i += 1
            }
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }

        /// What stands at a position, for messages: `'bundleID'`, `'}'`, `the end of the file`.
        func found(at p: Position) -> String {
            guard let (c, _) = (try? decode(at: p)) ?? nil else { return "the end of the file" }
            if Self.isIdentifierStart(c) {
                var q = p
                var word = ""
                while let (d, n) = (try? decode(at: q)) ?? nil, Self.isIdentifierPart(d), word.count < 40 {
                    word.unicodeScalars.append(Unicode.Scalar(d)!)
                    q.offset += n
                }
                return "'\(word)'"
            }
            if c == 0x22 || c == 0x27 { return "a string" }
            if Self.isLineTerminator(c) { return "the end of the line" }
            return "'\(Unicode.Scalar(c).map { String($0) } ?? "?")'"
        }

        func fail(_ message: String, at p: Position? = nil, fix: String) -> Failure {
            Failure(at: p ?? pos, message: message, fix: fix)
        }

        // MARK: Whitespace and comments

        static func isWhitespace(_ c: UInt32) -> Bool {
            switch c {
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0xFEFF, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
                return true
            default:
                return false
            }
        }

        mutating func skipSpace() throws(Failure) {
            while pos.offset < bytes.count {
                // Spaces, tabs and line feeds (nearly all of a config's white space) without decoding.
                let b = bytes[pos.offset]
                if b == 0x20 || b == 0x09 {
                    pos.offset += 1
                    pos.column += 1
                    continue
                }
                if b == 0x0A {
                    pos.offset += 1
                    pos.line += 1
                    pos.column = 1
                    continue
                }
                guard let (c, _) = try peek() else { return }
                if Self.isWhitespace(c) {
                    try advance()
                } else if c == 0x2F {  // '/'
                    let start = pos
                    let next = pos.offset + 1 < bytes.count ? bytes[pos.offset + 1] : 0
                    if next == 0x2F {
                        while let (d, _) = try peek(), !Self.isLineTerminator(d) { try advance() }
                    } else if next == 0x2A {
                        try advance()
                        try advance()
                        var closed = false
                        while let (d, _) = try peek() {
                            if d == 0x2A, pos.offset + 1 < bytes.count, bytes[pos.offset + 1] == 0x2F {
                                try advance()
                                try advance()
                                closed = true
                                break
                            }
                            try advance()
                        }
                        if !closed {
                            throw fail("this /* comment is never closed", at: start, fix: "end it with */")
                        }
                    } else {
                        return
                    }
                } else {
                    return
                }
            }
        }

        // MARK: Grammar

        /// Checks the whole document and returns its key structure (objects' keys and lists'
        /// items down to the leaves), for the unknown-key warnings: the decoder then reads only
        /// the model.
        @discardableResult
        mutating func document() throws(Failure) -> ConfigLoader.KeyTree {
            try skipSpace()
            guard try peek() != nil else {
                throw fail("the file is empty; expected the config object '{ … }'", fix: "start from config/linkwell.json5")
            }
            let tree = try value(context: "the config")
            try skipSpace()
            if try peek() != nil {
                throw fail(
                    "unexpected \(found(at: pos)) after the end of the config; expected nothing more",
                    fix: "the config is one object: remove the extra text, or move it inside the braces")
            }
            return tree
        }

        /// `context` names the value in a message; it is only made when there is one to write.
        mutating func value(context: @autoclosure () -> String) throws(Failure) -> ConfigLoader.KeyTree {
            guard let c = try peekASCII() else {
                throw fail("the file ends where \(context()) should be; expected a value", fix: "finish the value, then close every open '{' and '['")
            }
            let collecting = collectSites
            collectSites = false
            switch c {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array(collectingSites: collecting)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                try string(keeping: false)
                return .leaf
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "I"), UInt8(ascii: "N"):
                let start = pos
                for word in Self.words where matches(word) {
                    for _ in word { try advance() }
                    if let (d, _) = try peek(), Self.isIdentifierPart(d) { break }
                    return .leaf
                }
                throw fail(
                    "\(found(at: start)) is not a value; expected a string, number, object, list, true, false or null",
                    at: start, fix: "quote text: \"…\"")
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                return .leaf
            default:
                throw fail(
                    "unexpected \(found(at: pos)) where \(context()) should be; expected a value (a string, number, object, list, true, false or null)",
                    fix: "quote text: \"…\"")
            }
        }

        static let words: [[UInt8]] = ["true", "false", "null", "Infinity", "NaN"].map { Array($0.utf8) }

        func matches(_ w: [UInt8]) -> Bool {
            guard pos.offset + w.count <= bytes.count else { return false }
            return bytes[pos.offset..<(pos.offset + w.count)].elementsEqual(w)
        }

        mutating func enter(_ open: Position) throws(Failure) {
            depth += 1
            if depth > 256 {
                throw fail("nesting deeper than 256 levels", at: open, fix: "a Linkwell config nests a few levels; check for runaway brackets")
            }
        }

        mutating func object() throws(Failure) -> ConfigLoader.KeyTree {
            let open = pos
            try enter(open)
            try advance()  // '{'
            var lastKey: String? = nil
            var members: [String: ConfigLoader.KeyTree] = [:]
            while true {
                if try closes("{", at: open, lastKey: lastKey) { return .object(members) }
                if try peekASCII() == UInt8(ascii: ",") {
                    throw fail(
                        lastKey == nil ? "unexpected ',' at the start of an object; expected a key or '}'" : "two commas in a row after '\(lastKey!)'; expected a key or '}'",
                        fix: "remove the extra ','")
                }
                let key = try self.key()
                try skipSpace()
                guard try peekASCII() == UInt8(ascii: ":") else {
                    if try peek() == nil { throw unclosed("{", at: open, lastKey: key) }
                    throw fail("expected ':' after the key '\(key)', found \(found(at: pos))", fix: "write \(key): value")
                }
                try advance()
                try skipSpace()
                let start = pos.offset
                let isSites = depth == 1 && key == "sites" && members[key] == nil
                collectSites = isSites
                let member = try value(context: "the value of '\(key)'")
                if isSites, case .list = member { sitesList = start..<pos.offset }
                // A key written twice: Foundation's decoder reads the first.
                if members[key] == nil { members[key] = member }
                lastKey = key
                try separator(close: "}", open: open, lastKey: key, after: "the value of '\(key)'",
                              fix: "add a ',' between the members (JSON5 allows one after the last, too)")
            }
        }

        /// Before a member or item: true when the closing bracket of `bracket` follows (consumed, and
        /// the nesting level left); the file ending first is the unclosed-bracket error.
        mutating func closes(_ bracket: String, at open: Position, lastKey: String?) throws(Failure) -> Bool {
            try skipSpace()
            guard let c = try peekASCII() else { throw unclosed(bracket, at: open, lastKey: lastKey) }
            guard c == UInt8(ascii: bracket == "{" ? "}" : "]") else { return false }
            try advance()
            depth -= 1
            return true
        }

        /// After a member or item: a ',' (consumed) or the closing bracket (left for the caller).
        mutating func separator(
            close: Character, open: Position, lastKey: String?, after what: @autoclosure () -> String, fix: @autoclosure () -> String
        ) throws(Failure) {
            let end = pos
            try skipSpace()
            guard let d = try peekASCII() else { throw unclosed(close == "}" ? "{" : "[", at: open, lastKey: lastKey) }
            if d == UInt8(ascii: ",") {
                try advance()
            } else if d != close.asciiValue! {
                // The caret goes where the ',' belongs: right after the value.
                let elsewhere = pos.line == end.line ? "" : " on line \(pos.line)"
                throw fail("expected ',' or '\(close)' after \(what()), found \(found(at: pos))\(elsewhere)", at: end, fix: fix())
            }
        }

        func unclosed(_ bracket: String, at open: Position, lastKey: String?) -> Failure {
            let close = bracket == "{" ? "}" : "]"
            let after = lastKey.map { " (the last complete member is '\($0)')" } ?? ""
            return fail(
                "this '\(bracket)' is never closed: the file ends before its '\(close)'\(after)",
                at: open, fix: "add the missing '\(close)'; an editor that matches brackets shows where")
        }

        mutating func key() throws(Failure) -> String {
            let start = pos
            guard let (c, _) = try peek() else { throw fail("expected a key", fix: "write key: value") }
            if c == 0x22 || c == 0x27 { return try string() }
            guard Self.isIdentifierStart(c) || c == 0x5C else {
                throw fail(
                    "unexpected \(found(at: pos)) where a key should be; expected a name or a quoted string",
                    fix: c >= 0x30 && c <= 0x39 ? "quote a key that starts with a digit: \"\(found(at: pos).dropFirst().dropLast())\"" : "quote the key: \"key\": value")
            }
            var name = ""
            while true {
                // A run of ASCII letters, digits, '_' and '$' (one column per byte).
                var end = pos.offset
                while end < bytes.count, case let b = bytes[end], b < 0x80, Self.isIdentifierPart(UInt32(b)) { end += 1 }
                if end > pos.offset {
                    name += String(decoding: bytes[pos.offset..<end], as: UTF8.self)
                    pos.column += end - pos.offset
                    pos.offset = end
                }
                guard let (d, _) = try peek() else { break }
                if d == 0x5C {  // \uXXXX in an identifier
                    let esc = pos
                    try advance()
                    guard try peekASCII() == UInt8(ascii: "u") else {
                        throw fail("invalid escape in the key; only \\uXXXX is allowed in an unquoted key", at: esc, fix: "quote the key")
                    }
                    try advance()
                    let from = pos.offset
                    _ = try hexDigits(4, escapeStart: esc)
                    // Foundation's JSON5 decoder keeps an unquoted key's `\uXXXX` as written (it does
                    // not decode it), and the model is read through it: name the key the same way.
                    name += "\\u" + String(decoding: bytes[from..<pos.offset], as: UTF8.self)
                } else if Self.isIdentifierPart(d) {
                    name.unicodeScalars.append(Unicode.Scalar(d)!)
                    try advance()
                } else {
                    break
                }
            }
            if name.isEmpty { throw fail("expected a key", at: start, fix: "write key: value") }
            return name
        }

        mutating func array(collectingSites: Bool = false) throws(Failure) -> ConfigLoader.KeyTree {
            let open = pos
            try enter(open)
            try advance()  // '['
            var count = 0
            var items: [ConfigLoader.KeyTree] = []
            while true {
                if try closes("[", at: open, lastKey: nil) { return .list(items) }
                if try peekASCII() == UInt8(ascii: ",") {
                    throw fail(count == 0 ? "unexpected ',' at the start of a list; expected a value or ']'" : "two commas in a row in a list; expected a value or ']'", fix: "remove the extra ','")
                }
                let start = pos.offset
                items.append(try value(context: "item \(count + 1) of the list"))
                if collectingSites { siteItems.append(start..<pos.offset) }
                count += 1
                try separator(close: "]", open: open, lastKey: nil, after: "item \(count) of the list", fix: "add a ',' between the items")
            }
        }

        @discardableResult
        /// Reads a string; its text is returned when `keeping` (a key), else only checked (a value).
        mutating func string(keeping: Bool = true) throws(Failure) -> String {
            let open = pos
            let quote = bytes[pos.offset]
            try advance()
            var text = ""
            while true {
                // A run of printable ASCII other than the quote and '\': one column per byte.
                var end = pos.offset
                while end < bytes.count, case let b = bytes[end], b >= 0x20, b < 0x80, b != quote, b != 0x5C { end += 1 }
                if end > pos.offset {
                    if keeping { text += String(decoding: bytes[pos.offset..<end], as: UTF8.self) }
                    pos.column += end - pos.offset
                    pos.offset = end
                }
                guard let (c, _) = try peek() else {
                    throw fail("this string is never closed: the file ends before its closing \(quote == 0x22 ? "'\"'" : "\"'\"")", at: open, fix: "close the string")
                }
                if c == UInt32(quote) {
                    try advance()
                    return text
                }
                if Self.isLineTerminator(c) && c != 0x2028 && c != 0x2029 {
                    throw fail(
                        "this string is not closed on its line (a line break cannot be in a string)", at: open,
                        fix: "close it with \(quote == 0x22 ? "'\"'" : "\"'\"") before the end of the line, or write \\n for a line break")
                }
                if c == 0x5C {
                    try escape(into: &text)
                } else {
                    if keeping { text.unicodeScalars.append(Unicode.Scalar(c)!) }
                    try advance()
                }
            }
        }

        mutating func escape(into text: inout String) throws(Failure) {
            let start = pos
            try advance()  // '\'
            guard let (c, _) = try peek() else { return }
            let simple: [UInt32: UInt32] = [0x27: 0x27, 0x22: 0x22, 0x5C: 0x5C, 0x62: 8, 0x66: 12, 0x6E: 10, 0x72: 13, 0x74: 9, 0x76: 11]
            if let s = simple[c] {
                text.unicodeScalars.append(Unicode.Scalar(s)!)
                try advance()
            } else if Self.isLineTerminator(c) {
                try advance()  // line continuation
            } else if c == 0x30 {
                try advance()
                if let d = try peekASCII(), d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") {
                    throw fail("invalid escape '\\0\(Character(Unicode.Scalar(d)))' in a string: octal escapes are not JSON5", at: start, fix: "write \\u00XX instead")
                }
                text.unicodeScalars.append("\0")
            } else if c >= 0x31 && c <= 0x39 {
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(c)!))' in a string: a digit cannot be escaped", at: start, fix: "remove the backslash, or write \\u00XX")
            } else if c == 0x78 {  // \xHH
                try advance()
                text.unicodeScalars.append(Unicode.Scalar(try hexDigits(2, escapeStart: start)) ?? "?")
            } else if c == 0x75 {  // \uXXXX
                try advance()
                text.unicodeScalars.append(Unicode.Scalar(try hexDigits(4, escapeStart: start)) ?? "\u{FFFD}")
            } else {
                text.unicodeScalars.append(Unicode.Scalar(c)!)
                try advance()
            }
        }

        mutating func hexDigits(_ count: Int, escapeStart: Position) throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            var seen = ""
            for _ in 0..<count {
                guard let d = try peekASCII(), let v = Self.hexValue(d) else {
                    let letter = count == 2 ? "x" : "u"
                    throw fail(
                        "invalid escape '\\\(letter)\(seen)' in a string; expected \(count) hex digits after \\\(letter)",
                        at: escapeStart, fix: count == 2 ? "write \\xHH, e.g. \\x41" : "write \\uXXXX, e.g. \\u00E9")
                }
                seen.append(Character(Unicode.Scalar(d)))
                value = value << 4 | UInt32(v)
                try advance()
            }
            return value
        }

        static func hexValue(_ d: UInt8) -> UInt8? { PercentEncoding.hexValue(d) }

        mutating func number() throws(Failure) {
            let start = pos
            func bad(_ why: String) -> Failure {
                fail("invalid number: \(why)", at: start, fix: "write a number such as 10, -1.5, 2e3 or 0x1F")
            }
            if let s = try peekASCII(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { try advance() }
            if matches(Self.words[3]) {
                for _ in 0..<8 { try advance() }
                return
            }
            if matches(Self.words[4]) {
                for _ in 0..<3 { try advance() }
                return
            }
            func isDigit(_ d: UInt8?) -> Bool { d.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
            if try peekASCII() == UInt8(ascii: "0"), pos.offset + 1 < bytes.count, bytes[pos.offset + 1] | 0x20 == UInt8(ascii: "x") {
                try advance()
                try advance()
                var n = 0
                while let d = try peekASCII(), Self.hexValue(d) != nil {
                    try advance()
                    n += 1
                }
                if n == 0 { throw bad("'0x' needs hex digits") }
            } else {
                var intDigits = 0
                let first = try peekASCII()
                while isDigit(try peekASCII()) {
                    try advance()
                    intDigits += 1
                }
                if intDigits > 1, first == UInt8(ascii: "0") { throw bad("a leading zero is not allowed") }
                var fracDigits = 0
                if try peekASCII() == UInt8(ascii: ".") {
                    try advance()
                    while isDigit(try peekASCII()) {
                        try advance()
                        fracDigits += 1
                    }
                }
                if intDigits == 0 && fracDigits == 0 { throw bad("no digits") }
                if let e = try peekASCII(), e | 0x20 == UInt8(ascii: "e") {
                    try advance()
                    if let s = try peekASCII(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { try advance() }
                    var expDigits = 0
                    while isDigit(try peekASCII()) {
                        try advance()
                        expDigits += 1
                    }
                    if expDigits == 0 { throw bad("the exponent has no digits") }
                }
            }
            if let (c, _) = try peek(), Self.isIdentifierPart(c) || c == 0x2E {
                throw bad("unexpected \(found(at: pos)) right after it")
            }
        }

        // MARK: Identifiers (ECMAScript 5.1 IdentifierName, approximated by Swift's Unicode properties)

        static func isIdentifierStart(_ c: UInt32) -> Bool {
            if c == 0x24 || c == 0x5F { return true }  // $ _
            if c < 0x80 { return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
            guard let s = Unicode.Scalar(c) else { return false }
            return s.properties.isAlphabetic
        }

        static func isIdentifierPart(_ c: UInt32) -> Bool {
            if isIdentifierStart(c) || (c >= 0x30 && c <= 0x39) { return true }
            if c == 0x200C || c == 0x200D { return true }
            guard c >= 0x80, let s = Unicode.Scalar(c) else { return false }
            switch s.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
            default: return false
            }
        }
    }
}

extension JSON5Syntax {
    /// Checks bytes and returns the error with its source line.
    public static func check(_ bytes: [UInt8]) -> JSON5SyntaxError? {
        if case let .failure(error) = scan(bytes) { return error }
        return nil
    }

    /// Checks bytes; on success, the document's key structure (what `ConfigLoader` reads the
    /// unknown keys from, so the decoder does not walk the document a second time).
    static func scan(_ bytes: [UInt8]) -> Result<ConfigLoader.KeyTree, JSON5SyntaxError> {
        scanWithSites(bytes).map(\.keys)
    }

    /// A document's key structure, with the byte ranges of the root's `sites` list and of each
    /// of its items (nil when the root has no `sites` list).
    struct Scanned {
        var keys: ConfigLoader.KeyTree
        var sitesList: Range<Int>?
        var siteItems: [Range<Int>]
    }

    /// As ``scan(_:)``, also saying where the root's `sites` list and each site stand.
    static func scanWithSites(_ bytes: [UInt8]) -> Result<Scanned, JSON5SyntaxError> {
        var scanner = Scanner(bytes: bytes)
        do {
            let keys = try scanner.document()
            return .success(Scanned(keys: keys, sitesList: scanner.sitesList, siteItems: scanner.sitesList == nil ? [] : scanner.siteItems))
        } catch {
            return .failure(JSON5SyntaxError(
                line: error.at.line, column: error.at.column, message: error.message, fix: error.fix,
                sourceLine: scanner.sourceLine(error.at.line)))
        }
    }
}
