/// A numeric IPv4 or IPv6 address as 4 or 16 bytes, parsed without the C library
/// (so tests and proxy trust behave the same everywhere). IPv4-mapped IPv6 (`::ffff:a.b.c.d`)
/// is folded to IPv4.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    public init?(_ text: some StringProtocol) {
        var s = Substring(text)
        if s.hasPrefix("[") && s.hasSuffix("]") { s = s.dropFirst().dropLast() }
        if let percent = s.firstIndex(of: "%") { s = s[..<percent] }  // zone ID: fe80::1%eth0
        if s.contains(":") {
            guard let b = Self.parseIPv6(s) else { return nil }
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
                bytes = Array(b[12..<16])
            } else {
                bytes = b
            }
        } else {
            guard let b = Self.parseIPv4(s) else { return nil }
            bytes = b
        }
    }

    static func parseIPv4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let v = UInt8(p), !(p.count > 1 && p.hasPrefix("0")) else { return nil }
            out.append(v)
        }
        return out
    }

    static func parseIPv6(_ s: Substring) -> [UInt8]? {
        let halves = s.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, allowIPv4Tail: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            let items = part.split(separator: ":", omittingEmptySubsequences: false)
            var out: [UInt8] = []
            for (i, item) in items.enumerated() {
                if i == items.count - 1, allowIPv4Tail, item.contains(".") {
                    guard let v4 = parseIPv4(item) else { return nil }
                    out += v4
                    continue
                }
                guard (1...4).contains(item.count), let v = UInt16(item, radix: 16) else { return nil }
                out.append(UInt8(v >> 8))
                out.append(UInt8(v & 0xFF))
            }
            return out
        }
        if halves.count == 1 {
            guard let all = groups(halves[0], allowIPv4Tail: true), all.count == 16 else { return nil }
            return all
        }
        guard let head = groups(halves[0], allowIPv4Tail: false),
              let tail = groups(halves[1], allowIPv4Tail: true),
              head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var words: [UInt16] = []
        for i in stride(from: 0, to: 16, by: 2) { words.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])) }
        // Longest run of zero words (length ≥ 2) becomes "::" (RFC 5952).
        var bestStart = -1, bestLength = 0, i = 0
        while i < 8 {
            if words[i] == 0 {
                var j = i
                while j < 8 && words[j] == 0 { j += 1 }
                if j - i > bestLength && j - i >= 2 { bestStart = i; bestLength = j - i }
                i = j
            } else { i += 1 }
        }
        func hex(_ r: ArraySlice<UInt16>) -> String { r.map { String($0, radix: 16) }.joined(separator: ":") }
        if bestStart < 0 { return hex(words[...]) }
        return hex(words[..<bestStart]) + "::" + hex(words[(bestStart + bestLength)...])
    }
}

/// A CIDR block: `127.0.0.0/8`, `::1/128`, `10.1.2.3` (a single address).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(parts[0]) else { return nil }
        var maxLength = address.isIPv4 ? 32 : 128
        var length = maxLength
        if parts.count == 2 {
            guard let l = Int(parts[1]), parts[1].allSatisfy(\.isNumber) else { return nil }
            length = l
            // `::ffff:10.0.0.0/104` was folded to IPv4: shift the prefix too.
            if address.isIPv4 && parts[0].contains(":") { length -= 96; maxLength = 32 }
            guard (0...maxLength).contains(length) else { return nil }
        }
        self.address = address
        self.prefixLength = length
    }

    public func contains(_ ip: IPAddress) -> Bool {
        guard ip.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for i in 0..<ip.bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if ip.bytes[i] & mask != address.bytes[i] & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String { "\(address)/\(prefixLength)" }
}
