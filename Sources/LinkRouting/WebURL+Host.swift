import Foundation

/// The WHATWG host parser for special URLs: IPv6 in brackets, percent-decoding, domain to ASCII
/// (IDNA with punycode), forbidden code points, and IPv4 in all the forms browsers accept.
enum WebURLHost {
    /// The serialized host, or nil where a browser fails (or, for unusual internationalized
    /// labels, where Linkwell refuses rather than guess).
    static func parse(_ input: [Unicode.Scalar]) -> String? {
        if input.first == "[" {
            guard input.last == "]", input.count >= 2, let address = parseIPv6(Array(input[1..<(input.count - 1)])) else { return nil }
            return "[" + serializeIPv6(address) + "]"
        }
        // Percent-decode to bytes, then read them as UTF-8 (invalid sequences become U+FFFD,
        // which IDNA then refuses).
        var bytes: [UInt8] = []
        for c in input { bytes.append(contentsOf: String(c).utf8) }
        let decoded = PercentEncoding.decode(bytes)
        guard let ascii = domainToASCII(decoded) else { return nil }
        for c in ascii.unicodeScalars where isForbiddenDomainCodePoint(c) { return nil }
        if endsInANumber(ascii) {
            guard let v4 = parseIPv4(ascii) else { return nil }
            return "\(v4 >> 24).\((v4 >> 16) & 0xFF).\((v4 >> 8) & 0xFF).\(v4 & 0xFF)"
        }
        return ascii
    }

    static func isForbiddenDomainCodePoint(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v <= 0x20 || v == 0x7F || v == 0x25 { return true }
        switch c {
        case "#", "/", ":", "<", ">", "?", "@", "[", "\\", "]", "^", "|": return true
        default: return false
        }
    }

    // MARK: Domain to ASCII

    /// UTS #46 ToASCII as the URL standard calls it (no hyphen checks, non-transitional, no DNS
    /// length check) for ASCII and for labels of letters, marks and digits; nil otherwise.
    static func domainToASCII(_ domain: String) -> String? {
        if domain.utf8.allSatisfy({ $0 < 0x80 }) {
            let lower = String(decoding: domain.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
            // A label already in punycode must decode to a valid label.
            for label in lower.split(separator: ".", omittingEmptySubsequences: false) where label.hasPrefix("xn--") {
                guard let unicode = Punycode.decode(String(label.dropFirst(4))), !unicode.isEmpty,
                      unicode.unicodeScalars.contains(where: { $0.value >= 0x80 }),
                      isValidUnicodeLabel(unicode), Punycode.encode(unicode) == String(label.dropFirst(4))
                else { return nil }
            }
            return lower
        }
        // Case-fold and compatibility-map (NFKC), map the ideographic full stops to `.`, drop
        // the code points UTS #46 ignores.
        var mapped = ""
        for c in domain.lowercased().precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars {
            switch c.value {
            case 0x3002, 0xFF0E, 0xFF61: mapped.unicodeScalars.append(".")
            case 0x00AD, 0x034F, 0x180B...0x180D, 0x200B, 0x2060, 0xFE00...0xFE0F, 0xFEFF: continue
            default: mapped.unicodeScalars.append(c)
            }
        }
        mapped = mapped.precomposedStringWithCanonicalMapping
        var labels: [String] = []
        for label in mapped.split(separator: ".", omittingEmptySubsequences: false) {
            let l = String(label)
            if l.utf8.allSatisfy({ $0 < 0x80 }) {
                if l.hasPrefix("xn--") { return nil }
                labels.append(l)
                continue
            }
            guard isValidUnicodeLabel(l), let encoded = Punycode.encode(l) else { return nil }
            labels.append("xn--" + encoded)
        }
        return labels.joined(separator: ".")
    }

    /// Letters, combining marks and decimal digits (not first a mark), `-`; no bidi or joiner
    /// subtleties: a label outside this is refused (stricter than a browser, never different).
    static func isValidUnicodeLabel(_ label: String) -> Bool {
        guard let first = label.unicodeScalars.first, !isMark(first) else { return false }
        var hasRTL = false
        for c in label.unicodeScalars {
            if c.value < 0x80 {
                guard (c.value | 0x20 >= 0x61 && c.value | 0x20 <= 0x7A) || (c.value >= 0x30 && c.value <= 0x39) || c == "-" else { return false }
                continue
            }
            switch c.properties.generalCategory {
            case .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .decimalNumber: break
            default: return false
            }
            // ß and final sigma are kept as they are (UTS #46 non-transitional processing).
            if c.properties.changesWhenNFKCCaseFolded, c != "\u{DF}", c != "\u{3C2}" { return false }
            // Right-to-left scripts need the bidi rule; refuse rather than approximate it.
            if (0x0590...0x08FF).contains(c.value) || (0xFB1D...0xFDFF).contains(c.value) || (0xFE70...0xFEFF).contains(c.value) { hasRTL = true }
        }
        return !hasRTL
    }

    static func isMark(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    // MARK: IPv4

    static func endsInANumber(_ host: String) -> Bool {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty, last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return ipv4Number(last) != nil
    }

    static func parseIPv4(_ host: String) -> UInt32? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for p in parts {
            guard let n = ipv4Number(p) else { return nil }
            numbers.append(n)
        }
        for n in numbers.dropLast() where n > 255 { return nil }
        let last = numbers[numbers.count - 1]
        guard last < (UInt64(1) << (8 * UInt64(5 - numbers.count))) else { return nil }
        var v = last
        for (i, n) in numbers.dropLast().enumerated() { v += n << (8 * UInt64(3 - i)) }
        return UInt32(v)
    }

    /// One part: decimal, `0x` hex or `0` octal; nil when empty or not a number (values past
    /// 2^32 are kept large enough to fail the range check).
    static func ipv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var s = Substring(part)
        var radix: UInt64 = 10
        if s.count >= 2, s.hasPrefix("0x") || s.hasPrefix("0X") {
            radix = 16
            s = s.dropFirst(2)
        } else if s.count >= 2, s.hasPrefix("0") {
            radix = 8
            s = s.dropFirst()
        }
        if s.isEmpty { return 0 }
        var v: UInt64 = 0
        for b in s.utf8 {
            let d: UInt64
            switch b {
            case 0x30...0x39: d = UInt64(b - 0x30)
            case 0x61...0x66: d = UInt64(b - 0x61 + 10)
            case 0x41...0x46: d = UInt64(b - 0x41 + 10)
            default: return nil
            }
            guard d < radix else { return nil }
            v = min(v * radix + d, UInt64(1) << 40)
        }
        return v
    }

    // MARK: IPv6

    static func parseIPv6(_ s: [Unicode.Scalar]) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var piece = 0
        var compress: Int?
        var i = 0
        func hex(_ c: Unicode.Scalar) -> UInt16? {
            switch c.value {
            case 0x30...0x39: UInt16(c.value - 0x30)
            case 0x61...0x66: UInt16(c.value - 0x61 + 10)
            case 0x41...0x46: UInt16(c.value - 0x41 + 10)
            default: nil
            }
        }
        if i < s.count, s[i] == ":" {
            guard i + 1 < s.count, s[i + 1] == ":" else { return nil }
            i += 2
            piece += 1
            compress = piece
        }
        while i < s.count {
            guard piece < 8 else { return nil }
            if s[i] == ":" {
                guard compress == nil else { return nil }
                i += 1
                piece += 1
                compress = piece
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, i < s.count, let h = hex(s[i]) {
                value = value * 16 + h
                i += 1
                length += 1
            }
            if i < s.count, s[i] == "." {
                guard length > 0 else { return nil }
                i -= length
                guard piece <= 6 else { return nil }
                var numbersSeen = 0
                while i < s.count {
                    var ipv4Piece: Int?
                    if numbersSeen > 0 {
                        guard s[i] == ".", numbersSeen < 4 else { return nil }
                        i += 1
                    }
                    guard i < s.count, WebURLParser.asciiDigit(s[i]) != nil else { return nil }
                    while i < s.count, let d = WebURLParser.asciiDigit(s[i]) {
                        if ipv4Piece == nil {
                            ipv4Piece = d
                        } else if ipv4Piece == 0 {
                            return nil
                        } else {
                            ipv4Piece = ipv4Piece! * 10 + d
                        }
                        guard ipv4Piece! <= 255 else { return nil }
                        i += 1
                    }
                    address[piece] = address[piece] * 0x100 + UInt16(ipv4Piece!)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { piece += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if i < s.count, s[i] == ":" {
                i += 1
                guard i < s.count else { return nil }
            } else if i < s.count {
                return nil
            }
            address[piece] = value
            piece += 1
        }
        if let c = compress {
            var swaps = piece - c
            piece = 7
            while piece != 0 && swaps > 0 {
                address.swapAt(piece, c + swaps - 1)
                piece -= 1
                swaps -= 1
            }
        } else if piece != 8 {
            return nil
        }
        return address
    }

    static func serializeIPv6(_ a: [UInt16]) -> String {
        // The first longest run of two or more zero pieces is compressed.
        var best = -1, bestLength = 1, i = 0
        while i < 8 {
            if a[i] == 0 {
                var j = i
                while j < 8, a[j] == 0 { j += 1 }
                if j - i > bestLength {
                    best = i
                    bestLength = j - i
                }
                i = j
            } else {
                i += 1
            }
        }
        var out = ""
        var ignore0 = false
        for k in 0..<8 {
            if ignore0 && a[k] == 0 { continue }
            ignore0 = false
            if k == best {
                out += k == 0 ? "::" : ":"
                ignore0 = true
                continue
            }
            out += String(a[k], radix: 16)
            if k != 7 { out += ":" }
        }
        return out
    }
}

/// Punycode (RFC 3492) for IDNA labels.
enum Punycode {
    static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    static func digit(_ d: Int) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? d + 0x61 : d - 26 + 0x30)))
    }

    static func encode(_ input: String) -> String? {
        let scalars = input.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(input.unicodeScalars.filter { $0.value < 0x80 }))
        let basic = output.count
        var h = basic
        if basic > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while h < scalars.count {
            guard let m = scalars.filter({ $0 >= n }).min() else { return nil }
            guard (m - n) <= (Int(Int32.max) - delta) / (h + 1) else { return nil }
            delta += (m - n) * (h + 1)
            n = m
            for c in scalars {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, h + 1, h == basic)
                    delta = 0
                    h += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }

    static func decode(_ input: String) -> String? {
        let bytes = Array(input.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        var output: [Int] = []
        var start = 0
        if let dash = bytes.lastIndex(of: UInt8(ascii: "-")) {
            output = bytes[0..<dash].map(Int.init)
            start = dash + 1
        }
        var n = initialN, i = 0, bias = initialBias
        var pos = start
        while pos < bytes.count {
            let oldi = i
            var w = 1
            var k = base
            while true {
                guard pos < bytes.count else { return nil }
                let b = bytes[pos]
                pos += 1
                let d: Int
                switch b {
                case 0x61...0x7A: d = Int(b - 0x61)
                case 0x41...0x5A: d = Int(b - 0x41)
                case 0x30...0x39: d = Int(b - 0x30) + 26
                default: return nil
                }
                guard d <= (Int(Int32.max) - i) / w else { return nil }
                i += d * w
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                guard w <= Int(Int32.max) / (base - t) else { return nil }
                w *= base - t
                k += base
            }
            bias = adapt(i - oldi, output.count + 1, oldi == 0)
            guard i / (output.count + 1) <= Int(Int32.max) - n else { return nil }
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF, !(0xD800...0xDFFF).contains(n) else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        var s = ""
        for v in output {
            guard let c = Unicode.Scalar(v) else { return nil }
            s.unicodeScalars.append(c)
        }
        return s
    }
}
