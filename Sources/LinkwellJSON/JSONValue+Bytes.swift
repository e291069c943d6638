// The serialiser again, writing UTF-8 bytes into one buffer: the generators' megabyte-sized
// association files without a `String` append (and its Unicode-scalar walk) per character.
// Same rules as `serialized(_:sortKeys:)`, byte for byte (`SerializationTests` compares them).

extension JSONValue {
    /// The UTF-8 bytes of ``serialized(_:sortKeys:)``, written directly (no intermediate `String`).
    public func serializedBytes(_ layout: Layout = .pretty, sortKeys: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(bytes: &out, layout: layout, sortKeys: sortKeys, indent: 0)
        if layout == .pretty { out.append(UInt8(ascii: "\n")) }
        return out
    }

    private static func newline(_ out: inout [UInt8], indent: Int) {
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(2 * indent) { out.append(UInt8(ascii: " ")) }
    }

    private func write(bytes out: inout [UInt8], layout: Layout, sortKeys: Bool, indent: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .number(n): out.append(contentsOf: n.utf8)
        case let .string(s): JSONValue.writeString(bytes: s, into: &out)
        case let .array(elements):
            if elements.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if layout == .pretty { JSONValue.newline(&out, indent: indent + 1) }
                element.write(bytes: &out, layout: layout, sortKeys: sortKeys, indent: indent + 1)
            }
            if layout == .pretty { JSONValue.newline(&out, indent: indent) }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            // Keys by their UTF-8 bytes, duplicates in their order (a stable sort of the positions).
            let order = sortKeys
                ? members.indices.sorted { a, b in
                    let ka = members[a].key.utf8
                    let kb = members[b].key.utf8
                    if !ka.elementsEqual(kb) { return ka.lexicographicallyPrecedes(kb) }
                    return a < b
                }
                : Array(members.indices)
            out.append(UInt8(ascii: "{"))
            for (i, m) in order.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if layout == .pretty { JSONValue.newline(&out, indent: indent + 1) }
                JSONValue.writeString(bytes: members[m].key, into: &out)
                out.append(UInt8(ascii: ":"))
                if layout == .pretty { out.append(UInt8(ascii: " ")) }
                members[m].value.write(bytes: &out, layout: layout, sortKeys: sortKeys, indent: indent + 1)
            }
            if layout == .pretty { JSONValue.newline(&out, indent: indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// ``writeString(_:escaping:into:)`` (standard escaping) on bytes.
    static func writeString(bytes s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            func escape(_ c: UInt8) {
                out.append(UInt8(ascii: "\\"))
                out.append(c)
            }
            var i = 0
            while i < u.count {
                let b = u[i]
                switch b {
                case UInt8(ascii: "\""): escape(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): escape(UInt8(ascii: "\\"))
                case UInt8(ascii: "\n"): escape(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): escape(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): escape(UInt8(ascii: "t"))
                case 0x08: escape(UInt8(ascii: "b"))
                case 0x0C: escape(UInt8(ascii: "f"))
                case 0..<0x20:
                    out.append(contentsOf: "\\u00".utf8)
                    let low = b & 0xF
                    out.append(b >> 4 == 0 ? UInt8(ascii: "0") : UInt8(ascii: "1"))
                    out.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + (low - 10))
                case 0xE2 where i + 2 < u.count && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                    // U+2028 / U+2029, JavaScript's line terminators.
                    out.append(contentsOf: "\\u202".utf8)
                    out.append(u[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                    i += 3
                    continue
                default:
                    out.append(b)
                }
                i += 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
