// The examples in PlatformMatchers' and LinkwellJSON's doc comments (AppleMatcher,
// AssetLinksFile, DynamicAppLinkRules, AndroidPatternMatcher, JSONValue.parse), run with the
// results the comments show. Change one, change the other.

import Testing
import LinkwellJSON
import PlatformMatchers

@Suite("PlatformMatchers doc-comment examples")
struct DocExampleTests {
    @Test("AppleMatcher: match, block, nothing")
    func appleMatcher() throws {
        let matcher = try AppleMatcher(json: """
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"],
              "components": [{"/": "/post/drafts/*", "exclude": true}, {"/": "/post/*"}]}]}}
            """)
        #expect(matcher.verdicts(for: "https://example.com/post/42") == ["ABCDE12345.com.example.app": .match])
        #expect(matcher.verdicts(for: "https://example.com/post/drafts/1") == ["ABCDE12345.com.example.app": .block])
        #expect(matcher.verdicts(for: "https://example.com/about") == [:])
    }

    @Test("AssetLinksFile: FitConnect's statement verifies, and a bad body is rejected with a fix")
    func assetLinks() throws {
        let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
        let body = """
            [{"relation": ["delegate_permission/common.handle_all_urls"],
              "target": {"namespace": "android_app", "package_name": "com.fitconnect.app",
                         "sha256_cert_fingerprints": ["\(fingerprint)"]}}]
            """
        switch AssetLinksFile.parse(body) {
        case .success(let file):
            #expect(file.isVerified(package: "com.fitconnect.app", certificates: [fingerprint]))
            #expect(file.handles(url: "https://fitconnect.app/signup", package: "com.fitconnect.app", certificates: [fingerprint])?.handled == true)
        case .failure(let rejection):
            Issue.record("rejected: \(rejection)")
        }
        guard case .failure(let rejection) = AssetLinksFile.parse("[1]") else {
            Issue.record("a number as a statement must reject the file")
            return
        }
        #expect("\(rejection)".hasPrefix("Android rejects the whole assetlinks.json: "))
        #expect("\(rejection)".contains(". Fix: "))
    }

    @Test("DynamicAppLinkRules: the referral rule opens the app, everything else is excluded")
    func dynamicRules() throws {
        let rules = DynamicAppLinkRules(components: try JSONValue.parse("""
            [{"/": "/signup", "?": {"referralCode": "*"}}, {"/": "*", "exclude": true}]
            """))
        let signup = rules.decide(url: "https://fitconnect.app/signup?referralCode=T1")
        #expect(signup.handled && signup.ruleIndex == 0)
        let settings = rules.decide(url: "https://fitconnect.app/settings")
        #expect(!settings.handled && settings.ruleIndex == 1)
    }

    @Test("AndroidPatternMatcher: simple glob and a DAL expression")
    func androidPattern() throws {
        let glob = try AndroidPatternMatcher(pattern: "/post/.*", kind: .simpleGlob)
        #expect(glob.matches("/post/42"))
        #expect(!glob.matches("/user/42"))
        let dal = try AndroidPatternMatcher.dynamicAppLinkPattern(for: "/post/*")
        #expect(dal.kind == .prefix)
        #expect(dal.pattern == "/post/")
        #expect(dal.description == "PatternMatcher{PREFIX: /post/}")
    }

    @Test("JSONValue.parse: members, arrays and a trailing comma")
    func jsonParse() throws {
        let value = try JSONValue.parse(#"{"id": 45, "tags": ["a", "b"]}"#)
        #expect(value["id"] == .number("45"))
        #expect(value["tags"]?.arrayValue?.count == 2)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse("[1, 2,]") }
        #expect(error?.description == "line 1, column 7: trailing comma before ']'")
    }
}
