// Percent-encoding and a minimal URL splitter. The parser works on the URL text as a browser
// sends it (Apple's matcher compares encoded text), so nothing here goes through Foundation's
// URL, whose normalisations differ between platforms and releases.

/// Percent-encoding the way browsers and the platforms' matchers see URLs (`%20`, upper-case hex).
///
/// Linkwell compares URLs as the encoded text a browser sends, because that is what Apple's
/// matcher compares; these helpers encode and decode without going through Foundation's `URL`.
public enum PercentEncoding {
    /// RFC 3986 unreserved characters: never encoded.
    @inline(__always)
    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// Characters a path literal holds unencoded (pchar minus `%`, plus nothing that AASA or
    /// Android read as a wildcard). `|`, `^`, `[` and `]` are written encoded (`%7C`: what
    /// Foundation's `URL` accepts); a browser sends them raw, and the parser reads both spellings
    /// the same (``rawPunctuationEncoded(_:)``).
    @inline(__always)
    static func isPathLiteralSafe(_ b: UInt8) -> Bool {
        if isUnreserved(b) { return true }
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default: return false
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `%XX` with upper-case hex, as browsers send it.
    @inline(__always)
    static func appendPercent(_ b: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0xF)])
    }

    /// Encodes every byte that is not unreserved, with upper-case hex (what browsers send).
    /// A value that is exactly `.` or `..` is encoded whole, so no browser resolves it as a dot segment.
    public static func encodeComponent(_ s: String) -> String {
        if s == "." { return "%2E" }
        if s == ".." { return "%2E%2E" }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            if isUnreserved(b) {
                out.append(b)
            } else {
                appendPercent(b, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Canonical wire form of a path literal: keeps safe characters, upper-cases existing
    /// escapes, encodes everything else (non-ASCII as UTF-8).
    public static func canonicalPathLiteral(_ s: String) -> String {
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, hexValue(bytes[i + 1]) != nil, hexValue(bytes[i + 2]) != nil {
                out.append(b)
                out.append(upper(bytes[i + 1]))
                out.append(upper(bytes[i + 2]))
                i += 3
                continue
            }
            if isPathLiteralSafe(b) {
                out.append(b)
            } else {
                appendPercent(b, to: &out)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Characters a browser sends raw in a path that a path literal holds encoded.
    @inline(__always)
    static func isRawPathPunctuation(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "|") || b == UInt8(ascii: "^") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
    }

    /// A raw path with `|`, `^`, `[` and `]` percent-encoded (`/a|b` → `/a%7Cb`), so that a
    /// literal matches both the browser's raw spelling and the builder's encoded one, as on
    /// Android (which decodes) and in the AASA (which lists both).
    public static func rawPunctuationEncoded(_ path: String) -> String {
        var path = path
        let encoded = path.withUTF8 { p in p.contains(where: isRawPathPunctuation) ? rawPunctuationEncoded(p) : nil }
        return encoded.map { String(decoding: $0, as: UTF8.self) } ?? path
    }

    /// ``rawPunctuationEncoded(_:)`` on bytes.
    static func rawPunctuationEncoded(_ path: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.count + 8)
        for b in path {
            if isRawPathPunctuation(b) { appendPercent(b, to: &out) } else { out.append(b) }
        }
        return out
    }

    /// Bytes a browser percent-encodes in a path (the WHATWG path percent-encode set, less `#`
    /// and `?`, which end the path): controls, space, non-ASCII, `"`, `<`, `>`, a backtick, `{`, `}`.
    @inline(__always)
    static func browserEncodes(_ b: UInt8) -> Bool {
        if b >= 0x80 || b <= 0x20 || b == 0x7F { return true }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"): return true
        default: return false
        }
    }

    /// Percent-encodes raw non-ASCII bytes, spaces, controls and the few punctuation marks a
    /// browser encodes (`"`, `<`, `>`, a backtick, `{`, `}`) in a URL as it would before sending it;
    /// existing escapes and other ASCII punctuation are kept as they are.
    public static func browserNormalized(_ s: String) -> String {
        var s = s
        guard s.withUTF8({ anyBrowserEncodes($0) }) else { return s }
        var out: [UInt8] = []
        for b in s.utf8 {
            if browserEncodes(b) {
                appendPercent(b, to: &out)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// ``browserEncodes(_:)`` for the bytes below 0x80, as a bitmap: bit `b` of `low` for
    /// `b` < 64, bit `b - 64` of `high` for the others.
    static let browserEncodedLow: UInt64 = {
        var m: UInt64 = 0
        for b in 0..<64 where browserEncodes(UInt8(b)) { m |= 1 << UInt64(b) }
        return m
    }()
    /// The bitmap of ``browserEncodedLow`` for the bytes 64–127.
    static let browserEncodedHigh: UInt64 = {
        var m: UInt64 = 0
        for b in 64..<128 where browserEncodes(UInt8(b)) { m |= 1 << UInt64(b - 64) }
        return m
    }()

    /// Whether any byte of `bytes` is one ``browserEncodes(_:)`` is true for (a bitmap test per byte).
    static func anyBrowserEncodes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress else { return false }
        let low = browserEncodedLow, high = browserEncodedHigh
        var i = 0
        let n = bytes.count
        // Eight bytes at a time: a word with none of them skips the byte test below.
        while i &+ 8 <= n {
            if wordMayHaveBrowserEncoded(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) { break }
            i &+= 8
        }
        while i < n {
            let b = p[i]
            if b >= 0x80 { return true }
            let mask = b < 64 ? low : high
            if (mask >> UInt64(b & 63)) & 1 != 0 { return true }
            i &+= 1
        }
        return false
    }

    /// Whether any byte of `w` is one ``browserEncodes(_:)`` is true for: ≥ 0x7F, < 0x21, or one of
    /// `"`, `<`, `>`, a backtick, `{`, `}` (each test exact for the word as a whole).
    @inline(__always)
    static func wordMayHaveBrowserEncoded(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        // A byte ≥ 0x80, or < 0x21 (hasless), or equal to one of the marks (haszero of the xor).
        if w & highs != 0 || (w &- ones &* 0x21) & ~w & highs != 0 { return true }
        return hasZero(w ^ (ones &* 0x7F)) || hasZero(w ^ (ones &* 0x22)) || hasZero(w ^ (ones &* 0x3C)) || hasZero(w ^ (ones &* 0x3E))
            || hasZero(w ^ (ones &* 0x60)) || hasZero(w ^ (ones &* 0x7B)) || hasZero(w ^ (ones &* 0x7D))
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    @inline(__always)
    static func upper(_ b: UInt8) -> UInt8 {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) ? b - 32 : b
    }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays as it is. `+` is kept
    /// (URLComponents does not read it as a space either). Invalid UTF-8 becomes U+FFFD.
    public static func decode<S: Collection>(_ s: S) -> String where S.Element == UInt8 {
        var hasPercent = false
        for b in s where b == UInt8(ascii: "%") {
            hasPercent = true
            break
        }
        if !hasPercent { return String(decoding: s, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i != s.endIndex {
            let b = s[i]
            if b == UInt8(ascii: "%") {
                let j = s.index(after: i)
                if j != s.endIndex {
                    let k = s.index(after: j)
                    if k != s.endIndex, let hi = hexValue(s[j]), let lo = hexValue(s[k]) {
                        out.append(hi << 4 | lo)
                        i = s.index(after: k)
                        continue
                    }
                }
            }
            out.append(b)
            i = s.index(after: i)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes in a string, by the rules of the byte version: `+` stays `+`, a stray `%` stays, invalid UTF-8 becomes U+FFFD.
    public static func decode(_ s: String) -> String { decode(Array(s.utf8)) }
}

/// The parts of an absolute URL, as text exactly as written (nothing decoded).
public struct URLParts: Sendable, Equatable {
    /// The scheme, lower-cased: `https`, or an app's custom scheme such as `fitconnect`.
    public var scheme: String
    /// The host, lower-cased, without port, user info or a trailing dot. Empty for `scheme:/path`.
    public var host: String
    /// The port when the URL spells one out (`:8080`), else nil.
    public var port: Int?
    /// The path as written (still encoded); starts with `/`, or is empty.
    public var path: String
    /// The text after `?` (without it), still encoded; nil when there is no `?`.
    public var query: String?
    /// The text after `#` (without it), still encoded; nil when there is no `#`.
    public var fragment: String?

    /// Creates the parts from values you already have (no checks, no normalisation).
    public init(scheme: String, host: String, port: Int? = nil, path: String, query: String? = nil, fragment: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits `scheme://authority/path?query#fragment`; nil when there is no scheme. For an
    /// `http(s)` URL, nil also where a browser fails to parse it (``WebURL``) or would go to
    /// another host than this split names; `host` is then the browser's (IDNA-mapped, IPv4
    /// canonical) and `port` nil for the scheme's default.
    public init?(_ text: String) {
        guard let plain = URLParts(plainSplit: text) else { return nil }
        self = plain
        // An http(s) URL: the host is the one a browser goes to, and a URL whose plain split
        // names another host than a browser reads (`\\` before `@`, no `//`) is refused.
        if WebURL.defaultPorts[scheme] != nil {
            guard let web = WebURL(text), WebURL.sameHost(web.host, plain: host) else { return nil }
            host = web.host.hasSuffix(".") ? String(web.host.dropLast()) : web.host
            port = web.port
        }
    }

    /// The split of the text alone (browser-normalised), without reading it as a browser would.
    init?(plainSplit text: String) {
        var normalized = PercentEncoding.browserNormalized(text)
        guard
            let parts = normalized.withUTF8({ b -> URLParts? in
                guard let u = RawURL(b) else { return nil }
                func text(_ r: Range<Int>) -> String { String(decoding: b.slice(r), as: UTF8.self) }
                return URLParts(
                    scheme: ByteText.lowercasedString(b.slice(u.scheme)), host: ByteText.lowercasedString(b.slice(u.host)), port: u.port,
                    path: text(u.path), query: u.query.map(text), fragment: u.fragment.map(text))
            })
        else { return nil }
        self = parts
    }
}

/// One `name=value` item of a query string, both still encoded.
public struct RawQueryItem: Sendable, Equatable {
    /// The item's name, still encoded.
    public var name: Substring
    /// The item's value, still encoded; nil for an item without `=` (`?debug`).
    public var value: Substring?

    /// Whether the item's name, percent-decoded, is `name`: iOS and Android both decode query
    /// names, so `%72eferralCode` is `referralCode`.
    @inline(__always)
    public func hasName(_ name: String) -> Bool {
        if self.name == name { return true }
        guard self.name.utf8.contains(UInt8(ascii: "%")) else { return false }
        return PercentEncoding.decode(Array(self.name.utf8)) == name
    }

    /// Splits on `&` (what Apple and URLComponents do); empty items are dropped.
    public static func split(_ query: String) -> [RawQueryItem] {
        var items: [RawQueryItem] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: "=") {
                items.append(RawQueryItem(name: part[..<eq], value: part[part.index(after: eq)...]))
            } else {
                items.append(RawQueryItem(name: part, value: nil))
            }
        }
        return items
    }
}
