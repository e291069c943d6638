/// Picks the page language from `Accept-Language` (RFC 9110 §12.5.4) by RFC 4647 lookup: the
/// ranges in order of q-value (ties keep their order), each tried as written and then with its
/// last subtag cut (`pt-BR` → `pt`) before the next range; `*` means the site's default. When
/// nothing matches: the site's `defaultLocale`, else `en`.
public enum LocaleNegotiation {
    /// `(range, q)` in preference order, without ranges of q=0 and malformed entries.
    public static func ranges(_ header: String) -> [(range: String, q: Double)] {
        var out: [(range: String, q: Double, index: Int)] = []
        for (index, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { continue }
            let range = first.trimmingSpaces
            guard !range.isEmpty, range.utf8.count <= 64,
                  range == "*" || range.utf8.allSatisfy({ isAlphaNum($0) || $0 == UInt8(ascii: "-") })
            else { continue }
            var q = 1.0
            for p in pieces.dropFirst() {
                let kv = p.trimmingSpaces
                if kv.lowercased().hasPrefix("q=") {
                    guard let v = Double(kv.dropFirst(2)), v >= 0, v <= 1 else { q = -1; break }
                    q = v
                }
            }
            if q > 0 { out.append((range, q, index)) }
        }
        out.sort { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }
        return out.map { ($0.range, $0.q) }
    }

    /// The tag of `available` to serve (as spelled in `available`).
    public static func choose(acceptLanguage: String?, available: [String], siteDefault: String?) -> String {
        let byLower = Dictionary(available.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        func lookup(_ tag: String) -> String? {
            var t = tag.lowercased()
            while true {
                if let hit = byLower[t] { return hit }
                guard let dash = t.lastIndex(of: "-") else { return nil }
                t = String(t[..<dash])
                // A single-letter subtag (`x`, `u`) cannot stand on its own.
                if t.count >= 2, t[t.index(t.endIndex, offsetBy: -2)] == "-" { t = String(t.dropLast(2)) }
            }
        }
        let fallback = siteDefault.flatMap(lookup) ?? lookup("en") ?? available.first ?? "en"
        guard let header = acceptLanguage else { return fallback }
        for (range, _) in ranges(header) {
            if range == "*" { return fallback }
            if let hit = lookup(range) { return hit }
        }
        return fallback
    }

    static func isAlphaNum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
