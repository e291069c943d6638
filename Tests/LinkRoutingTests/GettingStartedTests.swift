// The code of Sources/LinkRouting/LinkRouting.docc/GettingStarted.md, run: every snippet of the
// article is here with the results the article shows. Only where the config comes from differs
// (the article reads the app bundle, the tests the repository's config/examples/ files).
// Change one, change the other.

import Foundation
import Testing
import LinkRouting

// "Parse a URL": DialloDev's router, as in the article.
enum AppRoute: Hashable {
    case profile(userId: String)
    case post(postId: String)
    case aiWorkspace
}

func appRoute(for url: URL, in table: RouteTable) -> AppRoute? {
    guard case .matched(let link) = table.resolve(url.absoluteString) else { return nil }
    switch link.route {
    case "post": return .post(postId: link.parameters["postId"]!)
    case "profile": return .profile(userId: link.parameters["userId"]!)
    case "aiWorkspace": return .aiWorkspace
    default: return nil
    }
}

@Suite("Getting started article")
struct GettingStartedTests {
    /// "Load the config once", with the repository's copy of the app's config.
    static func loadTable(_ app: String) throws -> (RouteTable, [Diagnostic]) {
        let path = TestConfigs.path(app)
        let (config, warnings) = try ConfigLoader.load(path: path)
        for warning in warnings { print(warning) }
        let table = try RouteTable(config: config)
        return (table, warnings)
    }

    @Test("Load the config once: the shipped configs load without warnings", arguments: ["diallodev", "coffeebreak", "fitconnect"])
    func load(app: String) throws {
        let (table, warnings) = try Self.loadTable(app)
        #expect(warnings.isEmpty)
        #expect(table.sites.map(\.name) == [app])
    }

    @Test("Load the config once: a missing teamID is the error the article prints")
    func loadFailure() throws {
        let text = #"{ sites: [{ domains: ["diallodev.online"], ios: [{ bundleID: "online.diallodev.app" }], routes: [] }] }"#
        let error = #expect(throws: ConfigLoader.Failure.self) {
            _ = try ConfigLoader.decode(Data(text.utf8), file: "linkwell.json5")
        }
        #expect(error?.description == """
            linkwell.json5: sites[0].ios[0]: error: 'teamID' is required here but missing
                fix: add "teamID": … to sites[0].ios[0] (see docs/reference/configuration.md)
            """)
    }

    @Test("Parse a URL: DialloDev's routes", arguments: [
        ("https://diallodev.online/post/42", AppRoute.post(postId: "42")),
        ("https://diallodev.online/user/diallo", .profile(userId: "diallo")),
        ("https://diallodev.online/AI", .aiWorkspace),
        ("diallodev://post/42", .post(postId: "42")),
    ] as [(String, AppRoute)])
    func parse(url: String, expected: AppRoute) throws {
        let (table, _) = try Self.loadTable("diallodev")
        #expect(appRoute(for: URL(string: url)!, in: table) == expected)
    }

    @Test("Parse a URL: drafts are excluded, /post/a/b is no post")
    func parseNotLinks() throws {
        let (table, _) = try Self.loadTable("diallodev")
        #expect(appRoute(for: URL(string: "https://diallodev.online/post/drafts/7")!, in: table) == nil)
        #expect(table.resolve("https://diallodev.online/post/drafts/7") == .excluded(site: "diallodev", entryIndex: 0, pattern: "/post/drafts/*"))
        #expect(table.resolve("https://diallodev.online/post/a/b") == .noRoute(site: "diallodev"))
    }

    @Test("Custom schemes and push notifications: iOS Coffee Break's payload link")
    func pushPayload() throws {
        let (table, _) = try Self.loadTable("coffeebreak")
        let userInfo: [AnyHashable: Any] = ["link": "ioscoffeebreakapp://issue?id=45"]

        var printed: [String] = []
        if let link = userInfo["link"] as? String, let match = table.resolve(link).match {
            print(match.route, match.parameters["id"]!)
            printed = [match.route, match.parameters["id"]!]
        }
        #expect(printed == ["issue", "45"])
        #expect(table.resolve("https://ioscoffeebreak.com/issue?id=45").match?.route == "issue")
        #expect(table.resolve("ioscoffeebreakapp://issue") == .noRoute(site: "coffeebreak"))
    }

    @Test("Build a link to share: FitConnect's referral link")
    func buildReferral() throws {
        let (table, _) = try Self.loadTable("fitconnect")
        let referral = try table.build(route: "signup", parameters: ["referralCode": "TRAINER1234567890123"])
        #expect(referral == "https://fitconnect.app/signup?referralCode=TRAINER1234567890123")

        let inApp = try table.build(route: "signup", parameters: ["referralCode": "TRAINER1234567890123"], form: .customScheme(nil))
        #expect(inApp == "fitconnect://signup?referralCode=TRAINER1234567890123")

        #expect(table.resolve(referral).match?.parameters == ["referralCode": "TRAINER1234567890123"])
        #expect(table.resolve(inApp).match?.parameters == ["referralCode": "TRAINER1234567890123"])
    }

    @Test("Build a link to share: a missing parameter says what to pass")
    func buildFailure() throws {
        let (table, _) = try Self.loadTable("fitconnect")
        var message = ""
        do {
            _ = try table.build(route: "signup", parameters: [:])
        } catch {
            print(error)
            message = "\(error)"
        }
        #expect(message == "route 'signup' needs the parameter 'referralCode': add referralCode=VALUE")
    }

    @Test("Landing page: the one-line example")
    func landing() throws {
        let path = TestConfigs.path("diallodev")
        let table = try RouteTable(config: ConfigLoader.load(path: path).config)
        #expect(table.resolve("https://diallodev.online/post/42").match?.parameters == ["postId": "42"])
    }
}
