// parse(build(route, params)) == (route, params), for every route of every shipped config,
// with values holding spaces, '/', '?', '#', '%', '&', '=', '+' and non-ASCII text.

import Testing
import LinkRouting

@Suite("Round trip: parse(build(r, p)) == (r, p)")
struct RoundTripTests {
    static let hostile = [
        "plain", "with space", "a/b", "what?", "#hash", "100%", "a&b=c", "1+1", "ça va", "日本語", "😀", "%2F",
        "..", ".", "a b/c?d#e%f&g=h+i", "\u{0}nul", "trailing/", "'quote\"", "<tag>",
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var config: String
        var site: String
        var route: String
        var value: String
        var testDescription: String { "\(config)/\(route) ← \(value.debugDescription)" }
    }

    static var cases: [Case] {
        var out: [Case] = []
        for config in TestConfigs.all {
            guard let table = try? TestConfigs.table(config) else { continue }
            for site in table.sites {
                for entry in site.routes {
                    for value in hostile { out.append(Case(config: config, site: site.name, route: entry.route!.name, value: value)) }
                }
            }
        }
        return out
    }

    @Test("every shipped config compiles")
    func configsCompile() throws {
        for name in TestConfigs.all { _ = try TestConfigs.table(name) }
        #expect(Self.cases.count >= TestConfigs.all.count * Self.hostile.count)
    }

    @Test(arguments: cases)
    func roundTrip(c: Case) throws {
        let table = try TestConfigs.table(c.config)
        let site = try #require(table.site(named: c.site))
        let entry = try #require(site.entry(named: c.route))
        var params: [String: String] = [:]
        for seg in entry.pattern.segments {
            switch seg {
            case .literal: break
            case let .param(name, _, _, oneOf): params[name] = oneOf?.first ?? c.value
            case let .rest(name): params[name] = c.value.split(separator: "/").joined(separator: "/")
            }
        }
        for name in entry.requiredQuery + entry.optionalQuery { params[name] = c.value }
        if let f = entry.route?.fragment { params[f] = c.value }
        // A path value of '.' or '..' is built encoded so no browser resolves it away.
        for form in [LinkForm.https, .customScheme(nil)] {
            if case .customScheme = form, RouteTable.hasScheme(site: site) == false { continue }
            let url = try table.build(site: c.site, route: c.route, parameters: params, form: form)
            let m = try #require(table.resolve(url).match, "\(url) did not parse")
            #expect(m.route == c.route, "\(url)")
            #expect(m.parameters == params, "\(url)")
            #expect(m.site == c.site)
            // What was built is what a browser would send: nothing left to encode.
            #expect(PercentEncoding.browserNormalized(url) == url)
        }
    }
}

extension RouteTable {
    static func hasScheme(site: CompiledSite) -> Bool {
        site.iosApps.contains { !($0.schemes ?? []).isEmpty } || site.androidApps.contains { !($0.schemes ?? []).isEmpty }
    }
}
