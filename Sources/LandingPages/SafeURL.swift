/// A URL that is safe to put in an `href`, `src` or `content` attribute: a relative reference,
/// or an absolute URL whose scheme is `http`, `https` or one the caller allowed explicitly
/// (`intent`, `itms-apps`, `market`, an app's custom scheme). Only the validating initializer
/// makes one, so a `TemplateValue.url` carries its proof with it.
public struct SafeURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL text, with surrounding whitespace and embedded tabs/newlines removed.
    public let string: String

    /// The schemes every check allows.
    public static let alwaysAllowedSchemes: Set<String> = ["http", "https"]

    /// What a rejected URL renders as in a URL attribute.
    public static let invalidReplacement = "about:invalid#linkwell"

    /// Validates `string`; `nil` when it has a scheme outside `http`, `https` and
    /// `allowedSchemes` (compared case-insensitively), contains control characters, or hides a
    /// scheme behind character references or percent-encoding (`&#106;avascript:`,
    /// `java%0Ascript:`).
    public init?(_ string: String, allowedSchemes: Set<String> = []) {
        guard let checked = SafeURL.check(string, allowedSchemes: SafeURL.normalizedSchemes(allowedSchemes)) else {
            return nil
        }
        self.string = checked
    }

    public var description: String { string }

    static func normalizedSchemes(_ schemes: Set<String>) -> Set<String> {
        Set(schemes.map { $0.lowercased() }).union(alwaysAllowedSchemes)
    }

    /// The cleaned URL when `string` is acceptable; `allowed` must be lowercased and include
    /// `http`/`https` (see `normalizedSchemes`).
    static func check(_ string: String, allowedSchemes allowed: Set<String>) -> String? {
        if let verdict = quickCheck(string, allowed) { return verdict ? string : nil }
        var scalars = string.unicodeScalars.map(\.value)
        // What a URL parser strips: leading and trailing C0 controls and spaces.
        while let first = scalars.first, first <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last <= 0x20 { scalars.removeLast() }
        var cleaned: [UInt32] = []
        cleaned.reserveCapacity(scalars.count)
        for c in scalars {
            if c == 0x09 || c == 0x0A || c == 0x0D { continue }  // removed by URL parsers
            if c < 0x20 || (c >= 0x7F && c <= 0x9F) { return nil }  // control characters
            if c == 0x2028 || c == 0x2029 || c == 0xFEFF { return nil }
            cleaned.append(c)
        }
        guard schemeIsAllowed(cleaned, allowed) else { return nil }
        // The same check on what the text could decode to, so an obfuscated scheme is refused
        // even where a browser would not decode it.
        var decoded = cleaned
        for _ in 0..<3 {
            let next = percentDecode(CharacterReferences.decode(decoded)).filter { c in
                !(c <= 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || (c >= 0x200B && c <= 0x200F) || c == 0xFEFF)
            }
            guard schemeIsAllowed(next, allowed) else { return nil }
            if next == decoded { break }
            decoded = next
        }
        return String(String.UnicodeScalarView(cleaned.compactMap(Unicode.Scalar.init)))
    }

    /// The common case without allocating: printable ASCII only, and no `&` or `%` before the
    /// first `: / ? # \\` (so decoding cannot change what the scheme is). `nil`: take the slow path.
    static func quickCheck(_ string: String, _ allowed: Set<String>) -> Bool? {
        var firstSpecial: UInt8 = 0
        var schemeEnd = 0
        var schemeIsValid = true
        var index = 0
        for b in string.utf8 {
            guard b > 0x20 && b < 0x7F else { return nil }
            if firstSpecial == 0 {
                switch b {
                case 0x3A, 0x2F, 0x3F, 0x23, 0x5C:
                    firstSpecial = b
                    schemeEnd = index
                case 0x26, 0x25:
                    return nil
                case 0x41...0x5A, 0x61...0x7A:
                    break
                case 0x30...0x39, 0x2B, 0x2D, 0x2E:
                    if index == 0 { schemeIsValid = false }
                default:
                    schemeIsValid = false
                }
            }
            index += 1
        }
        guard firstSpecial == 0x3A else { return true }
        guard schemeIsValid, schemeEnd > 0 else { return false }
        let scheme = string.utf8.prefix(schemeEnd)
        if scheme.count == 5, scheme.elementsEqual("https".utf8, by: { $0 | 0x20 == $1 }) { return true }
        if scheme.count == 4, scheme.elementsEqual("http".utf8, by: { $0 | 0x20 == $1 }) { return true }
        return allowed.contains(String(decoding: scheme, as: UTF8.self).lowercased())
    }

    /// Relative references pass; anything with `:` before the first `/ ? # \` must name an
    /// allowed scheme.
    static func schemeIsAllowed(_ scalars: [UInt32], _ allowed: Set<String>) -> Bool {
        guard let end = scalars.firstIndex(where: { $0 == 0x3A || $0 == 0x2F || $0 == 0x3F || $0 == 0x23 || $0 == 0x5C })
        else { return true }
        guard scalars[end] == 0x3A else { return true }
        let scheme = scalars[..<end]
        guard let first = scheme.first, isASCIIAlpha(first),
            scheme.allSatisfy({ isASCIIAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return false }
        let name = String(decoding: scheme.map { UInt8($0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0) }, as: UTF8.self)
        return allowed.contains(name)
    }

    static func isASCIIAlpha(_ c: UInt32) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }

    static func percentDecode(_ scalars: [UInt32]) -> [UInt32] {
        guard scalars.contains(0x25) else { return scalars }
        var bytes: [UInt8] = []
        var i = 0
        func hexValue(_ c: UInt32) -> UInt8? {
            switch c {
            case 0x30...0x39: return UInt8(c - 0x30)
            case 0x41...0x46: return UInt8(c - 0x41 + 10)
            case 0x61...0x66: return UInt8(c - 0x61 + 10)
            default: return nil
            }
        }
        var out: [UInt32] = []
        func flush() {
            if !bytes.isEmpty {
                out.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars.map(\.value))
                bytes.removeAll()
            }
        }
        while i < scalars.count {
            if scalars[i] == 0x25, i + 2 < scalars.count, let h = hexValue(scalars[i + 1]), let l = hexValue(scalars[i + 2]) {
                bytes.append(h << 4 | l)
                i += 3
            } else {
                flush()
                out.append(scalars[i])
                i += 1
            }
        }
        flush()
        return out
    }
}
