import Foundation
import LandingPages
import LinkRouting
import MicroHTTP
import Testing

@testable import LinkServer

// A compiled page keeps the whole response of a link asked for twice in a row
// (`CompiledPageCache.Page.keep`): the kept bytes and headers are the rendered ones, another link
// is answered with its own bytes (and replaces the kept one), and the budget bounds what is kept.

@Suite("Compiled page: the kept response of a repeated link")
struct KeptLandingResponseTests {
    static func answer(_ snapshot: Snapshot, path: String) throws -> (HTTPResponse, [UInt8]) {
        var found: (CompiledSite, LinkMatch)?
        for site in snapshot.table.sites where found == nil {
            if case let .matched(match) = snapshot.table.resolve(site: site, path: path, query: nil, fragment: nil) { found = (site, match) }
        }
        guard let (compiled, match) = found else { throw KeptTestError.noMatch(path) }
        let facts = RequestFacts(rawTarget: path, host: compiled.canonicalHost, userAgent: nil, acceptLanguage: nil)
        let site = snapshot.site(compiled)
        let visitor = snapshot.answerer.visitor(site: site, facts: facts)
        let made = snapshot.answerer.answer(LandingRequest(site: site, match: match, visitor: visitor), facts: facts)
        guard case let .page(response) = made.answer else { throw KeptTestError.noPage(path) }
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        let slow = renderer.landing.page(for: match, site: compiled, browser: BrowserFacts(userAgent: nil))
        #expect(response.headers.map { "\($0.0): \($0.1)" } == slow.headers.map { "\($0.0): \($0.1)" })
        return (response, slow.body)
    }

    enum KeptTestError: Error {
        case noMatch(String)
        case noPage(String)
    }

    static func isPrepared(_ response: HTTPResponse) -> Bool {
        if case .prepared = response { return true }
        return false
    }

    @Test("kept from the second request of a link on, with the rendered bytes; another link gets its own")
    func keptForRepeatedLink() throws {
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: Fixture.root.appendingPathComponent("config/linkwell.json5").path)
        let snapshot = try #require(loaded, "\(report.errors)")
        let first = try Self.answer(snapshot, path: "/post/123")
        #expect(!Self.isPrepared(first.0), "the first request writes its slots")
        #expect(first.0.body == first.1)
        let second = try Self.answer(snapshot, path: "/post/123")
        #expect(Self.isPrepared(second.0), "the second request of the same link makes the kept response")
        #expect(second.0.body == second.1)
        let third = try Self.answer(snapshot, path: "/post/123")
        guard case let .prepared(a) = second.0, case let .prepared(b) = third.0 else {
            Issue.record("the third request is not the kept response")
            return
        }
        #expect(a === b, "the same response object is sent again")
        let other = try Self.answer(snapshot, path: "/post/124")
        #expect(!Self.isPrepared(other.0), "another link is written per request")
        #expect(other.0.body == other.1)
        #expect(other.0.body != third.0.body)
        let back = try Self.answer(snapshot, path: "/post/123")
        #expect(!Self.isPrepared(back.0), "the other link replaced the kept one")
        #expect(back.0.body == back.1)
        #expect(snapshot.answerer.cache.kept.bytes == 0, "the replaced response's bytes are given back")
    }

    @Test("a compiled page answers only its own parameter names (the variant key is a hash of them)")
    func exactNames() throws {
        let (loaded, report) = ServerRuntime.loadSnapshot(configPath: Fixture.root.appendingPathComponent("config/linkwell.json5").path)
        let snapshot = try #require(loaded, "\(report.errors)")
        let renderer = try #require(snapshot.renderer as? LandingPageRenderer)
        var found: (CompiledSite, LinkMatch)?
        for site in snapshot.table.sites where found == nil {
            if case let .matched(match) = snapshot.table.resolve(site: site, path: "/post/123", query: nil, fragment: nil) { found = (site, match) }
        }
        let (site, match) = try #require(found)
        let browser = BrowserFacts(userAgent: nil)
        let catalog = renderer.locale(site: site, browser: browser, acceptLanguage: nil)
        let page = try #require(renderer.compiledPage(for: match, site: site, browser: browser, catalog: catalog).compiled)
        func answer(_ m: LinkMatch) -> CompiledLandingPage.Outcome? {
            page.answer(match: m, site: site, renderer: renderer.landing, locale: catalog.tag)
        }
        #expect(answer(match) != nil)
        var extra = match
        extra.parameters["utm_source"] = "x"
        #expect(answer(extra) == nil, "a name the page was not compiled for")
        var fewer = match
        fewer.parameters = [:]
        #expect(answer(fewer) == nil)
    }

    @Test("a budget without room keeps nothing, and gives back what it could not keep")
    func budget() {
        let budget = CompiledPageCache.KeptBudget(limit: 100)
        #expect(budget.take(60))
        #expect(!budget.take(60))
        #expect(budget.bytes == 60)
        budget.release(60)
        #expect(budget.take(100))
        let page = CompiledPageCache.Page(compiled: nil)
        let full = CompiledPageCache.KeptBudget(limit: 10)
        var made = 0
        let response = { () -> PreparedResponse in
            made += 1
            return PreparedResponse(status: 200, headers: [], body: Array(repeating: 0x61, count: 20))
        }
        #expect(page.keep(["id": "1"], bytes: 20, budget: full, make: response) == nil)
        #expect(page.keep(["id": "1"], bytes: 20, budget: full, make: response) == nil, "over the budget: not kept")
        #expect(made == 0)
        #expect(page.kept(["id": "1"]) == nil)
    }
}
