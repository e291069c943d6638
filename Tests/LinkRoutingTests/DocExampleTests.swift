// The examples in LinkRouting's doc comments (ConfigLoader, LinkwellConfig, RouteTable,
// PathPattern, Diagnostic), run with the results the comments show. Change one, change the other.

import Foundation
import Testing
import LinkRouting

@Suite("LinkRouting doc-comment examples")
struct DocExampleTests {
    @Test("ConfigLoader: load, print warnings, compile")
    func configLoader() throws {
        let (config, warnings) = try ConfigLoader.load(path: TestConfigs.path("coffeebreak"))
        #expect(warnings.isEmpty)
        let table = try RouteTable(config: config)
        #expect(table.sites.map(\.name) == ["coffeebreak"])
    }

    @Test("ConfigLoader: a misspelt key is a warning that suggests the right one")
    func unknownKeyWarning() throws {
        let text = #"{ sites: [{ domains: ["a.example"], ios: [{ teamID: "ABCDE12345", bundleID: "com.a", bundleId: "x" }], routes: [] }] }"#
        let (_, warnings) = try ConfigLoader.decode(Data(text.utf8), file: "linkwell.json5")
        #expect(warnings.map(\.message) == ["unknown key 'bundleId' is ignored"])
        #expect(warnings.first?.fix == "did you mean 'bundleID'?")
    }

    @Test("LinkwellConfig built in code validates and resolves the push link")
    func configInCode() throws {
        let config = LinkwellConfig(sites: [
            SiteConfig(
                domains: ["ioscoffeebreak.com"],
                ios: [IOSAppConfig(teamID: "CB45NEWS77", bundleID: "com.ioscoffeebreak.app", schemes: ["ioscoffeebreakapp"])],
                routes: [.route(RouteConfig(name: "issue", path: "/issue", query: ["id": QueryParamConfig(required: true)]))])
        ])
        #expect(config.validate().errors == [])
        let table = try RouteTable(config: config)
        #expect(table.resolve("ioscoffeebreakapp://issue?id=45").match?.parameters == ["id": "45"])
    }

    @Test("RouteTable: DialloDev's post and profile")
    func routeTable() throws {
        let loaded = try ConfigLoader.load(path: TestConfigs.path("diallodev"))
        let table = try RouteTable(config: loaded.config)
        #expect(table.resolve("https://diallodev.online/post/42").match?.parameters == ["postId": "42"])
        #expect(try table.build(route: "profile", parameters: ["userId": "diallo"]) == "https://diallodev.online/user/diallo")
    }

    @Test("RouteTable.init and resolve: FitConnect's referral scheme link")
    func resolveSwitch() throws {
        let loaded = try ConfigLoader.load(path: TestConfigs.path("fitconnect"))
        let table = try RouteTable(config: loaded.config)
        #expect(table.sites.map(\.name) == ["fitconnect"])
        var printed: (String, [String: String])? = nil
        switch table.resolve("fitconnect://signup?referralCode=TRAINER1") {
        case .matched(let link):
            printed = (link.route, link.parameters)
        case .excluded, .noRoute, .unknownHost, .unsupported:
            break
        }
        #expect(printed?.0 == "signup")
        #expect(printed?.1 == ["referralCode": "TRAINER1"])
        // Both spellings of a custom-scheme link resolve to /signup.
        #expect(table.resolve("fitconnect://fitconnect.app/signup?referralCode=TRAINER1").match?.route == "signup")
    }

    @Test("RouteTable.build: https and custom scheme")
    func build() throws {
        let table = try TestConfigs.table("coffeebreak")
        #expect(try table.build(route: "issue", parameters: ["id": "45"]) == "https://ioscoffeebreak.com/issue?id=45")
        #expect(try table.build(route: "issue", parameters: ["id": "45"], form: .customScheme(nil)) == "ioscoffeebreakapp://issue?id=45")
    }

    @Test("PathPattern: segments and parameter names")
    func pathPattern() throws {
        let pattern = try PathPattern(parsing: "/post/{postId}")
        #expect(pattern.parameterNames == ["postId"])
        #expect(pattern.segments == [.literal("post"), .param(name: "postId", prefix: "", suffix: "", oneOf: nil)])
    }

    @Test("Diagnostic.description and PathPatternError.description: the lines the comments show")
    func diagnosticDescription() throws {
        let config = LinkwellConfig(sites: [SiteConfig(domains: ["a.example"], routes: [.route(RouteConfig(name: "post", path: "/post/{id"))])])
        let error = #expect(throws: RouteTableError.self) { try RouteTable(config: config) }
        let first = try #require(error?.diagnostics.first)
        #expect(first.withFile("config/linkwell.json5").description == """
            config/linkwell.json5: sites[0].routes[0].path: error: route 'post': path '/post/{id' has an unclosed '{' at column 7
                fix: close it: '/post/{id}'
            """)
        let patternError = #expect(throws: PathPatternError.self) { try PathPattern(parsing: "/post/{id") }
        #expect(patternError?.description == "path '/post/{id' has an unclosed '{' at column 7")
    }
}
