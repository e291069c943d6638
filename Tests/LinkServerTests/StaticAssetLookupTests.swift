// The static files and the AASA paths are found by a length check first: a request for a file is
// still found whatever its length, and a link is never taken for one.

import Testing
@testable import LinkServer
import MicroHTTP

@Suite("Static assets and association paths: looked up by length first")
struct StaticAssetLookupTests {
    static let long = "/static/" + String(repeating: "d", count: 300) + ".css"
    static let assets = StaticAssets(responses: Dictionary(uniqueKeysWithValues: ["/robots.txt", "/favicon.ico", "/static/linkwell.css", long].map {
        ($0, ConditionalResponse(body: Array($0.utf8), contentType: "text/plain", cacheControl: "no-store"))
    }))

    @Test("every file is found, by its own path only", arguments: ["/robots.txt", "/favicon.ico", "/static/linkwell.css", long])
    func found(path: String) throws {
        let response = try #require(Self.assets.response(Substring(path)))
        #expect(response.etag == EntityTag.strong(for: Array(path.utf8)))
        // The same path inside a longer string (a Substring that is not the whole String).
        let padded = "xx" + path + "yy"
        let slice = padded.dropFirst(2).dropLast(2)
        #expect(Self.assets.response(slice)?.etag == response.etag)
    }

    @Test("links and near misses are not files", arguments: [
        "/", "/robots.tx", "/robots.txt/", "/Robots.txt", "/favicon.icx", "/post/123", "/static/linkwell.cs",
        "/static/" + String(repeating: "d", count: 300) + ".csx", String(repeating: "/a", count: 400),
    ])
    func missed(path: String) {
        #expect(Self.assets.response(Substring(path)) == nil)
    }

    @Test("no files: nothing is found")
    func empty() {
        #expect(StaticAssets().response("/robots.txt") == nil)
        #expect(StaticAssets().response("/") == nil)
    }

    @Test("the AASA paths, and nothing else")
    func aasa() {
        for path in Responder.aasaPaths { #expect(Responder.isAASAPath(path)) }
        for path in ["/.well-known/apple-app-site-associatioN", "/apple-app-site-association/", "/.well-known/assetlinks.json", "/", "/apple-app-site-associatio"] {
            #expect(!Responder.isAASAPath(Substring(path)), "\(path)")
        }
    }
}
