// The seed articles' links parse as the articles describe.

import Testing
import LinkRouting

@Suite("Seed apps")
struct SeedLinkTests {
    @Test("FitConnect referral link, https and fitconnect://", arguments: [
        "https://fitconnect.app/signup?referralCode=TRAINER1234567890123",
        "fitconnect://fitconnect.app/signup?referralCode=TRAINER1234567890123",
        "fitconnect://signup?referralCode=TRAINER1234567890123",
    ])
    func fitconnectSignup(url: String) throws {
        let table = try TestConfigs.table("fitconnect")
        let m = try #require(table.resolve(url).match)
        #expect(m.route == "signup")
        #expect(m.parameters == ["referralCode": "TRAINER1234567890123"])
        #expect(m.iosAppIDs == ["FC8T2N4Q7Z.com.fitconnect.app"])
        #expect(m.androidPackages == ["com.fitconnect.app"])
    }

    @Test("FitConnect signup without a referral code is not the route")
    func fitconnectNoCode() throws {
        let table = try TestConfigs.table("fitconnect")
        #expect(table.resolve("https://fitconnect.app/signup") == .noRoute(site: "fitconnect"))
        #expect(table.resolve("https://fitconnect.app/signup?referralCode=") == .noRoute(site: "fitconnect"))
    }

    @Test("DialloDev: post, profile, AI workspace", arguments: [
        ("https://diallodev.online/post/42", "post", ["postId": "42"]),
        ("https://diallodev.online/post/swift-6-concurrency/", "post", ["postId": "swift-6-concurrency"]),
        ("https://diallodev.online/user/diallo", "profile", ["userId": "diallo"]),
        ("https://diallodev.online/AI", "aiWorkspace", [:]),
        ("diallodev://post/42", "post", ["postId": "42"]),
    ])
    func diallodev(url: String, route: String, params: [String: String]) throws {
        let table = try TestConfigs.table("diallodev")
        let m = try #require(table.resolve(url).match)
        #expect(m.route == route)
        #expect(m.parameters == params)
    }

    @Test("DialloDev: what the article's /post/* over-claims is not a route here", arguments: [
        "https://diallodev.online/post/a/b", "https://diallodev.online/post", "https://diallodev.online/ai",
        "https://diallodev.online/AI/x", "https://diallodev.online/user/",
    ])
    func diallodevMisses(url: String) throws {
        let table = try TestConfigs.table("diallodev")
        #expect(table.resolve(url) == .noRoute(site: "diallodev"))
    }

    @Test("DialloDev drafts are excluded")
    func diallodevDrafts() throws {
        let table = try TestConfigs.table("diallodev")
        #expect(table.resolve("https://diallodev.online/post/drafts/1") == .excluded(site: "diallodev", entryIndex: 0, pattern: "/post/drafts/*"))
        // `/post/drafts` itself: the exclusion's `/*` also takes its parent, as in AASA.
        #expect(table.resolve("https://diallodev.online/post/drafts").match == nil)
    }

    @Test("Computers catalogue: known items open the app", arguments: ["arduino", "raspberry-pi", "beaglebone-black", "pine64"])
    func computersItems(item: String) throws {
        let table = try TestConfigs.table("computers")
        let m = try #require(table.resolve("https://rw-universal-links-final.herokuapp.com/\(item).html").match)
        #expect(m.route == "computer")
        #expect(m.parameters == ["item": item])
    }

    @Test("Computers catalogue: anything else is not claimed", arguments: [
        "/", "/index.html", "/commodore64.html", "/arduino", "/arduino.htm", "/x/arduino.html", "/arduino.html/x",
    ])
    func computersOther(path: String) throws {
        let table = try TestConfigs.table("computers")
        #expect(table.resolve("https://rw-universal-links-final.herokuapp.com\(path)").match == nil)
    }

    @Test("iOS Coffee Break push payload link → issue 45")
    func coffeebreakPush() throws {
        let table = try TestConfigs.table("coffeebreak")
        let m = try #require(table.resolve("ioscoffeebreakapp://issue?id=45").match)
        #expect(m.route == "issue")
        #expect(m.parameters == ["id": "45"])
        #expect(m.iosAppIDs == ["CB45NEWS77.com.ioscoffeebreak.app"])
        // The same issue as a universal link, on the root domain and a subdomain.
        #expect(table.resolve("https://ioscoffeebreak.com/issue?id=45").match?.parameters == ["id": "45"])
        #expect(table.resolve("https://www.ioscoffeebreak.com/issue?id=45").match?.route == "issue")
    }

    @Test("Unknown hosts and schemes are not links")
    func foreign() throws {
        let table = try TestConfigs.table("linkwell")
        #expect(table.resolve("https://evil.example/post/1") == .unknownHost("evil.example"))
        guard case .unsupported = table.resolve("ftp://diallodev.online/post/1") else {
            Issue.record("ftp should be unsupported")
            return
        }
        guard case .unsupported = table.resolve("not a url") else {
            Issue.record("text should be unsupported")
            return
        }
    }

    @Test("The default config serves three seed apps at once")
    func defaultConfig() throws {
        let table = try TestConfigs.table("linkwell")
        #expect(table.sites.map(\.name) == ["diallodev", "fitconnect", "coffeebreak"])
        #expect(table.resolve("https://fitconnect.app/signup?referralCode=T1").match?.route == "signup")
        #expect(table.resolve("ioscoffeebreakapp://issue?id=45").match?.parameters == ["id": "45"])
        #expect(table.resolve("https://diallodev.online/user/x").match?.route == "profile")
        // Unknown Host → the default site (what a first curl to localhost gets).
        #expect(table.site(forHost: "localhost:8080")?.name == "diallodev")
        #expect(table.site(forHost: "FITCONNECT.APP.")?.name == "fitconnect")
        #expect(table.site(forHost: "ioscoffeebreak.com")?.name == "coffeebreak")
        #expect(table.site(forHost: "a.b.ioscoffeebreak.com")?.name == "coffeebreak")
    }
}
