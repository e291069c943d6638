import Foundation
import LinkRouting
import MicroHTTP
import Testing
@testable import LinkServer

@Suite("Hardening")
struct HardeningTests {
    @Test("log values: DEL, C1 controls and line separators are escaped in JSON and text", arguments: [
        ("/a\u{7F}b", #""/a\u007fb""#, #""/a\u007fb""#),
        ("/a\u{9B}31m", #""/a\u009b31m""#, #""/a\u009b31m""#),
        ("/a\u{85}b", #""/a\u0085b""#, #""/a\u0085b""#),
        ("/a\u{2028}b", #""/a\u2028b""#, #""/a\u2028b""#),
        ("/a\u{1B}[0m", #""/a\u001b[0m""#, #""/a\u001b[0m""#),
        ("/plain", #""/plain""#, "/plain"),
        ("/café", #""/café""#, "/café"),
    ])
    func logEscaping(value: String, json: String, text: String) {
        #expect(EventLog.json(.string(value)) == json)
        #expect(EventLog.text(.string(value)) == text)
    }

    @Test("the QR cache stays within its byte budget and keeps no oversized code")
    func qrCacheBound() throws {
        let cache = QRCodeCache(byteBudget: 256 * 1024)
        for i in 0..<200 {
            _ = try #require(cache.svg("https://shop.example.com/item/\(i)?" + String(repeating: "q", count: 200)))
            #expect(cache.bytes <= 256 * 1024)
        }
        let before = cache.bytes
        _ = try #require(cache.svg("https://shop.example.com/item/big?" + String(repeating: "q", count: 2000)))
        #expect(cache.bytes == before, "a 2 KB link's code is larger than budget/64 and not kept")
    }

    @Test("header-keyed caches hold hashes, within their byte budget, whatever the headers' length")
    func headerCachesAreBoundedByBytes() {
        let cache = CompiledPageCache()
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
        for i in 0..<10_000 {
            let userAgent = RequestFacts.capped("\(iPhone) \(i) " + String(repeating: "u", count: 8000))
            #expect(cache.browser(userAgent).platform == .ios)
        }
        #expect(cache.browsers.bytes <= CompiledPageCache.headerCacheBytes)
        // Entries are small and fixed-size: thousands fit, and none holds the 8 KB header.
        #expect(cache.browsers.count > 2000)
        #expect(cache.browsers.bytes / cache.browsers.count < 256)
    }

    @Test("User-Agent and Accept-Language are read up to 1 KiB, cut at a character boundary")
    func headerValuesAreCapped() throws {
        #expect(RequestFacts.capped("short") == "short")
        #expect(RequestFacts.capped(nil) == nil)
        let long = try #require(RequestFacts.capped(String(repeating: "a", count: 5000)))
        #expect(long.utf8.count == RequestFacts.headerValueBytes)
        // "é" is two bytes: 1023 ASCII bytes and then an "é" across the cut leave 1023 bytes.
        let split = try #require(RequestFacts.capped(String(repeating: "a", count: 1023) + "é" + "tail"))
        #expect(split == String(repeating: "a", count: 1023))
    }

    @Test("every HTML response gets the security headers, whatever made it", arguments: [
        [("Content-Type", "text/html; charset=utf-8")],
        [("Content-Type", "text/html"), ("X-Frame-Options", "SAMEORIGIN")],
    ])
    func securedHTML(headers: [(String, String)]) {
        let secured = Responder.secured(.dynamic(status: 200, headers: headers, body: Array("<p>hi".utf8)))
        for (name, _) in Responder.htmlSecurityHeaders {
            #expect(secured.headers.filter { $0.0.lowercased() == name.lowercased() }.count == 1, "\(name)")
        }
        #expect(secured.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
    }

    @Test("non-HTML responses are left alone")
    func plainUntouched() {
        let plain = Responder.plain(404, "nope\n")
        #expect(Responder.secured(plain).headers.count == plain.headers.count)
    }

    @Test("server limits: defaults, and the config's keys over them")
    func limits() throws {
        let defaults = ServerConfiguration(nil)
        #expect(defaults.connectionLimit == 4096 && defaults.perIPConnectionLimit == 128)
        #expect(defaults.requestHeadTimeoutSeconds == 10 && defaults.requestHeadBytes == 16384 && defaults.requestLineBytes == 8192)
        #expect(defaults.daemonOptions().effectiveConnectionMemoryLimit == 28 * 1024)
        var settings = ServerSettings()
        settings.requestHeadBytes = 4096
        settings.requestHeadTimeoutSeconds = 2.5
        settings.perIPConnectionLimit = 0
        settings.trustedProxies = ["10.0.0.0/8"]
        let set = ServerConfiguration(settings)
        #expect(set.requestHeadBytes == 4096 && set.requestLineBytes == 4096 && set.requestHeadTimeoutSeconds == 2.5)
        let options = set.daemonOptions()
        #expect(options.perIPConnectionLimit == 0)
        #expect(options.perIPLimitExemptions.map(\.description) == ["10.0.0.0/8"])
        #expect(options.headLimits.allowedMethods == ["GET", "HEAD"])
        #expect(options.effectiveConnectionMemoryLimit == 4096 + 4096 + 8192)
        // The public listener reads no body; the admin listener keeps bodies for the REST API.
        #expect(options.requestBodyLimit == 0 && !options.collectsRequestBodies)
        let admin = try #require(set.adminDaemonOptions())
        #expect(admin.headLimits.allowedMethods == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
        #expect(admin.collectsRequestBodies && admin.requestBodyLimit == 1 << 20)
        // The admin listener has limits of its own and the public head deadline and budget.
        #expect(admin.connectionLimit == 128 && admin.perIPConnectionLimit == 16 && admin.perIPLimitExemptions.isEmpty)
        #expect(admin.requestHeadTimeoutSeconds == 2.5 && admin.headLimits.headBytes == 4096)
    }
}
