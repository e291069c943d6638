import Foundation  // memchr

/// The parts of an absolute URL as byte ranges of its text (browser-normalised already), by the
/// rules of ``URLParts/init(_:)``, which is built on it.
struct RawURL {
    var scheme: Range<Int>
    /// Without user info, port and one trailing dot; empty without an authority.
    var host: Range<Int>
    var port: Int?
    var path: Range<Int>
    var query: Range<Int>?
    var fragment: Range<Int>?

    init?(_ b: Bytes) {
        guard let colon = b.firstIndex(of: UInt8(ascii: ":"), in: 0..<b.count), colon > 0 else { return nil }
        guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b[0] | 0x20) else { return nil }
        for i in 0..<colon {
            let c = b[i]
            let l = c | 0x20
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(l) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            else { return nil }
        }
        scheme = 0..<colon
        // Fragment first, then query: '#' ends everything; the first '?' before it starts the query.
        var hash = b.count
        var q = -1
        if let p = b.baseAddress, colon + 1 < b.count {
            // memchr: a URL is mostly path, which no byte loop needs to look at twice.
            let start = p + colon + 1
            if let h = memchr(start, Int32(UInt8(ascii: "#")), b.count - colon - 1) {
                hash = UnsafeRawPointer(h) - UnsafeRawPointer(p)
            }
            if hash > colon + 1, let m = memchr(start, Int32(UInt8(ascii: "?")), hash - colon - 1) {
                q = UnsafeRawPointer(m) - UnsafeRawPointer(p)
            }
        }
        fragment = hash < b.count ? (hash + 1)..<b.count : nil
        query = q >= 0 ? (q + 1)..<hash : nil
        var rest = (colon + 1)..<(q >= 0 ? q : hash)
        port = nil
        let slash = UInt8(ascii: "/")
        guard rest.count >= 2, b[rest.lowerBound] == slash, b[rest.lowerBound + 1] == slash else {
            host = rest.lowerBound..<rest.lowerBound
            path = rest
            return
        }
        rest = (rest.lowerBound + 2)..<rest.upperBound
        let pathStart = b.firstIndex(of: slash, in: rest) ?? rest.upperBound
        var authority = rest.lowerBound..<pathStart
        if let at = b.lastIndex(of: UInt8(ascii: "@"), in: authority) { authority = (at + 1)..<authority.upperBound }
        var hostRange = authority
        if !authority.isEmpty, b[authority.lowerBound] == UInt8(ascii: "[") {
            // IPv6 literal
            guard let close = b.firstIndex(of: UInt8(ascii: "]"), in: authority) else { return nil }
            hostRange = authority.lowerBound..<(close + 1)
            if close + 1 < authority.upperBound, b[close + 1] == UInt8(ascii: ":") {
                port = Int(String(decoding: b.slice((close + 2)..<authority.upperBound), as: UTF8.self))
            }
        } else if let c = b.lastIndex(of: UInt8(ascii: ":"), in: authority) {
            hostRange = authority.lowerBound..<c
            if c + 1 < authority.upperBound {
                guard let p = Int(String(decoding: b.slice((c + 1)..<authority.upperBound), as: UTF8.self)), (0...65535).contains(p)
                else { return nil }
                port = p
            }
        }
        if !hostRange.isEmpty, b[hostRange.upperBound - 1] == UInt8(ascii: ".") { hostRange = hostRange.lowerBound..<(hostRange.upperBound - 1) }
        host = hostRange
        path = pathStart..<rest.upperBound
    }
}

extension RawURL {
    /// Whether `b` is `http://` or `https://` (any case), then a host of ASCII letters, digits,
    /// `-` and `.` in non-empty labels, none starting `xn--`, the last starting with a letter,
    /// then the end or `/`, `?` or `#`. A browser reads such a URL's host exactly as the plain
    /// split does and never fails to parse it (no user info, port, backslash, percent-escape,
    /// whitespace, IPv4 number or punycode to check), so ``URLParts/init(_:)`` would succeed.
    static func isPlainWebURL(_ b: Bytes) -> Bool {
        var i: Int
        if b.count > 8, ByteText.equalsLowercased(b.slice(0..<8), "https://") {
            i = 8
        } else if b.count > 7, ByteText.equalsLowercased(b.slice(0..<7), "http://") {
            i = 7
        } else {
            return false
        }
        var labelStart = i
        var lastLabelStart = i
        while true {
            let c: UInt8 = i < b.count ? b[i] : UInt8(ascii: "/")
            let letter = ByteText.asciiLower(c) &- UInt8(ascii: "a") < 26
            if letter || c &- UInt8(ascii: "0") < 10 || c == UInt8(ascii: "-") {
                i += 1
                continue
            }
            let endsHost = c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
            guard endsHost || c == UInt8(ascii: ".") else { return false }
            // A label ends here: it must be non-empty and not punycode.
            guard i > labelStart else { return false }
            if i - labelStart >= 4, ByteText.equalsLowercased(b.slice(labelStart..<(labelStart + 4)), "xn--") { return false }
            lastLabelStart = labelStart
            if endsHost { break }
            i += 1
            labelStart = i
        }
        // Not a number, so never read as an IPv4 address.
        return ByteText.asciiLower(b[lastLabelStart]) &- UInt8(ascii: "a") < 26
    }
}
