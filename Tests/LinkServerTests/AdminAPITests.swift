// The admin REST API without a socket: request bodies read field by field (LinkInput), query
// strings, page cursors, the OpenAPI document built from the same field table, and the handler's
// answers to requests with and without a token, over a real SQLite file.

import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP
import Testing

@testable import LinkServer

@Suite struct AdminAPITests {
    static let table = Fixture.table([Fixture.shop(), Fixture.blog])

    @Test(arguments: [
        (#"{"target": "https://shop.example.com/item/1"}"#, "shop", "", "https://shop.example.com/item/1"),
        (#"{"site": "blog", "code": "hello", "target": "https://blog.example.org/post/x", "codeStyle": "unguessable"}"#, "blog", "hello", "https://blog.example.org/post/x"),
        (#"{"target": "https://shop.example.com/", "length": 6.0, "previewTitle": null, "disabled": true}"#, "shop", "", "https://shop.example.com/"),
    ])
    func readsALinkToCreate(json: String, site: String, code: String, target: String) throws {
        let table = Fixture.table([Fixture.shop(default: true), Fixture.blog])
        guard case let .success(new) = LinkInput.new(try JSONValue.parse(json), table: table) else { Issue.record("refused \(json)"); return }
        #expect(new.link.site == site && new.link.code == code && new.link.target == target)
    }

    @Test(arguments: [
        (#"[]"#, "", "each link must be a JSON object, not an array"),
        (#"{}"#, "target", "target is missing: every link needs the URL it leads to"),
        (#"{"target": 1}"#, "target", "target must be a string, not a number"),
        (#"{"target": "https://shop.example.com/", "colour": "red"}"#, "colour", "unknown field 'colour': the fields are site, code, codeStyle, length, target, previewTitle, previewDescription, previewImage, iosFallback, androidFallback, desktopFallback, forcedRedirect, expiresAt, disabled"),
        (#"{"target": "https://shop.example.com/", "code": "a b"}"#, "code", "the code 'a b' must be 1 to 64 characters of A–Z, a–z, 0–9, '-' and '_'"),
        (#"{"target": "https://shop.example.com/", "length": 3}"#, "length", "length must be a whole number from 4 to 64"),
        (#"{"target": "https://shop.example.com/", "length": 4.5}"#, "length", "length must be a whole number from 4 to 64"),
        (#"{"target": "https://shop.example.com/", "expiresAt": "tomorrow"}"#, "expiresAt", "expiresAt 'tomorrow' is not an RFC 3339 time; write e.g. 2027-01-31T00:00:00Z"),
        (#"{"target": "https://shop.example.com/", "forcedRedirect": "yes"}"#, "forcedRedirect", "forcedRedirect must be true or false, not a string"),
        (#"{"target": "https://shop.example.com/", "site": "nope"}"#, "site", "there is no site 'nope'; the config's sites are shop, blog"),
        (#"{"target": "https://shop.example.com/", "codeStyle": "long"}"#, "codeStyle", "codeStyle is 'long'; use short or unguessable"),
        (#"{"target": "https://shop.example.com/", "disabled": null}"#, "disabled", "disabled cannot be null"),
        (#"{"target": "https://shop.example.com/", "previewTitle": "a\u0000b"}"#, "previewTitle", "previewTitle contains a NUL character"),
        // Two sites and no default: the site must be named.
        (#"{"target": "https://shop.example.com/"}"#, "site", "the config has 2 sites and none is the default; name one (shop, blog)"),
    ])
    func refusesWithTheField(json: String, field: String, message: String) throws {
        guard case let .failure(problems) = LinkInput.new(try JSONValue.parse(json), table: Self.table) else { Issue.record("accepted \(json)"); return }
        #expect(problems.items.first == FieldProblem(field: field, message: message))
    }

    @Test func textsAreCountedInCharactersNotBytes() throws {
        let ok = "é" + String(repeating: "x", count: AdminAPI.maximumTextLength - 1)
        let value: JSONValue = ["site": "shop", "target": "https://shop.example.com/", "previewTitle": .string(ok)]
        #expect(throws: Never.self) { try LinkInput.new(value, table: Self.table).get() }
        let long: JSONValue = ["site": "shop", "target": "https://shop.example.com/", "previewTitle": .string(ok + "x")]
        #expect(throws: FieldProblems.self) { try LinkInput.new(long, table: Self.table).get() }
    }

    @Test func patchAppliesOnlyTheGivenFieldsAndNullRemoves() throws {
        let existing = ShortLink(code: "c1", site: "shop", target: "https://shop.example.com/item/1", previewTitle: "Old", iosFallback: "https://x.example/")
        let patched = try LinkInput.patch(try JSONValue.parse(#"{"previewTitle": null, "disabled": true, "expiresAt": "2030-01-01T00:00:00.9Z"}"#), onto: existing).get()
        #expect(patched.previewTitle == nil && patched.disabled && patched.iosFallback == "https://x.example/" && patched.target == existing.target)
        #expect(patched.expiresAt == Date(timeIntervalSince1970: 1_893_456_000))
        guard case let .failure(p) = LinkInput.patch(try JSONValue.parse(#"{"code": "new"}"#), onto: existing) else { Issue.record("code changed"); return }
        #expect(p.items == [FieldProblem(field: "code", message: "unknown field 'code': it cannot be set here")])
    }

    @Test(arguments: [("shop", "abc"), ("a site", "x-_9"), ("", ""), ("ü/ß", "Z")])
    func cursorsRoundTrip(site: String, code: String) {
        let cursor = PageCursor.encode(site: site, code: code)
        #expect(cursor.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(PageCursor.decode(cursor) == (site, code))
    }

    @Test(arguments: ["", "!", "a", "ab=", "%%%", "////", "😀"])
    func anyCursorIsAPosition(cursor: String) {
        _ = PageCursor.decode(cursor)  // never traps, never refuses
    }

    @Test func queryValuesAreDecoded() {
        #expect(AdminAPI.queryItems("limit=5&site=my+site&next=a%2Db&limit=7&flag") == ["limit": "7", "site": "my site", "next": "a-b", "flag": ""])
        #expect(AdminAPI.queryItems(nil).isEmpty)
    }

    @Test func openAPIDocumentDescribesEveryFieldAndEndpoint() throws {
        let doc = try JSONValue.parse(OpenAPIDocument.document(table: Self.table, bodyLimit: AdminAPI.bodyLimit).serialized())
        #expect(doc["openapi"]?.stringValue == "3.0.3")
        let variants = try #require(doc["components"]?["schemas"]?["NewLink"]?["oneOf"]?.arrayValue)
        #expect(variants.count == 2)  // one per site: its name, its domains
        for (variant, site) in zip(variants, ["shop", "blog"]) {
            let properties = try #require(variant["properties"]?.objectValue)
            #expect(properties.map(\.key).sorted() == LinkInput.fields.filter(\.create).map(\.name).sorted())
            #expect(variant["properties"]?["site"]?["enum"] == .array([.string(site)]))
            let pattern = try #require(variant["properties"]?["target"]?["pattern"]?.stringValue)
            let domain = site == "shop" ? "shop.example.com" : "blog.example.org"
            #expect("https://\(domain)/a/b".range(of: pattern, options: .regularExpression) != nil)
            #expect("https://evil.example/a".range(of: pattern, options: .regularExpression) == nil)
        }
        let patch = try #require(doc["components"]?["schemas"]?["LinkPatch"]?["properties"]?.objectValue)
        #expect(patch.map(\.key).sorted() == LinkInput.fields.filter(\.patch).map(\.name).sorted())
        let paths = try #require(doc["paths"]?.objectValue).map(\.key)
        #expect(paths == ["/api/v1/audit", "/api/v1/links", "/api/v1/links/{site}/{code}", "/api/v1/openapi.json", "/api/v1/stats"])
    }

    // MARK: - The handler over a real database

    final class Server {
        let dir: URL
        let runtime: ServerRuntime
        let handler: any HTTPHandler
        let token: String

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("adminapi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let config = dir.appendingPathComponent("linkwell.json5").path
            let snapshot = try Snapshot(table: Fixture.table([Fixture.shop()]), publicDirectory: Fixture.publicDir)
            token = try LinkStore(path: dir.appendingPathComponent("linkwell.db").path).createToken(name: "t").secret
            runtime = ServerRuntime(configPath: config, initial: snapshot, version: "test", log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)))
            handler = runtime.adminHandler
        }

        deinit { try? FileManager.default.removeItem(at: dir) }

        func send(_ method: String, _ target: String, token: String? = nil, body: String? = nil) -> (Int, JSONValue?, HTTPResponse) {
            var headers: [(name: String, value: String)] = []
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            if body != nil { headers.append(("Content-Type", "application/json; charset=utf-8")) }
            let response = handler.handle(HTTPRequest(method: method, rawTarget: target, headers: headers, body: Array((body ?? "").utf8)))
            return (response.status, try? JSONValue.parse(response.body), response)
        }
    }

    @Test func withoutATokenEverythingButTheDocumentIs401() throws {
        let s = try Server()
        for (method, target) in [("GET", "/api/v1/links"), ("POST", "/api/v1/links"), ("GET", "/api/v1/links/shop/x"), ("DELETE", "/api/v1/links/shop/x")] {
            let (status, body, response) = s.send(method, target, body: method == "POST" ? "{}" : nil)
            #expect(status == 401 && response.header("WWW-Authenticate") == "Bearer realm=\"linkwell admin API\"")
            #expect(body?["error"]?["code"]?.stringValue == "missing_token")
        }
        #expect(s.send("GET", "/api/v1/links", token: "lw_wrong").0 == 401)
        #expect(s.send("GET", "/api/v1/openapi.json").0 == 200)
        #expect(s.runtime.metrics.api.requests(status: 401) == 5)
        #expect(s.runtime.metrics.render().contains("linkwell_api_auth_failures_total{reason=\"missing\"} 4\n"))
    }

    @Test func aCreatedLinkIsInTheServingIndexAtOnce() throws {
        let s = try Server()
        let (status, body, response) = s.send("POST", "/api/v1/links", token: s.token, body: #"{"code": "sale", "target": "https://shop.example.com/item/42"}"#)
        #expect(status == 201 && body?["route"]?.stringValue == "item" && response.header("Location") == "/api/v1/links/shop/sale")
        #expect(s.runtime.snapshot.links.lookup(site: "shop", code: "sale")?.match?.route == "item")
        #expect(s.send("PATCH", "/api/v1/links/shop/sale", token: s.token, body: #"{"disabled": true}"#).0 == 200)
        #expect(s.runtime.snapshot.links.lookup(site: "shop", code: "sale") == nil)
        #expect(s.send("PATCH", "/api/v1/links/shop/sale", token: s.token, body: #"{"disabled": false}"#).0 == 200)
        #expect(s.send("DELETE", "/api/v1/links/shop/sale", token: s.token).0 == 204)
        #expect(s.runtime.snapshot.links.lookup(site: "shop", code: "sale") == nil)
        #expect(s.send("GET", "/api/v1/links/shop/sale", token: s.token).0 == 404)
    }

    @Test(arguments: [
        ("GET", "/api/v1", 404, "not_found"), ("GET", "/api/v1/", 404, "not_found"), ("GET", "/api/v1/links/", 404, "not_found"),
        ("GET", "/api/v1/links/shop", 404, "not_found"), ("GET", "/api/v1/links/shop//", 404, "not_found"),
        ("PUT", "/api/v1/links", 405, "method_not_allowed"), ("POST", "/api/v1/openapi.json", 405, "method_not_allowed"),
        ("POST", "/api/v1/links/shop/x", 405, "method_not_allowed"), ("GET", "/api/v1/links?limit=0", 400, "invalid_parameter"),
        ("GET", "/api/v1/links?limit=+5", 400, "invalid_parameter"), ("GET", "/api/v1/links?site=nope", 400, "invalid_parameter"),
        ("GET", "/api/v1/links/nope/x", 404, "link_not_found"),
    ])
    func refusals(method: String, target: String, status: Int, code: String) throws {
        let s = try Server()
        let (got, body, _) = s.send(method, target, token: s.token)
        #expect(got == status && body?["error"]?["code"]?.stringValue == code)
        #expect(body?["error"]?["fix"]?.stringValue?.isEmpty == false)
    }
}
