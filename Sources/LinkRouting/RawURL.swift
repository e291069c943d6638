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
        if let p = b.baseAddress {
            var i = colon + 1
            while i < b.count {
                let c = p[i]
                if c == UInt8(ascii: "#") {
                    hash = i
                    break
                }
                if c == UInt8(ascii: "?") && q < 0 { q = i }
                i &+= 1
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
