// An absolute http(s) URL read the way browsers read it: the WHATWG URL standard's basic URL
// parser for special schemes, without a base URL. Link targets, fallbacks and long-link
// parameters come from outside; checking them with one parser while a browser follows them with
// another is an open redirect (`https://evil.example\@good.example/` is on `evil.example` for every
// browser). Every URL Linkwell redirects to is `href` of one of these: serialized from the parsed
// form, never the text it was given.

/// An absolute URL with a special scheme (`http`, `https`, `ws`, `wss`, `ftp`), parsed as the
/// WHATWG URL standard parses it with no base URL, and serialized again.
///
/// What it does as browsers do: leading and trailing C0 controls and spaces are dropped, tabs
/// and newlines anywhere are removed; scheme and host are case-insensitive; `\` is `/`; any
/// number of slashes (or none) may follow `https:`; user info is everything before the **last**
/// `@` of the authority; the host is percent-decoded, mapped to ASCII (IDNA, punycode) and read
/// as an IPv4 address when it ends in a number (`0x7f000001`, `2130706433` and `127.1` are all
/// `127.0.0.1`); the default port is dropped; dot segments are resolved; the path, query and
/// fragment are percent-encoded with the standard's sets.
///
/// Where it is stricter than a browser: an internationalized host with a code point outside
/// letters, marks and digits (after case folding and compatibility mapping) is refused rather
/// than mapped by the full UTS #46 table. Everything it accepts, it serializes exactly as a
/// browser would; the agreement is tested against a WHATWG implementation on the
/// web-platform-tests corpus.
public struct WebURL: Sendable, Hashable, CustomStringConvertible {
    /// `http`, `https`, `ws`, `wss` or `ftp`, lower-cased.
    public let scheme: String
    /// Percent-encoded; empty when absent.
    public let username: String
    /// Percent-encoded; empty when absent.
    public let password: String
    /// ASCII: a lower-cased domain (punycode for internationalized labels), a dotted IPv4
    /// address, or an IPv6 address in brackets.
    public let host: String
    /// nil when absent or the scheme's default.
    public let port: Int?
    /// Starts with `/`; percent-encoded.
    public let path: String
    /// Without the `?`; nil when there is none.
    public let query: String?
    /// Without the `#`; nil when there is none.
    public let fragment: String?

    /// The serialization: what a browser's `URL.href` gives, and what a redirect sends.
    public var href: String {
        var s = scheme + "://"
        if !username.isEmpty || !password.isEmpty {
            s += username
            if !password.isEmpty { s += ":" + password }
            s += "@"
        }
        s += host
        if let port { s += ":\(port)" }
        s += path
        if let query { s += "?" + query }
        if let fragment { s += "#" + fragment }
        return s
    }

    /// The serialization (``href``).
    public var description: String { href }

    /// True for `user@` or `user:pass@` before the host (browsers hide it; phishers use it).
    public var hasCredentials: Bool { !username.isEmpty || !password.isEmpty }

    /// `scheme://host[:port]`.
    public var origin: String { scheme + "://" + host + (port.map { ":\($0)" } ?? "") }

    /// The special schemes and their default ports (`file` is not one Linkwell reads).
    public static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]

    /// Parses `input`; nil when a browser would fail to parse it as an absolute URL, when its
    /// scheme is not a special one, or when its host needs IDNA mapping beyond what is described
    /// above.
    public init?(_ input: String) {
        guard let parsed = WebURLParser.parse(input) else { return nil }
        self = parsed
    }

    init(scheme: String, username: String, password: String, host: String, port: Int?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.username = username
        self.password = password
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Whether `text` (what this URL was parsed from) names this URL's host when split plainly
    /// — false for `https://evil.example\\@good.example/` or `https:evil.example`, which a
    /// checker splitting the text would read as another host (or none).
    public func isReadAsWritten(_ text: String) -> Bool {
        guard let plain = URLParts(plainSplit: text) else { return false }
        return WebURL.sameHost(host, plain: plain.host)
    }

    /// Whether `plain` (a host as a plain split of the URL text gives it: after the last `@`
    /// before the first `/`, without port and one trailing dot) is `host` as a browser reads it.
    public static func sameHost(_ host: String, plain: String) -> Bool {
        guard let canonical = WebURLHost.parse(Array(plain.unicodeScalars)) else { return false }
        func trimmed(_ h: String) -> Substring { h.hasSuffix(".") ? h.dropLast() : Substring(h) }
        return trimmed(canonical) == trimmed(host)
    }

    /// Whether the text, read as ``hasSpecialScheme(_:)`` reads it, starts with `http:` or `https:`.
    public static func hasHTTPScheme(_ input: String) -> Bool {
        guard let scheme = WebURLParser.scheme(of: WebURLParser.cleaned(input))?.scheme else { return false }
        return scheme == "https" || scheme == "http"
    }

    /// Whether the text, with leading C0 controls and spaces dropped and tabs and newlines
    /// removed as a browser does, starts with a special scheme and `:` — i.e. whether a browser
    /// would read it as an absolute web URL (successfully or not) rather than as a relative
    /// reference or another scheme.
    public static func hasSpecialScheme(_ input: String) -> Bool {
        WebURLParser.scheme(of: WebURLParser.cleaned(input)).map { defaultPorts[$0.scheme] != nil } ?? false
    }
}

/// The state machine of the WHATWG basic URL parser, for special schemes without a base,
/// written as a pass per component.
enum WebURLParser {
    typealias Scalars = [Unicode.Scalar]

    static func parse(_ input: String) -> WebURL? {
        let s = cleaned(input)
        guard let (scheme, afterColon) = scheme(of: s), let defaultPort = WebURL.defaultPorts[scheme] else { return nil }
        var i = afterColon
        // Special authority (ignore) slashes: any run of `/` and `\`.
        while i < s.count, s[i] == "/" || s[i] == "\\" { i += 1 }
        var end = i
        while end < s.count, !isAuthorityEnd(s[end]) { end += 1 }
        let authority = s[i..<end]
        var username = "", password = ""
        var hostPort = authority[...]
        if let at = authority.lastIndex(of: "@") {
            var passwordSeen = false
            for c in authority[authority.startIndex..<at] {
                if c == ":" && !passwordSeen {
                    passwordSeen = true
                    continue
                }
                if passwordSeen { encode(c, .userinfo, into: &password) } else { encode(c, .userinfo, into: &username) }
            }
            hostPort = authority[(at + 1)...]
            if hostPort.isEmpty { return nil }
        }
        // The host ends at the first `:` outside brackets.
        var hostEnd = hostPort.startIndex
        var inBrackets = false
        while hostEnd < hostPort.endIndex {
            let c = hostPort[hostEnd]
            if c == ":" && !inBrackets { break }
            if c == "[" { inBrackets = true }
            if c == "]" { inBrackets = false }
            hostEnd += 1
        }
        let hostText = hostPort[hostPort.startIndex..<hostEnd]
        guard !hostText.isEmpty, let host = WebURLHost.parse(Array(hostText)) else { return nil }
        var port: Int?
        if hostEnd < hostPort.endIndex {
            var value = 0
            for c in hostPort[(hostEnd + 1)...] {
                guard let d = asciiDigit(c) else { return nil }
                value = value * 10 + d
                if value > 65535 { return nil }
            }
            if hostEnd + 1 < hostPort.endIndex, value != defaultPort { port = value }
        }
        // Path, query, fragment.
        var pathEnd = end
        while pathEnd < s.count, s[pathEnd] != "?", s[pathEnd] != "#" { pathEnd += 1 }
        let path = serializePath(s[end..<pathEnd])
        var query: String?
        var fragment: String?
        var j = pathEnd
        if j < s.count, s[j] == "?" {
            var k = j + 1
            while k < s.count, s[k] != "#" { k += 1 }
            var q = ""
            for c in s[(j + 1)..<k] { encode(c, .specialQuery, into: &q) }
            query = q
            j = k
        }
        if j < s.count, s[j] == "#" {
            var f = ""
            for c in s[(j + 1)...] { encode(c, .fragment, into: &f) }
            fragment = f
        }
        return WebURL(scheme: scheme, username: username, password: password, host: host, port: port, path: path, query: query, fragment: fragment)
    }

    /// Leading and trailing C0 controls and spaces removed, then every tab, LF and CR.
    static func cleaned(_ input: String) -> Scalars {
        var s = Array(input.unicodeScalars)
        var start = 0
        var end = s.count
        while start < end, s[start].value <= 0x20 { start += 1 }
        while end > start, s[end - 1].value <= 0x20 { end -= 1 }
        s = Array(s[start..<end])
        s.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return s
    }

    /// The lower-cased scheme and the index after its `:`; nil when the text does not start
    /// with one.
    static func scheme(of s: Scalars) -> (scheme: String, afterColon: Int)? {
        guard let first = s.first, isASCIIAlpha(first) else { return nil }
        var i = 1
        while i < s.count, isASCIIAlpha(s[i]) || asciiDigit(s[i]) != nil || s[i] == "+" || s[i] == "-" || s[i] == "." { i += 1 }
        guard i < s.count, s[i] == ":" else { return nil }
        let scheme = String(String.UnicodeScalarView(s[0..<i].map { isASCIIAlpha($0) ? Unicode.Scalar($0.value | 0x20)! : $0 }))
        return (scheme, i + 1)
    }

    static func isAuthorityEnd(_ c: Unicode.Scalar) -> Bool { c == "/" || c == "\\" || c == "?" || c == "#" }

    /// The path state for a special URL: `\` is `/`, dot segments (also `%2e`) resolved.
    static func serializePath(_ text: ArraySlice<Unicode.Scalar>) -> String {
        var segments: [String] = []
        var buffer = ""
        var rawBuffer: [Unicode.Scalar] = []
        var i = text.startIndex
        // Path start: a leading `/` or `\` is the root, not a separator before an empty segment.
        if i < text.endIndex, text[i] == "/" || text[i] == "\\" { i += 1 }
        while true {
            let atEnd = i == text.endIndex
            if atEnd || text[i] == "/" || text[i] == "\\" {
                if isDoubleDot(rawBuffer) {
                    if !segments.isEmpty { segments.removeLast() }
                    if atEnd { segments.append("") }
                } else if isSingleDot(rawBuffer) {
                    if atEnd { segments.append("") }
                } else {
                    segments.append(buffer)
                }
                buffer = ""
                rawBuffer = []
                if atEnd { break }
            } else {
                rawBuffer.append(text[i])
                encode(text[i], .path, into: &buffer)
            }
            i += 1
        }
        return "/" + segments.joined(separator: "/")
    }

    static func isSingleDot(_ b: [Unicode.Scalar]) -> Bool {
        b == ["."] || (b.count == 3 && b[0] == "%" && b[1] == "2" && (b[2] == "e" || b[2] == "E"))
    }

    static func isDoubleDot(_ b: [Unicode.Scalar]) -> Bool {
        func dot(_ s: ArraySlice<Unicode.Scalar>) -> Bool {
            s.count == 1 ? s.first == "." : (s.count == 3 && s[s.startIndex] == "%" && s[s.startIndex + 1] == "2" && (s[s.startIndex + 2] | 0x20) == "e")
        }
        switch b.count {
        case 2: return b[0] == "." && b[1] == "."
        case 4: return (dot(b[0..<1]) && dot(b[1..<4])) || (dot(b[0..<3]) && dot(b[3..<4]))
        case 6: return dot(b[0..<3]) && dot(b[3..<6])
        default: return false
        }
    }

    enum EncodeSet { case userinfo, path, specialQuery, fragment }

    /// Appends `c`, UTF-8 percent-encoded when it is in `set`.
    static func encode(_ c: Unicode.Scalar, _ set: EncodeSet, into out: inout String) {
        let v = c.value
        if v > 0x7E || v < 0x20 {
            for b in String(c).utf8 { out += percent(b) }
            return
        }
        let inSet: Bool
        switch set {
        case .fragment:
            inSet = c == " " || c == "\"" || c == "<" || c == ">" || c == "`"
        case .specialQuery:
            inSet = c == " " || c == "\"" || c == "#" || c == "<" || c == ">" || c == "'"
        case .path:
            inSet = c == " " || c == "\"" || c == "#" || c == "<" || c == ">" || c == "?" || c == "^" || c == "`" || c == "{" || c == "}"
        case .userinfo:
            inSet = c == " " || c == "\"" || c == "#" || c == "<" || c == ">" || c == "?" || c == "`" || c == "{" || c == "}"
                || c == "/" || c == ":" || c == ";" || c == "=" || c == "@" || (v >= 0x5B && v <= 0x5E) || c == "|"
        }
        if inSet { out += percent(UInt8(v)) } else { out.unicodeScalars.append(c) }
    }

    static func percent(_ b: UInt8) -> String {
        let hex: [Character] = Array("0123456789ABCDEF")
        return "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 0xF)])
    }

    static func isASCIIAlpha(_ c: Unicode.Scalar) -> Bool { (c.value | 0x20) >= 0x61 && (c.value | 0x20) <= 0x7A }

    static func asciiDigit(_ c: Unicode.Scalar) -> Int? { c.value >= 0x30 && c.value <= 0x39 ? Int(c.value - 0x30) : nil }
}

private func | (lhs: Unicode.Scalar, rhs: UInt32) -> Unicode.Scalar { Unicode.Scalar(lhs.value | rhs) ?? lhs }
