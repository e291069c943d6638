// Targets of short links: a route of the site, a page on its own domains, or refused with the reason.

import LinkRouting
import Testing

@testable import LinkStore

@Suite struct ShortLinkValidatorTests {
    static let table: RouteTable = {
        let config = LinkwellConfig(sites: [
            SiteConfig(
                name: "fit", domains: ["fitconnect.app"],
                ios: [IOSAppConfig(teamID: "ABCDE12345", bundleID: "app.fit", schemes: ["fitapp"])],
                routes: [.route(RouteConfig(name: "workout", path: "/w/{id}")), .exclusion(ExclusionConfig(exclude: "/admin/*"))]),
            SiteConfig(name: "blog", domains: ["blog.example"], ios: [IOSAppConfig(teamID: "ABCDE12345", bundleID: "app.blog")],
                routes: [.route(RouteConfig(name: "post", path: "/p/{id}"))]),
        ])
        return try! RouteTable(config: config)
    }()

    @Test(arguments: [
        ("https://fitconnect.app/w/42", "fit", ShortLinkTarget.route("workout")),
        ("fitapp://w/42", "fit", .route("workout")),
        ("https://fitconnect.app/about", "fit", .webPage),
        ("https://fitconnect.app/admin/x", "fit", .webPage),
    ])
    func accepted(target: String, site: String, expected: ShortLinkTarget) {
        let link = ShortLink(code: "abcd", site: site, target: target)
        #expect(ShortLinkValidator.check(link, table: Self.table) == .success(expected))
    }

    @Test(arguments: [
        (ShortLink(code: "abcd", site: "fit", target: "https://evil.example/"),
         "the target host 'evil.example' is not a domain of site 'fit' (fitconnect.app); short links lead only to the site's own domains, its shortLinks.allowedHosts and app schemes (no open redirects). If you own it, add it: sites[0].shortLinks.allowedHosts: [\"evil.example\"]"),
        (ShortLink(code: "abcd", site: "fit", target: "https://blog.example/p/1"),
         "the target 'https://blog.example/p/1' belongs to site 'blog', not 'fit'; add the link there (--site blog)"),
        (ShortLink(code: "abcd", site: "fit", target: "fitapp://nothing/here"),
         "the target 'fitapp://nothing/here' uses an app scheme but no route of site 'fit' accepts it"),
        (ShortLink(code: "abcd", site: "nope", target: "https://fitconnect.app/w/1"), "there is no site 'nope'; the config's sites are 'fit', 'blog'"),
        (ShortLink(code: "w", site: "fit", target: "https://fitconnect.app/w/1"), nil),
        (ShortLink(code: "abcd", site: "fit", target: "https://fitconnect.app/w/1", iosFallback: "javascript:alert(1)"),
         "the iOS fallback 'javascript:alert(1)' is not an http(s) URL"),
        (ShortLink(code: "abcd", site: "fit", target: "javascript:alert(1)"), "javascript"),
    ])
    func refused(link: ShortLink, reason: String?) {
        switch ShortLinkValidator.check(link, table: Self.table) {
        case .success(let t):
            #expect(reason == nil, "accepted as \(t)")
        case .failure(let refusal):
            if let reason { #expect(refusal.description.hasPrefix(reason) || refusal.description.contains(reason)) } else {
                Issue.record("refused: \(refusal)")
            }
        }
    }
}
