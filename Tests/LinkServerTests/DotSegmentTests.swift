// Paths with a `.` or `..` segment are refused as nginx refuses them, however the dots and the
// separators are spelled.

import Testing
@testable import LinkServer

@Suite("Dot segments: raw, %2e-encoded, between /, \\, %2F or %5C")
struct DotSegmentTests {
    @Test("refused", arguments: [
        "/..", "/.", "/a/../b", "/a/./b", "/%2e%2e", "/%2E%2e/", "/.%2e/x", "/%2e%2e%2f", "/%2e%2e%2Fetc", "/a/%2e%2e%2fb",
        "/%2e%2e%5cx", "/..\\x", "/a\\..\\b", "/a%2f..%2fb", "/a%2F.%2Fb", "/x/..%5C",
    ])
    func refused(path: String) {
        #expect(Responder.hasDotSegment(Substring(path)), "\(path)")
    }

    @Test("served", arguments: [
        "/", "/post/42", "/a..b", "/...", "/.well-known/assetlinks.json", "/%2e%2e%2e", "/a%2fb", "/%2ex", "/x%2e", "/a/.b/..c", "/%25%2e%2e", "/%2",
    ])
    func served(path: String) {
        #expect(!Responder.hasDotSegment(Substring(path)), "\(path)")
    }
}

@Suite("Short link codes: the path's last segment after the site's prefix, read on bytes")
struct ShortLinkCodeTests {
    @Test("a code", arguments: [
        ("/abc", "/", "abc"), ("/s/abc", "/s/", "abc"), ("/s/caf%C3%A9", "/s/", "caf%C3%A9"), ("/s/é1", "/s/", "é1"), ("/x", "/", "x"),
    ])
    func code(path: String, prefix: String, expected: String) {
        #expect(Responder.shortLinkCode(Substring(path), prefix: prefix) == Substring(expected), "\(path) under \(prefix)")
    }

    @Test("no code", arguments: [
        ("/", "/"), ("/s/", "/s/"), ("/a/b", "/"), ("/s/a/b", "/s/"), ("/t/abc", "/s/"), ("/S/abc", "/s/"), ("/s", "/s/"), ("/s/abc/", "/s/"),
    ])
    func noCode(path: String, prefix: String) {
        #expect(Responder.shortLinkCode(Substring(path), prefix: prefix) == nil, "\(path) under \(prefix)")
    }
}
