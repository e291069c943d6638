// `linkwell validate` catches each listed mistake with a message that names the config path,
// the bad value and the fix.

import Foundation
import Testing
import Association
import LinkRouting

@Suite("Validation")
struct ValidationTests {
    /// A valid base site; each case edits one thing.
    static func config(
        ios: String = #"{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789", schemes: ["example"] }"#,
        android: String = #"{ id: "android", package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }"#,
        routes: String = #"{ name: "post", path: "/post/{postId}" }"#,
        extraSite: String = "", shortLinks: String? = nil
    ) -> String {
        """
        // test config
        {
          sites: [
            {
              domains: ["example.com"],
              ios: [\(ios)],
              android: [\(android)],
              routes: [\(routes)],\(shortLinks.map { "\n      shortLinks: \($0)," } ?? "")
            },
            \(extraSite)
          ],
        }
        """
    }

    static func validate(_ text: String) throws -> ValidationReport {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("linkwell.json5")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return ConfigValidator.validate(path: file.path)
    }

    @Test("the base config is valid")
    func base() throws {
        let r = try Self.validate(Self.config())
        #expect(r.errors.isEmpty, "\(r.errors)")
        #expect(r.table != nil)
    }

    struct Mistake: CustomTestStringConvertible, Sendable {
        var name: String
        var config: String
        var path: String
        var mustMention: [String]
        var severity: Diagnostic.Severity = .error
        var testDescription: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "short links that open the app at the root of a shared domain",
            config: config(shortLinks: #"{ openApp: true }"#),
            path: "sites[0].shortLinks.openApp", mustMention: ["root", "website", "\"prefix\": \"/l/\"", "\"linkDomain\": true"]),
        Mistake(
            name: "team ID with 11 characters (the DialloDev article's placeholder)",
            config: config(ios: #"{ teamID: "TEAMID12345", bundleID: "online.diallodev.app" }"#),
            path: "sites[0].ios[0].teamID", mustMention: ["TEAMID12345", "10", "Membership"]),
        Mistake(
            name: "team ID in lower case", config: config(ios: #"{ teamID: "abcde12345", bundleID: "com.example.app" }"#),
            path: "sites[0].ios[0].teamID", mustMention: ["abcde12345", "\"ABCDE12345\""]),
        Mistake(
            name: "bundle ID that is not reverse DNS", config: config(ios: #"{ teamID: "ABCDE12345", bundleID: "my app" }"#),
            path: "sites[0].ios[0].bundleID", mustMention: ["my app", "com.example.app"]),
        Mistake(
            name: "package name with one segment", config: config(android: #"{ package: "example", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }"#),
            path: "sites[0].android[0].package", mustMention: ["example", "applicationId"]),
        Mistake(
            name: "lower-case fingerprint prints the corrected value",
            config: config(android: #"{ package: "com.example.app", fingerprints: ["14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5"] }"#),
            path: "sites[0].android[0].fingerprints[0]", mustMention: ["lower case", "\"14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5\""]),
        Mistake(
            name: "unseparated fingerprint prints the corrected value",
            config: config(android: #"{ package: "com.example.app", fingerprints: ["146DE983C5730650D8EEB9952F34FC6416A08342E61DBEA88A0496B23FCF44E5"] }"#),
            path: "sites[0].android[0].fingerprints[0]", mustMention: ["no ':' separators", "\"14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5\""]),
        Mistake(
            name: "SHA-1 fingerprint", config: config(android: #"{ package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42"] }"#),
            path: "sites[0].android[0].fingerprints[0]", mustMention: ["SHA-1", "SHA-256"]),
        Mistake(
            name: "App Store ID that is not numeric", config: config(ios: #"{ teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "id123456789" }"#),
            path: "sites[0].ios[0].appStoreID", mustMention: ["id123456789", "\"123456789\""]),
        Mistake(
            name: "duplicate route names", config: config(routes: #"{ name: "post", path: "/post/{id}" }, { name: "post", path: "/p/{id}" }"#),
            path: "sites[0].routes[1].name", mustMention: ["post", "used twice", "routes[0]"]),
        Mistake(
            name: "unclosed '{' names the column", config: config(routes: #"{ name: "post", path: "/post/{id" }"#),
            path: "sites[0].routes[0].path", mustMention: ["route 'post'", "/post/{id", "unclosed '{' at column 7", "/post/{id}"]),
        Mistake(
            name: "a parameter the builder could not print (path and query share a name)",
            config: config(routes: #"{ name: "post", path: "/post/{id}", query: { id: { required: true } } }"#),
            path: "sites[0].routes[0].query.id", mustMention: ["'id'", "both a path and a query parameter"]),
        Mistake(
            name: "a preview placeholder that is not a parameter",
            config: config(routes: #"{ name: "post", path: "/post/{id}", preview: { title: "Post {postId}" } }"#),
            path: "sites[0].routes[0].preview.title", mustMention: ["{postId}", "{id}"]),
        Mistake(
            name: "a route shadowed by an earlier route names both and an example URL",
            config: config(routes: #"{ name: "anyPost", path: "/post/{id}" }, { name: "special", path: "/post/special" }"#),
            path: "sites[0].routes[1].path", mustMention: ["route 'special'", "route 'anyPost'", "https://example.com/post/special"]),
        Mistake(
            name: "a route fully under an earlier rest route",
            config: config(routes: #"{ name: "files", path: "/files/{rest*}" }, { name: "readme", path: "/files/{dir}/README" }"#),
            path: "sites[0].routes[1].path", mustMention: ["route 'readme'", "route 'files'", "https://example.com/files/"]),
        Mistake(
            name: "an exclusion that excludes nothing",
            config: config(routes: #"{ name: "post", path: "/post/{id}" }, { exclude: "/post/drafts/*" }"#),
            path: "sites[0].routes[1].exclude", mustMention: ["excludes nothing", "/post/drafts/*"], severity: .warning),
        Mistake(
            name: "a route naming an app the site does not have",
            config: config(routes: #"{ name: "post", path: "/post/{id}", apps: ["watch"] }"#),
            path: "sites[0].routes[0].apps[0]", mustMention: ["'watch'", "'ios', 'android'"]),
        Mistake(
            name: "a web fallback with a parameter in the host (open redirect)",
            config: config(routes: #"{ name: "post", path: "/post/{id}", fallback: { desktop: "web", web: "https://{id}.example.net/p" } }"#),
            path: "sites[0].routes[0].fallback.web", mustMention: ["open redirect"]),
        Mistake(
            name: "a domain written as a URL", config: config().replacingOccurrences(of: #"["example.com"]"#, with: #"["https://example.com/"]"#),
            path: "sites[0].domains[0]", mustMention: ["is a URL", "\"example.com\""]),
        Mistake(
            name: "a scheme written with ://", config: config(ios: #"{ teamID: "ABCDE12345", bundleID: "com.example.app", schemes: ["example://"] }"#),
            path: "sites[0].ios[0].schemes[0]", mustMention: ["example://", "without '://'"]),
        Mistake(
            name: "a missing required key", config: config(ios: #"{ teamID: "ABCDE12345" }"#),
            path: "sites[0].ios[0]", mustMention: ["'bundleID' is required"]),
        Mistake(
            name: "a typo in a key is a warning with a suggestion", config: config(ios: #"{ teamID: "ABCDE12345", bundleID: "com.example.app", appStoreId: "1" }"#),
            path: "sites[0].ios[0].appStoreId", mustMention: ["unknown key 'appStoreId'", "did you mean 'appStoreID'?"], severity: .warning),
        Mistake(
            name: "a JSON5 syntax error", config: "{ sites: [ { domains: [\"a.com\"] ",
            path: "(syntax)", mustMention: ["this '{' is never closed", "the last complete member is 'domains'"]),
        // (listen, admin and trustedProxies: LinkServerTests/ServerConfigurationTests.)
        Mistake(
            name: "zero threads", config: config().replacingOccurrences(of: "sites: [", with: #"server: { threads: 0 }, sites: ["#),
            path: "server.threads", mustMention: ["at least 1"]),
        Mistake(
            name: "a wildcard in a literal segment", config: config(routes: #"{ name: "post", path: "/post/*" }"#),
            path: "sites[0].routes[0].path", mustMention: ["literal '*'", "{name}"]),
    ]

    @Test(arguments: mistakes)
    func catches(m: Mistake) throws {
        let report = try Self.validate(m.config)
        let found = report.diagnostics.filter { $0.path == m.path && $0.severity == m.severity }
        #expect(!found.isEmpty, "no \(m.severity) at \(m.path); got: \(report.diagnostics.map(\.description))")
        let text = found.map(\.description).joined(separator: "\n")
        for needle in m.mustMention {
            #expect(text.contains(needle), "\(text) does not mention \(needle)")
        }
        // Every message names the file.
        #expect(found.allSatisfy { $0.file?.hasSuffix("linkwell.json5") == true })
        if m.severity == .error {
            #expect(report.table == nil, "a config with errors must not compile to a servable table")
        }
    }

    @Test("a generated AASA over 128 KB is an error")
    func oversize() throws {
        let routes = (0..<1500).map { #"{ name: "r\#($0)", path: "/section-number-\#($0)/with-a-long-name/{id}" }"# }.joined(separator: ",")
        let report = try Self.validate(Self.config(routes: routes))
        let found = report.errors.filter { $0.message.contains("apple-app-site-association") && $0.message.contains("131072") }
        #expect(found.count == 1, "\(report.errors.prefix(3))")
    }

    @Test("every shipped config validates without errors")
    func shipped() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for name in ["config/linkwell.json5"] + ["fitconnect", "diallodev", "computers", "coffeebreak"].map({ "config/examples/\($0).json5" }) {
            let report = ConfigValidator.validate(path: root.appendingPathComponent(name).path)
            #expect(report.errors.isEmpty, "\(name): \(report.errors)")
        }
    }
}

@Suite("Validation of the server limits")
struct ServerLimitValidationTests {
    @Test("out-of-range limits are errors that name the key and the fix", arguments: [
        ("requestHeadBytes: 512", "server.requestHeadBytes", "between 1024 and 65536"),
        ("requestHeadBytes: 100000", "server.requestHeadBytes", "between 1024 and 65536"),
        ("requestHeadTimeoutSeconds: -1", "server.requestHeadTimeoutSeconds", "between 0 and 3600"),
        ("requestHeadBytes: 32768, requestHeaderMemoryBytes: 16384", "server.requestHeaderMemoryBytes", "cannot hold a request head"),
        ("perIPConnectionLimit: -2", "server.perIPConnectionLimit", "cannot be negative"),
        ("adminConnectionLimit: 0", "server.adminConnectionLimit", "must be at least 1"),
        ("adminPerIPConnectionLimit: -1", "server.adminPerIPConnectionLimit", "cannot be negative"),
        ("adminBodyBytes: 100", "server.adminBodyBytes", "between 1024 and 1073741824"),
        ("adminBulkBodyBytes: 2000000000", "server.adminBulkBodyBytes", "between 1024 and 1073741824"),
    ])
    func invalid(server: String, key: String, message: String) throws {
        let text = ValidationTests.config().replacingOccurrences(of: "{\n  sites:", with: "{\n  server: { \(server) },\n  sites:")
        let report = try ValidationTests.validate(text)
        #expect(report.errors.contains { $0.description.contains(key) && $0.description.contains(message) }, "\(report.errors)")
    }

    @Test("the defaults and sensible values validate")
    func valid() throws {
        let text = ValidationTests.config().replacingOccurrences(
            of: "{\n  sites:", with: "{\n  server: { requestHeadBytes: 32768, requestHeadTimeoutSeconds: 5, perIPConnectionLimit: 0, adminConnectionLimit: 8, adminPerIPConnectionLimit: 0, adminBodyBytes: 65536, adminBulkBodyBytes: 67108864 },\n  sites:")
        let report = try ValidationTests.validate(text)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.allSatisfy { !$0.description.contains("requestHead") }, "no unknown-key warning")
    }
}
