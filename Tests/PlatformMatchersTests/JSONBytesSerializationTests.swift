// `JSONValue.serializedBytes` (the generators' writer) must give exactly the bytes of
// `serialized` (the String writer), for every layout and key order.
import Foundation
import LinkwellJSON
import Testing

@Suite("JSONValue.serializedBytes is serialized's UTF-8")
struct JSONBytesSerializationTests {
    static let control = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    static let values: [(String, JSONValue)] = [
        ("scalars", .array([.null, .bool(true), .bool(false), .number("1"), .number("-1.50e3"), .string("")])),
        ("every control character", .string(control)),
        ("quotes, backslashes, slashes", .string("\"a\\b/c\" \\\\ // \\/")),
        ("JavaScript line terminators and their neighbours", .string("a\u{2028}b\u{2029}c\u{2027}d\u{202A}e\u{2028}")),
        ("non-ASCII", .string("café 日本語 😀 e\u{301} \u{7F}\u{80}\u{FFFF}")),
        ("empty containers", .object([("a", .array([])), ("b", .object([])), ("c", .array([.array([]), .object([])]))])),
        (
            "keys out of order, duplicates and non-ASCII keys",
            .object([
                ("z", 1), ("é", 2), ("a", .object([("y", .null), ("b", .string("x")), ("b", .string("dup"))])),
                ("A", 3), ("e\u{301}", 4), ("a", 5), ("\u{2028}", 6), ("", 7),
            ])
        ),
        ("nested", .array([.object([("/", .string("/post/*")), ("?", .object([("q", "?*")])), ("exclude", .bool(true))])])),
    ]

    @Test(arguments: values.indices)
    func sameBytes(_ i: Int) {
        let (name, value) = Self.values[i]
        for layout in [JSONValue.Layout.pretty, .compact] {
            for sortKeys in [true, false] {
                #expect(value.serializedBytes(layout, sortKeys: sortKeys) == Array(value.serialized(layout, sortKeys: sortKeys).utf8),
                        "\(name), \(layout), sortKeys \(sortKeys)")
            }
        }
    }

    /// Every JSON fixture of the test targets, parsed and written again both ways.
    @Test func fixtures() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") } ?? []
        #expect(files.count > 10)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: tests.appendingPathComponent(file)))
            guard let value = try? JSONValue.parse(bytes) else { continue }
            #expect(value.serializedBytes() == Array(value.serialized().utf8), "\(file)")
            #expect(value.serializedBytes(.compact, sortKeys: false) == Array(value.serialized(.compact, sortKeys: false).utf8), "\(file)")
        }
    }
}
