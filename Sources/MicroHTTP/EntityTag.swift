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
    /// If-None-Match): `*`, or any listed tag with the same opaque value, `W/` or not. Compared on
    /// the header's bytes: no substrings, no Character (grapheme) walk.
    public static func noneMatchHits(_ header: String?, etag: String) -> Bool {
        guard var header else { return false }
        var etag = etag
        return etag.withUTF8 { tag in
            header.withUTF8 { h in
                let target = opaque(tag, 0, tag.count)
                var start = 0
                while start <= h.count {
                    var end = start
                    while end < h.count && h[end] != 0x2C { end += 1 }  // ','
                    var lo = start, hi = end
                    while lo < hi && (h[lo] == 0x20 || h[lo] == 0x09) { lo += 1 }
                    while hi > lo && (h[hi - 1] == 0x20 || h[hi - 1] == 0x09) { hi -= 1 }
                    if hi - lo == 1 && h[lo] == 0x2A { return true }  // '*'
                    let item = opaque(h, lo, hi)
                    if end > start && item.elementsEqual(target) { return true }
                    start = end + 1
                }
                return false
            }
        }
    }

    /// The bytes of `bytes[lo..<hi]` without a leading `W/`.
    private static func opaque(_ bytes: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Slice<UnsafeBufferPointer<UInt8>> {
        hi - lo >= 2 && bytes[lo] == 0x57 && bytes[lo + 1] == 0x2F ? bytes[(lo + 2)..<hi] : bytes[lo..<hi]
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
