/// Strong entity tags for bytes served from memory, and `If-None-Match` evaluation (RFC 9110 §13.1.2).
public enum EntityTag {
    /// `"<16 hex digits>"`: FNV-1a 64 of the bytes, quoted. Strong: equal tags mean equal bytes.
    public static func strong(for bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// True when `If-None-Match` matches `etag` under weak comparison (what RFC 9110 requires for
    /// If-None-Match): `*`, or any listed tag with the same opaque value, `W/` or not.
    public static func noneMatchHits(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let target = opaque(Substring(etag))
        for raw in header.split(separator: ",") {
            let item = raw.trimmingSpaces
            if item == "*" { return true }
            if opaque(item) == target { return true }
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    var trimmingSpaces: SubSequence {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
