// DialloDev's article ships a hand-written legacy AASA ("/post/*", "/user/*", "/AI"). The
// generated file claims the same links for the app's routes — and not the deeper paths the
// article's `*` also claimed, which its app would misread (it takes lastPathComponent).

import Foundation
import Testing
import Association
import LinkRouting
import LinkwellJSON
import PlatformMatchers

@Suite("Seed: DialloDev's article AASA")
struct SeedArticleTests {
    static let articleAASA: JSONValue = [
        "applinks": ["apps": [], "details": [["appID": "TEAMID12345.online.diallodev.app", "paths": ["/post/*", "/user/*", "/AI"]]]]
    ]

    @Test("route URLs: both files claim them", arguments: [
        "/post/42", "/post/swift-6", "/post/42/", "/user/diallo", "/AI", "/AI/",
    ])
    func sameClaims(path: String) throws {
        let table = try GoldenFileTests.table("diallodev")
        let site = table.sites[0]
        let ours = try AppleMatcher(aasa: AASAGenerator.document(for: site)).verdicts(for: "https://diallodev.online\(path)")
        let article = try AppleMatcher(aasa: Self.articleAASA).verdicts(for: "https://diallodev.online\(path)")
        #expect(article["TEAMID12345.online.diallodev.app"] == .match)
        #expect(ours["TEAMID1234.online.diallodev.app"] == .match)
        #expect(table.resolve("https://diallodev.online\(path)").match != nil)
    }

    @Test("what the article over-claims, the generated file does not", arguments: ["/post/a/b", "/user/a/b/c"])
    func overClaim(path: String) throws {
        let table = try GoldenFileTests.table("diallodev")
        let ours = try AppleMatcher(aasa: AASAGenerator.document(for: table.sites[0])).verdicts(for: "https://diallodev.online\(path)")
        let article = try AppleMatcher(aasa: Self.articleAASA).verdicts(for: "https://diallodev.online\(path)")
        #expect(article["TEAMID12345.online.diallodev.app"] == .match)
        #expect(ours["TEAMID1234.online.diallodev.app"] != .match)
        #expect(table.resolve("https://diallodev.online\(path)").match == nil)
    }

    @Test("neither claims what is not a route", arguments: ["/", "/about", "/ai", "/posts/1"])
    func neither(path: String) throws {
        let table = try GoldenFileTests.table("diallodev")
        let ours = try AppleMatcher(aasa: AASAGenerator.document(for: table.sites[0])).verdicts(for: "https://diallodev.online\(path)")
        #expect(ours.isEmpty)
    }
}
