import Testing
@testable import MicroHTTP

/// `If-None-Match` evaluation on bytes (RFC 9110 §13.1.2: weak comparison, `*`, lists, OWS).
@Suite struct EntityTagTests {
    static let etag = EntityTag.strong(for: Array("hello".utf8))

    @Test(arguments: [
        (etag, true), ("W/\(etag)", true), ("\"nope\", \(etag)", true), ("*", true), (" \"a\" ,W/\(etag) ", true),
        ("\t\(etag)\t", true), (",,\(etag),", true), ("\"a\",*", true), (" * ", true),
        ("\"nope\"", false), ("", false), (",", false), (" , ", false), ("**", false), ("W/", false), ("W/*", false),
        (String(etag.dropLast()), false), (etag + "x", false), (etag.replacingOccurrences(of: "\"", with: ""), false),
        ("w/\(etag)", false), ("\"\(etag)\"", false), ("\(etag)\u{301}", false), ("é, \"ü\"", false),
    ])
    func noneMatch(header: String, hits: Bool) {
        #expect(EntityTag.noneMatchHits(header, etag: Self.etag) == hits, "\(header)")
    }

    @Test func noHeaderIsNoMatch() {
        #expect(!EntityTag.noneMatchHits(nil, etag: Self.etag))
    }
}
