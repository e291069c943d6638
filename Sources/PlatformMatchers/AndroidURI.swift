// The parts of android.net.Uri (StringUri) and android.net.UriCodec that Dynamic App Link matching
// reads: getPath(), getQuery() and getFragment(), each percent-DECODED. Parsed by hand on UTF-16
// units, the way Android does it, with none of Foundation URL's normalisation.

struct AndroidURI: Sendable {
    /// `getPath()`: `nil` for an opaque URI (`mailto:x`), `""` when an authority has no path.
    let path: [UInt16]?
    /// `getQuery()`: `nil` without `?` (or when `#` comes before `?`).
    let query: [UInt16]?
    /// `getFragment()`: `nil` without `#`.
    let fragment: [UInt16]?

    init(_ string: String) {
        let s = Array(string.utf16)
        // findSchemeSeparator: the first ':' anywhere.
        let ssi = s.firstIndex(of: Unit.colon) ?? -1
        path = Self.encodedPath(s, ssi).map(Self.decode)
        let from = max(ssi, 0)
        let fsi = s[from...].firstIndex(of: Unit.hash)
        if let qsi = s[from...].firstIndex(of: Unit.question) {
            if let fsi {
                query = fsi < qsi ? nil : Self.decode(Array(s[(qsi + 1)..<fsi]))
            } else {
                query = Self.decode(Array(s[(qsi + 1)...]))
            }
        } else {
            query = nil
        }
        fragment = fsi.map { Self.decode(Array(s[($0 + 1)...])) }
    }

    /// StringUri.parsePath.
    private static func encodedPath(_ s: [UInt16], _ ssi: Int) -> [UInt16]? {
        let length = s.count
        if ssi > -1 {
            if ssi + 1 == length { return nil }  // scheme only
            if s[ssi + 1] != Unit.slash { return nil }  // opaque
        }
        var pathStart: Int
        if length > ssi + 2 && s[ssi + 1] == Unit.slash && s[ssi + 2] == Unit.slash {
            // Skip the authority; '\' starts the path too (WHATWG host state).
            pathStart = ssi + 3
            scan: while pathStart < length {
                switch s[pathStart] {
                case Unit.question, Unit.hash: return []
                case Unit.slash, Unit.backslash: break scan
                default: pathStart += 1
                }
            }
        } else {
            pathStart = ssi + 1
        }
        var pathEnd = pathStart
        while pathEnd < length && s[pathEnd] != Unit.question && s[pathEnd] != Unit.hash { pathEnd += 1 }
        return Array(s[pathStart..<pathEnd])
    }

    /// `Uri.decode` = `UriCodec.decode(s, convertPlus: false, UTF-8, throwOnFailure: false)`,
    /// including its quirk: after a bad hex digit it emits U+FFFD *and* still keeps the byte built
    /// so far (`%zz` → U+FFFD, U+0000, `z`). Malformed UTF-8 becomes U+FFFD.
    static func decode(_ s: [UInt16]) -> [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(s.count)
        var bytes: [UInt8] = []
        func flush() {
            if bytes.isEmpty { return }
            out += Array(String(decoding: bytes, as: UTF8.self).utf16)
            bytes.removeAll(keepingCapacity: true)
        }
        var i = 0
        while i < s.count {
            let c = s[i]
            i += 1
            guard c == Unit.percent else {
                flush()
                out.append(c)
                continue
            }
            var value: UInt8 = 0
            digits: for _ in 0..<2 {
                guard i < s.count else {
                    flush()
                    out.append(0xFFFD)
                    return out
                }
                let h = s[i]
                i += 1
                guard let digit = hexValue(h) else {
                    flush()
                    out.append(0xFFFD)
                    break digits
                }
                value = value &* 16 &+ digit
            }
            bytes.append(value)
        }
        flush()
        return out
    }

    private static func hexValue(_ c: UInt16) -> UInt8? {
        switch c {
        case 0x30...0x39: return UInt8(c - 0x30)
        case 0x61...0x66: return UInt8(c - 0x61 + 10)
        case 0x41...0x46: return UInt8(c - 0x41 + 10)
        default: return nil
        }
    }

    /// Java `String.split(String.valueOf(separator))` (limit 0): no separator → the whole string;
    /// otherwise the pieces with trailing empty ones removed ("&" → no pieces at all).
    static func javaSplit(_ s: [UInt16], on separator: UInt16) -> [[UInt16]] {
        guard s.contains(separator) else { return [s] }
        var pieces = s.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
        while let last = pieces.last, last.isEmpty { pieces.removeLast() }
        return pieces
    }
}
