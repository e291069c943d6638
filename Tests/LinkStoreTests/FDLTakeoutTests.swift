// Firebase's Takeout CSV → short links: every column lands where it should, codes are kept
// (under the site's prefix), archived links follow the policy, and each bad row is an error
// naming its row, column and fix while the other rows still import.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

@Suite("FDL Takeout and long-link parameters")
struct FDLTakeoutTests {
    static func table(prefix: String? = nil) -> RouteTable {
        try! RouteTable(config: LinkwellConfig(sites: [
            SiteConfig(
                name: "ex", domains: ["links.example.com"],
                ios: [IOSAppConfig(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789", schemes: ["example"])],
                routes: [.route(RouteConfig(name: "post", path: "/post/{id}")), .route(RouteConfig(name: "welcome", path: "/welcome")),
                         .exclusion(ExclusionConfig(exclude: "/private"))],
                shortLinks: ShortLinksConfig(prefix: prefix, allowedHosts: ["www.example.com", "*.cdn.example.net"])),
        ]))
    }

    static let header = FDLTakeout.columns.joined(separator: ",")

    /// A file of the header and one row with `values` by column name.
    static func file(_ rows: [[String: String]]) -> [UInt8] {
        var text = CSV.record(FDLTakeout.columns)
        for row in rows { text += CSV.record(FDLTakeout.columns.map { row[$0] ?? "" }) }
        return Array(text.utf8)
    }

    static func plan(_ rows: [[String: String]], prefix: String? = nil, archived: ArchivedPolicy = .disable) throws -> ImportPlan {
        let t = table(prefix: prefix)
        return try FDLTakeout.plan(file(rows), site: t.sites[0], table: t, archived: archived)
    }

    @Test func everyColumnIsMapped() throws {
        let row: [String: String] = [
            "Short link": "https://links.example.com/Ab-9_x", "link": "https://www.example.com/post/42", "apn": "com.example.app",
            "afl": "https://www.example.com/a", "amv": "12", "ibi": "com.example.app", "ifl": "https://www.example.com/i", "ius": "example",
            "ipfl": "https://www.example.com/ipad", "ipbi": "com.example.ipad", "isi": "123456789", "imv": "1.2", "efr": "1",
            "ofl": "https://www.example.com/o", "st": "Title, with comma", "sd": "Two\nlines \"quoted\"", "si": "https://img.cdn.example.net/1.png",
            "utm_source": "news", "utm_medium": "email", "utm_campaign": "spring", "utm_term": "shoes", "utm_content": "hero",
            "at": "aff", "ct": "camp", "mt": "8", "pt": "prov", "Archived?": "FALSE", "Link name": "Spring", "Creation timestamp": "2021-03-04 05:06:07",
        ]
        let plan = try Self.plan([row])
        #expect(plan.errors.isEmpty && plan.skipped.isEmpty)
        let imported = try #require(plan.rows.first)
        // A target on an allowed host (the website) opens the app when its path is a route of the site.
        #expect(imported.route == "post")
        let created = Date(timeIntervalSince1970: 1_614_834_367)
        let expected = ShortLink(
            code: "Ab-9_x", site: "ex", target: "https://www.example.com/post/42", previewTitle: "Title, with comma",
            previewDescription: "Two\nlines \"quoted\"", previewImage: "https://img.cdn.example.net/1.png",
            iosFallback: "https://www.example.com/i", androidFallback: "https://www.example.com/a", desktopFallback: "https://www.example.com/o",
            forcedRedirect: true, createdAt: created, updatedAt: created,
            fdl: FDLParameters(apn: "com.example.app", amv: "12", ibi: "com.example.app", ius: "example", ipbi: "com.example.ipad", isi: "123456789",
                               imv: "1.2", ipadFallback: "https://www.example.com/ipad", utmSource: "news", utmMedium: "email", utmCampaign: "spring",
                               utmTerm: "shoes", utmContent: "hero", at: "aff", ct: "camp", mt: "8", pt: "prov", linkName: "Spring"))
        #expect(imported.link == expected)
        #expect(imported.link.fdl?.campaign.map { "\($0.name)=\($0.value)" } == ["utm_source=news", "utm_medium=email", "utm_campaign=spring", "utm_term=shoes", "utm_content=hero"])
    }

    @Test(arguments: [
        (ArchivedPolicy.disable, 1, true, 0),
        (.serve, 1, false, 0),
        (.skip, 0, false, 1),
    ])
    func archivedLinksFollowThePolicy(policy: ArchivedPolicy, rows: Int, disabled: Bool, skipped: Int) throws {
        let plan = try Self.plan([["Short link": "https://links.example.com/old1", "link": "https://links.example.com/post/1", "Archived?": "TRUE"]],
                                 archived: policy)
        #expect(plan.rows.count == rows && plan.skipped.count == skipped)
        if let row = plan.rows.first { #expect(row.link.disabled == disabled && row.link.fdl?.archived == true) }
    }

    @Test(arguments: [
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "efr": "yes"], "efr", "'yes' is not 1 or 0"),
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "isi": "abc"], "isi", "not a numeric App Store ID"),
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "afl": "javascript:alert(1)"], "afl", "not an http(s) URL"),
        (["Short link": "https://links.example.com/x1", "link": ""], "link", "there is no deep link"),
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "Archived?": "maybe"], "Archived?", "not true or false"),
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "Creation timestamp": "soon"], "Creation timestamp", "is not a time"),
        (["Short link": "https://other.example.com/x1", "link": "https://links.example.com/post/1"], "Short link", "--site"),
        (["Short link": "https://links.example.com/a/b", "link": "https://links.example.com/post/1"], "Short link", "shortLinks.prefix: \"/a/\""),
        (["Short link": "https://links.example.com/a.b", "link": "https://links.example.com/post/1"], "Short link", "is not one Linkwell can serve"),
        (["Short link": "not a url", "link": "https://links.example.com/post/1"], "Short link", "is not a short-link URL"),
        (["Short link": "https://links.example.com/x1", "link": "https://links.example.com/post/1", "ifl": "https://x.example/\u{7F}"], "ifl", "control character"),
    ])
    func badRowsNameTheColumn(row: [String: String], column: String, message: String) throws {
        let good = ["Short link": "https://links.example.com/good", "link": "https://links.example.com/post/2"]
        let plan = try Self.plan([good, row])
        #expect(plan.rows.map(\.link.code) == ["good"])  // the other rows still import
        let error = try #require(plan.errors.first)
        #expect(plan.errors.count == 1)
        #expect(error.row == 3 && error.column == column)
        #expect(error.description.contains(message), "\(error)")
    }

    @Test(arguments: [
        ("https://links.example.com/welcome", "https://links.example.com/post/1", "'/welcome' is already route 'welcome'"),
        ("https://links.example.com/private", "https://links.example.com/post/1", "excluded by '/private'"),
        ("https://links.example.com/phish", "https://evil.example/login", "the target host 'evil.example' is not a domain"),
    ])
    func unservableRowsAreSkippedWithTheReason(short: String, link: String, reason: String) throws {
        let plan = try Self.plan([["Short link": short, "link": link]])
        #expect(plan.rows.isEmpty && plan.errors.isEmpty)
        #expect(plan.skipped.first?.reason.contains(reason) == true)
    }

    @Test func codesLiveUnderThePrefix() throws {
        let plan = try Self.plan([["Short link": "https://links.example.com/l/abc", "link": "https://links.example.com/post/1"],
                                  ["Short link": "https://links.example.com/abc2", "link": "https://links.example.com/post/1"]], prefix: "/l/")
        #expect(plan.rows.map(\.link.code) == ["abc"])
        #expect(plan.errors.first?.column == "Short link" && plan.errors.first?.row == 3)
        // With the prefix, `/l/welcome` is free although `/welcome` is a route.
        let t = Self.table(prefix: "/l/")
        #expect(ShortCode.conflict(code: "welcome", site: t.sites[0], table: t) == nil)
        #expect(ShortCode.conflict(code: "welcome", site: Self.table().sites[0], table: Self.table()) != nil)
    }

    @Test func duplicateCodesAndShortRowsAreErrors() throws {
        var text = CSV.record(FDLTakeout.columns)
        text += CSV.record(FDLTakeout.columns.map { ["Short link": "https://links.example.com/d1", "link": "https://links.example.com/post/1"][$0] ?? "" })
        text += CSV.record(FDLTakeout.columns.map { ["Short link": "https://links.example.com/d1", "link": "https://links.example.com/post/2"][$0] ?? "" })
        text += "https://links.example.com/d2,https://links.example.com/post/2\r\n"
        let t = Self.table()
        let plan = try FDLTakeout.plan(Array(text.utf8), site: t.sites[0], table: t, archived: .disable)
        #expect(plan.rows.count == 1)
        #expect(plan.errors.map(\.row) == [3, 4])
        #expect(plan.errors[0].message.contains("also on row 2"))
        #expect(plan.errors[1].message.contains("the row has 2 fields, the header \(FDLTakeout.columns.count)"))
    }

    @Test func aFileWithoutTheColumnsOrNotCSVIsRefusedWhole() {
        let t = Self.table()
        #expect(throws: ImportRowError.self) { try FDLTakeout.plan(Array("name,url\r\na,b\r\n".utf8), site: t.sites[0], table: t, archived: .disable) }
        #expect(throws: ImportRowError.self) { try FDLTakeout.plan(Array("Short link,link\r\n\"open".utf8), site: t.sites[0], table: t, archived: .disable) }
    }

    @Test(arguments: [
        ("2021-03-04T05:06:07Z", 1_614_834_367.0), ("2021-03-04 05:06:07", 1_614_834_367), ("2021-03-04T07:06:07+02:00", 1_614_834_367),
        ("2021-03-04 05:06:07.250", 1_614_834_367.25), ("1614834367", 1_614_834_367), ("1614834367000", 1_614_834_367),
        ("2024-02-29T00:00:00Z", 1_709_164_800), ("1969-12-31T23:59:59Z", -1), ("2000-03-01T00:00:00-05:30", 951_888_600),
    ])
    func timestamps(text: String, seconds: Double) {
        #expect(FDLTakeout.parseTimestamp(text)?.timeIntervalSince1970 == seconds)
        // The hand-written parser agrees with Foundation's wherever Foundation reads the text.
        if text.contains("T"), !text.contains(".") {
            #expect(ISO8601DateFormatter().date(from: text)?.timeIntervalSince1970 == seconds)
        }
    }

    @Test(arguments: ["", "2021-13-01 00:00:00", "2021-03-04", "2021-03-04T05:06:07+0200", "2021-03-04T25:00:00Z", "next tuesday",
                      "2021-03-04T05:06:07Zjunk", "2021-03-04T05:06:07."])
    func notTimestamps(text: String) {
        #expect(FDLTakeout.parseTimestamp(text) == nil)
    }

    // Long links: the same mapping, with every redirect URL held to the site's hosts.
    @Test(arguments: [
        (["link": "https://evil.example/x"], "link", "evil.example"),
        (["link": "https://links.example.com/post/1", "afl": "https://evil.example/a"], "afl", "evil.example"),
        (["link": "https://links.example.com/post/1", "ifl": "https://links.example.com.evil.example/"], "ifl", "links.example.com.evil.example"),
        (["link": "https://links.example.com/post/1", "ipfl": "https://cdn.example.net/"], "ipfl", "cdn.example.net"),
        (["link": "https://links.example.com/post/1", "ofl": "https://user@evil.example/"], "ofl", "evil.example"),
    ])
    func longLinksKeepBrowsersOnAllowedHosts(parameters: [String: String], parameter: String, host: String) {
        let t = Self.table()
        guard case let .failure(problem) = FDLLink.link(code: "", site: t.sites[0], table: t, parameters: parameters, strictHosts: true) else {
            Issue.record("accepted \(parameters)")
            return
        }
        #expect(problem.parameter == parameter && problem.host == host)
        #expect(problem.fix.contains("shortLinks.allowedHosts"))
    }

    @Test(arguments: ["www.example.com", "links.example.com", "a.cdn.example.net", "b.a.cdn.example.net"])
    func allowedHosts(host: String) {
        let t = Self.table()
        #expect(FDLLink.allows(host: host, site: t.sites[0], table: t))
    }
}
