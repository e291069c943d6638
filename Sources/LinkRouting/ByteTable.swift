/// An open-addressing table from (parent, byte string) to a value, for hosts and the trie's
/// literal edges. Lookups hash and compare bytes, no `String` is made; a slot holds the key's
/// hash, length and first 8 bytes, so most lookups read one slot and nothing else.
struct ByteTable: Sendable {
    private struct Slot: Sendable {
        var length: Int32 = -1  // -1: empty
        var hash: UInt32 = 0
        var parent: Int32 = 0
        var value: Int32 = 0
        var head: UInt64 = 0  // the first 8 bytes, little-endian, zero-padded
        var start: Int32 = 0  // the key's bytes in `pool`
    }

    private var pool: [UInt8] = []
    private var slots: [Slot] = []
    private var mask = 0

    init(_ items: [(parent: Int, key: String, value: Int)]) {
        var capacity = 8
        while capacity < items.count * 2 { capacity *= 2 }
        slots = Array(repeating: Slot(), count: capacity)
        mask = capacity - 1
        for item in items {
            let start = pool.count
            pool.append(contentsOf: item.key.utf8)
            let (hash, head) = pool.withUnsafeBufferPointer { p in ByteTable.hash(parent: item.parent, p.slice(start..<p.count), lowercasing: false) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].length >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(
                length: Int32(pool.count - start), hash: UInt32(truncatingIfNeeded: hash), parent: Int32(item.parent), value: Int32(item.value),
                head: head, start: Int32(start))
        }
    }

    /// FNV-1a over the bytes (seeded with the parent), and the first 8 bytes.
    @inline(__always)
    private static func hash(parent: Int, _ key: Bytes, lowercasing: Bool) -> (UInt64, UInt64) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15)
        var head: UInt64 = 0
        for i in 0..<key.count {
            let b = lowercasing ? ByteText.asciiLower(key[i]) : key[i]
            if i < 8 { head |= UInt64(b) << (8 * UInt64(i)) }
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3
        }
        return (h ^ (h >> 29), head)
    }

    /// The value of the key whose bytes are `key` (ASCII letters lower-cased first when
    /// `lowercasing`) under `parent`; nil when there is none.
    func find(parent: Int, _ key: Bytes, lowercasing: Bool) -> Int? {
        let (hash, head) = ByteTable.hash(parent: parent, key, lowercasing: lowercasing)
        let hash32 = UInt32(truncatingIfNeeded: hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let s = slots[slot]
            if s.length < 0 { return nil }
            if s.hash == hash32, s.head == head, Int(s.length) == key.count, Int(s.parent) == parent {
                if key.count <= 8 { return Int(s.value) }
                let same = pool.withUnsafeBufferPointer { pool in
                    let start = Int(s.start)
                    for i in 8..<key.count where (lowercasing ? ByteText.asciiLower(key[i]) : key[i]) != pool[start + i] { return false }
                    return true
                }
                if same { return Int(s.value) }
            }
            slot = (slot + 1) & mask
        }
    }
}
