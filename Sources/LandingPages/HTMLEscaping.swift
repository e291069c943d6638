// Byte-level escapers. Every function appends to a `[UInt8]` buffer so rendering never builds
// intermediate strings; the `String` conveniences are for callers outside the renderer.

public enum HTMLEscaping {
    /// Text between tags: `& < > " '` become character references.
    public static func text(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        appendEscaped(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A quoted attribute value: the same five characters, so neither quote style can be broken.
    public static func attribute(_ string: String) -> String { text(string) }

    static let amp: [UInt8] = Array("&amp;".utf8)
    static let lt: [UInt8] = Array("&lt;".utf8)
    static let gt: [UInt8] = Array("&gt;".utf8)
    static let quot: [UInt8] = Array("&quot;".utf8)
    static let apos: [UInt8] = Array("&#39;".utf8)
    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inline(__always)
    static func isHTMLSpecial(_ b: UInt8) -> Bool {
        b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27
    }

    @inline(__always)
    static func appendEntity(for b: UInt8, to out: inout [UInt8]) {
        switch b {
        case 0x26: out.append(contentsOf: amp)
        case 0x3C: out.append(contentsOf: lt)
        case 0x3E: out.append(contentsOf: gt)
        case 0x22: out.append(contentsOf: quot)
        default: out.append(contentsOf: apos)
        }
    }

    /// Appends `string` with `& < > " '` escaped.
    static func appendEscaped(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for i in 0..<bytes.count where isHTMLSpecial(bytes[i]) {
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                appendEntity(for: bytes[i], to: &out)
                runStart = i + 1
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
    }

    @inline(__always)
    static func appendPercent(_ b: UInt8, to out: inout [UInt8]) {
        out.append(0x25)
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0x0F)])
    }

    /// A URL piece after the scheme is settled (path part): bytes that may not appear in a URL
    /// are percent-encoded, reserved characters and existing `%xx` are kept, then `&` and `'` are
    /// escaped for the attribute.
    static func appendURLNormalized(_ string: String, to out: inout [UInt8]) {
        for b in string.utf8 {
            switch b {
            case 0x00...0x20, 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D, 0x7F...0xFF:
                appendPercent(b, to: &out)
            case 0x26, 0x27:
                appendEntity(for: b, to: &out)
            default:
                out.append(b)
            }
        }
    }

    /// A URL piece in the query or fragment: everything but the unreserved characters
    /// `A-Z a-z 0-9 - . _ ~` is percent-encoded (the result needs no HTML escaping).
    static func appendURLQueryComponent(_ string: String, to out: inout [UInt8]) {
        for b in string.utf8 {
            switch b {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E:
                out.append(b)
            default:
                appendPercent(b, to: &out)
            }
        }
    }
}

// MARK: - Character references

/// Decoding of HTML character references, enough to see what a URL or an attribute value
/// turns into once the browser has decoded it: all numeric references (with or without `;`)
/// and the named references that matter for URLs. Unknown names are left as they are.
enum CharacterReferences {
    static let named: [String: UInt32] = [
        "amp": 0x26, "lt": 0x3C, "gt": 0x3E, "quot": 0x22, "apos": 0x27, "colon": 0x3A, "Tab": 0x09,
        "NewLine": 0x0A, "sol": 0x2F, "bsol": 0x5C, "quest": 0x3F, "num": 0x23, "period": 0x2E,
        "percnt": 0x25, "nbsp": 0xA0, "excl": 0x21, "lpar": 0x28, "rpar": 0x29, "comma": 0x2C,
        "semi": 0x3B, "equals": 0x3D, "plus": 0x2B, "commat": 0x40, "dollar": 0x24, "ast": 0x2A,
        "lowbar": 0x5F, "grave": 0x60, "Hat": 0x5E, "verbar": 0x7C, "lsqb": 0x5B, "rsqb": 0x5D,
        "lcub": 0x7B, "rcub": 0x7D, "shy": 0xAD, "zwj": 0x200D, "zwnj": 0x200C,
    ]

    static func isAlnum(_ c: UInt32) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    /// Decodes the references in `scalars`.
    static func decode(_ scalars: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(scalars.count)
        var i = 0
        let n = scalars.count
        while i < n {
            let c = scalars[i]
            guard c == 0x26, i + 1 < n else {
                out.append(c)
                i += 1
                continue
            }
            if scalars[i + 1] == 0x23 {  // &#
                var j = i + 2
                var hex = false
                if j < n, scalars[j] == 0x78 || scalars[j] == 0x58 {
                    hex = true
                    j += 1
                }
                var value: UInt32 = 0
                var digits = 0
                while j < n {
                    let d = scalars[j]
                    var digit: UInt32
                    if d >= 0x30 && d <= 0x39 {
                        digit = d - 0x30
                    } else if hex && d >= 0x61 && d <= 0x66 {
                        digit = d - 0x61 + 10
                    } else if hex && d >= 0x41 && d <= 0x46 {
                        digit = d - 0x41 + 10
                    } else {
                        break
                    }
                    if value < 0x110000 { value = value * (hex ? 16 : 10) + digit }
                    digits += 1
                    j += 1
                }
                if digits == 0 {
                    out.append(c)
                    i += 1
                    continue
                }
                if j < n, scalars[j] == 0x3B { j += 1 }
                if value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF) { value = 0xFFFD }
                out.append(value)
                i = j
                continue
            }
            var j = i + 1
            while j < n, isAlnum(scalars[j]), j - i <= 32 { j += 1 }
            if j < n, scalars[j] == 0x3B, j > i + 1 {
                let name = String(String.UnicodeScalarView(scalars[(i + 1)..<j].compactMap(Unicode.Scalar.init)))
                if let value = named[name] {
                    out.append(value)
                    i = j + 1
                    continue
                }
            }
            out.append(c)
            i += 1
        }
        return out
    }

    /// True when `bytes` ends inside a character reference that more text could complete
    /// (`&`, `&#`, `&#x6`, `&colo`).
    static func endsInsideReference(_ bytes: [UInt8]) -> Bool {
        var i = bytes.count - 1
        while i >= 0 {
            let b = bytes[i]
            if b == 0x26 { return true }
            if isAlnum(UInt32(b)) || b == 0x23 {
                i -= 1
                continue
            }
            return false
        }
        return false
    }
}
