// Byte views and comparisons shared by resolution (RouteTable+Resolve.swift).

typealias Bytes = UnsafeBufferPointer<UInt8>

extension UnsafeBufferPointer where Element == UInt8 {
    @inline(__always)
    func slice(_ r: Range<Int>) -> Bytes { Bytes(rebasing: self[r]) }

    @inline(__always)
    var isASCII: Bool {
        for b in self where b >= 0x80 { return false }
        return true
    }

    @inline(__always)
    func sameBytes(_ other: Bytes) -> Bool {
        guard count == other.count else { return false }
        for i in 0..<count where self[i] != other[i] { return false }
        return true
    }

    @inline(__always)
    func firstIndex(of b: UInt8, in r: Range<Int>) -> Int? {
        guard let p = baseAddress else { return nil }
        var i = r.lowerBound
        while i < r.upperBound {
            if p[i] == b { return i }
            i &+= 1
        }
        return nil
    }

    @inline(__always)
    func lastIndex(of b: UInt8, in r: Range<Int>) -> Int? {
        guard let p = baseAddress else { return nil }
        var i = r.upperBound
        while i > r.lowerBound {
            i &-= 1
            if p[i] == b { return i }
        }
        return nil
    }
}

enum ByteText {
    /// Whether `bytes` and `text` are equal as Swift compares strings: equal bytes are, ASCII
    /// texts with different bytes are not, anything else is compared as `String`s.
    static func equals(_ bytes: Bytes, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { t in
            if bytes.sameBytes(t) { return true }
            if bytes.isASCII && t.isASCII { return false }
            return String(decoding: bytes, as: UTF8.self) == String(decoding: t, as: UTF8.self)
        }
    }

    /// ASCII letters lower-cased, as `String.lowercased()` does for ASCII text.
    static func lowercasedString(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for i in 0..<bytes.count { out[i] = asciiLower(bytes[i]) }
            return bytes.count
        }
    }

    @inline(__always)
    static func asciiLower(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }

    /// Whether `bytes`, ASCII letters lower-cased, are `lower` (an ASCII lower-case literal).
    @inline(__always)
    static func equalsLowercased(_ bytes: Bytes, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        for i in 0..<bytes.count where asciiLower(bytes[i]) != l[i] { return false }
        return true
    }
}
