// RawURL.isPlainWebURL: the byte check that lets RouteTable.resolve(_:) skip the browser parse.
// Whatever it accepts, the browser parse (URLParts) must accept too and name the same host.

import Foundation
import Testing
@testable import LinkRouting

@Suite("RawURL.isPlainWebURL: URLs whose host a browser reads as written")
struct PlainWebURLTests {
    static func isPlain(_ url: String) -> Bool {
        var text = PercentEncoding.browserNormalized(url)
        return text.withUTF8 { RawURL.isPlainWebURL($0) }
    }

    @Test("plain http(s) URLs pass", arguments: [
        "https://diallodev.online/post/123",
        "HTTPS://Example.COM/a?b=c#d",
        "http://a-b.c-d.example",
        "https://bench0.example?q=1",
        "https://bench0.example#top",
        "https://x1.example/caf\u{E9}/\\evil",
        "https://sub.example.org/search?q=shoes%20red&page=2",
    ])
    func plain(_ url: String) {
        #expect(Self.isPlain(url))
        let parts = URLParts(url)
        #expect(parts != nil)
        let plain = URLParts(plainSplit: url)
        #expect(parts?.host == plain?.host)
    }

    @Test("anything a browser might read differently goes to the browser parse", arguments: [
        "https://evil.example\\@good.example/",
        "https://user@good.example/",
        "https://good.example:8080/",
        "https://good.example:/",
        "https:good.example/",
        "https:///good.example/",
        "https:/good.example/",
        "https://good.example./",
        "https://.good.example/",
        "https://good..example/",
        "https://127.0.0.1/",
        "https://foo.123/",
        "https://foo.0x1f/",
        "https://xn--nxasmq6b.example/",
        "https://a.XN--zz/",
        "https://g%6Fod.example/",
        "https://[::1]/",
        "https://go\tod.example/",
        " https://good.example/",
        "https://",
        "https://caf\u{E9}.example/",
        "ftp://good.example/",
        "fitconnect://signup",
    ])
    func notPlain(_ url: String) {
        #expect(!Self.isPlain(url))
    }

    @Test("on the WHATWG corpus: every URL it passes is one the browser parse accepts, on the same host")
    func agreesWithBrowserParse() {
        var passed = 0
        for c in WebURLOracleTests.cases where Self.isPlain(c.input) {
            passed += 1
            guard let parts = URLParts(c.input), let plain = URLParts(plainSplit: c.input) else {
                Issue.record("passed, yet the browser parse refuses \(c.input.debugDescription)")
                continue
            }
            #expect(parts.host == plain.host, "\(c.input.debugDescription)")
            #expect(c.href != nil, "a browser fails on \(c.input.debugDescription)")
        }
        #expect(passed > 50)
    }

    @Test("resolution still refuses what a browser reads differently, and resolves the plain spelling")
    func resolution() throws {
        let table = try TestConfigs.table("diallodev")
        if case .unsupported = table.resolve("https://evil.example\\@diallodev.online/post/1") {} else {
            Issue.record("a URL whose host a browser reads differently was resolved")
        }
        guard case let .matched(m) = table.resolve("https://DialloDev.online/post/123") else {
            Issue.record("the plain URL did not match")
            return
        }
        #expect(m.route == "post" && m.parameters == ["postId": "123"])
    }
}

@Suite("PercentEncoding.anyBrowserEncodes: the word-at-a-time scan")
struct BrowserEncodesScanTests {
    @Test("every byte value at every position of a 1…24-byte text: the same answer as the byte test")
    func agreesWithByteTest() {
        for length in 1...24 {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    let expected = PercentEncoding.browserEncodes(UInt8(value))
                    let got = bytes.withUnsafeBufferPointer { PercentEncoding.anyBrowserEncodes($0) }
                    if got != expected { Issue.record("byte \(value) at \(position) of \(length): \(got)") }
                }
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer { PercentEncoding.anyBrowserEncodes($0) } == false)
    }
}
