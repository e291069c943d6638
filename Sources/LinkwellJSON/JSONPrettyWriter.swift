// A streaming writer for the pretty layout of `serializedBytes(.pretty)`: the same bytes, written
// as the caller walks its own data, with no `JSONValue` tree in between. The association files
// of a large site are thousands of small objects; building and sorting each one only to print
// it was most of their cost.
//
// The caller writes each object's keys in the serialiser's order (sorted by their UTF-8 bytes,
// duplicates in their order); ``sortedByUTF8(_:key:)`` orders keys that come from a config.

/// Writes JSON in the pretty layout of ``JSONValue/serializedBytes(_:sortKeys:)``, byte for byte.
public struct JSONPrettyWriter {
    /// The document written so far (UTF-8).
    public private(set) var bytes: [UInt8]
    /// One flag per open container: true while it has no member yet.
    private var empty: [Bool] = []
    /// A key was written; the next value follows it on the same line.
    private var afterKey = false

    /// An empty writer whose buffer starts with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The document's bytes with the layout's final newline.
    public mutating func finish() -> [UInt8] {
        precondition(empty.isEmpty && !afterKey, "every container closed")
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private mutating func startValue() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = empty.indices.last else { return }
        if empty[last] {
            empty[last] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        newline(indent: empty.count)
    }

    private mutating func newline(indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// An object member's key; its value is written next.
    public mutating func key(_ key: String) {
        startValue()
        JSONValue.writeString(bytes: key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        afterKey = true
    }

    /// Writes `s` as a JSON string value, escaped as `serializedBytes(.pretty)` escapes it.
    public mutating func string(_ s: String) {
        startValue()
        JSONValue.writeString(bytes: s, into: &bytes)
    }

    /// Writes `true` or `false` as a value.
    public mutating func bool(_ b: Bool) {
        startValue()
        bytes.append(contentsOf: (b ? "true" : "false").utf8)
    }

    /// An array of strings, written whole.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for v in values { string(v) }
        endArray()
    }

    /// Opens an object (`{`); keys follow with `key(_:)`, in the order the caller sorted them.
    public mutating func beginObject() {
        startValue()
        bytes.append(UInt8(ascii: "{"))
        empty.append(true)
    }

    /// Closes the innermost object, on its own line when it has members (`{}` when empty).
    public mutating func endObject() { end(UInt8(ascii: "}")) }

    /// Opens an array (`[`); its elements are the values written next.
    public mutating func beginArray() {
        startValue()
        bytes.append(UInt8(ascii: "["))
        empty.append(true)
    }

    /// Closes the innermost array, on its own line when it has elements (`[]` when empty).
    public mutating func endArray() { end(UInt8(ascii: "]")) }

    private mutating func end(_ close: UInt8) {
        if !empty.removeLast() { newline(indent: empty.count) }
        bytes.append(close)
    }

    /// `items` in the serialiser's key order: by the UTF-8 bytes of `key`, equal keys in their order.
    public static func sortedByUTF8<T>(_ items: [T], key: (T) -> String) -> [T] {
        guard items.count > 1 else { return items }
        let keys = items.map { Array(key($0).utf8) }
        let order = keys.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a].lexicographicallyPrecedes(keys[b]) }
            return a < b
        }
        return order.map { items[$0] }
    }
}
