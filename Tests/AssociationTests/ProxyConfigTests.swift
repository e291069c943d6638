// `linkwell generate nginx|caddy`: each path pattern becomes the nginx location (exact, prefix or
// regex) and the regular expression that match exactly the paths the route table accepts.

import Foundation
import Testing
import Association
import LinkRouting

@Suite("Proxy configs")
struct ProxyConfigTests {
    @Test(arguments: [
        ("/", false, [ProxyLocation.exact("/")]),
        ("/AI", false, [.exact("/AI"), .exact("/AI/")]),
        ("/caf%C3%A9/menu", false, [.exact("/café/menu"), .exact("/café/menu/")]),
        ("/post/drafts/*", true, [.exact("/post/drafts"), .prefix("/post/drafts/")]),
        ("/*", true, [.prefix("/")]),
        ("/post/{id}", false, [.regex(#"^/post/[^/]+/?$"#)]),
        ("/a.b/{id}.html", false, [.regex(#"^/a\.b/[^/]+\.html/?$"#)]),
        ("/files/{rest*}", false, [.exact("/files"), .prefix("/files/")]),
        ("/{user}/files/{rest*}", false, [.regex(#"^/[^/]+/files(?:/.*)?$"#)]),
        ("/(x)+/{id}", false, [.regex(#"^/\(x\)\+/[^/]+/?$"#)]),
    ])
    func locations(pattern: String, exclusion: Bool, expected: [ProxyLocation]) throws {
        let compiled = try PathPattern(parsing: pattern, allowTrailingStar: exclusion)
        #expect(ProxyConfig.locations(for: compiled) == expected)
    }

    /// The regex accepts exactly what the route table accepts, path by path.
    @Test(arguments: [
        ("/post/{id}", ["/post/1", "/post/1/", "/post/a.b"], ["/post", "/post/", "/post/1/2", "/Post/1", "/postx/1"]),
        ("/v{n}.json", ["/v1.json", "/v12.json/"], ["/v.json", "/v1xjson", "/x/v1.json"]),
        ("/{kind}/{id}", ["/a/b"], ["/a", "/a/b/c"]),
        ("/docs/{rest*}", ["/docs", "/docs/", "/docs/a/b/c"], ["/doc", "/docsa"]),
    ])
    func regexAgreesWithRouteTable(pattern: String, accepted: [String], rejected: [String]) throws {
        let config = try ConfigLoader.decode(
            Data(#"{ sites: [ { domains: ["example.com"], ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app" }], routes: [{ name: "r", path: "\#(pattern)" }] } ] }"#.utf8),
            file: "t.json5"
        ).config
        let table = try RouteTable(config: config)
        let site = table.sites[0]
        let regex = try NSRegularExpression(pattern: ProxyConfig.regex(for: site.entries[0].pattern))
        for path in accepted + rejected {
            let byTable = table.resolve(site: site, path: path, query: nil, fragment: nil).match != nil
            let byRegex = regex.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
            #expect(byTable == accepted.contains(path), "\(path): route table")
            #expect(byRegex == byTable, "\(path): regex \(ProxyConfig.regex(for: site.entries[0].pattern))")
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1:3000", nil as String?),
        ("https://origin.example.com/", nil),
        ("ftp://x", "is not an http:// or https:// URL"),
        ("http://127.0.0.1:3000/site", "has a path or query"),
        ("127.0.0.1:3000", "is not an http:// or https:// URL"),
    ])
    func websiteUpstreamProblems(url: String, problem: String?) {
        let found = ProxyConfig.problem(withUpstream: url)
        if let problem { #expect(found?.contains(problem) == true, "\(found ?? "nil")") } else { #expect(found == nil) }
    }

    @Test func bootstrapNeedsNoCertificateAndWebsiteGetsTheRest() throws {
        let config = try ConfigLoader.decode(
            Data(#"{ sites: [ { name: "s", domains: ["example.com", "*.example.net"], website: "https://example.com", ios: [{ teamID: "ABCDE12345", bundleID: "com.example.app" }], routes: [{ name: "r", path: "/r/{id}" }] } ] }"#.utf8),
            file: "t.json5"
        ).config
        let table = try RouteTable(config: config)
        let boot = ProxyConfig.nginx(table.sites, options: ProxyConfigOptions(websiteUpstreams: ["": "http://127.0.0.1:3000"], bootstrap: true))
        #expect(!boot.contains("ssl_certificate") && !boot.contains("listen 443") && !boot.contains("return 301"))
        #expect(boot.contains("server_name example.com .example.net;"))
        #expect(boot.contains("location ~ \"^/r/[^/]+/?$\" {\n        set $linkwell_cookie \"\";\n        proxy_pass http://linkwell;"))
        // Cookies reach the website, never Linkwell.
        #expect(boot.contains("set $linkwell_cookie $http_cookie;\n    proxy_set_header Cookie            $linkwell_cookie;"))
        #expect(boot.contains("location / {\n        proxy_pass http://127.0.0.1:3000;\n    }"))
        #expect(boot.contains("location / {\n        proxy_pass http://127.0.0.1:3000;"))
        let full = ProxyConfig.nginx(table.sites, options: ProxyConfigOptions())
        #expect(full.contains("ssl_certificate     /etc/letsencrypt/live/example.com/fullchain.pem;"))
        #expect(full.contains("location / {\n        return 301 https://$host$request_uri;"))
        #expect(full.contains("no website upstream (--website-upstream), so Linkwell's not-found page.\n    location / {\n        set $linkwell_cookie \"\";\n        proxy_pass http://linkwell;"))
        #expect(ProxyConfig.websiteLoopWarnings(table, options: ProxyConfigOptions()).map(\.path) == ["sites[0].website"])
        #expect(ProxyConfig.websiteLoopWarnings(table, options: ProxyConfigOptions(websiteUpstreams: ["s": "http://x"])).isEmpty)
        let caddy = ProxyConfig.caddy(table.sites, options: ProxyConfigOptions())
        #expect(caddy.contains("http://example.com, http://example.net, http://*.example.net {"))
        #expect(caddy.contains("\t\theader_up -Cookie\n"))
        #expect(caddy.contains("@routes path_regexp routes ^(?:/r/[^/]+/?)$\n"))
    }

    /// A website on the domain: long links by their query, short links by the prefix, or at the
    /// root Linkwell first with the website as the fallback; no website: nothing extra.
    @Test func shortAndLongLinksOnASharedDomain() throws {
        let config = try ConfigLoader.decode(
            Data(#"{ sites: [ { name: "root", domains: ["a.example"], routes: [{ name: "r", path: "/r/{id}" }] }, { name: "pre", domains: ["b.example"], routes: [{ name: "r", path: "/r/{id}" }], shortLinks: { prefix: "/l/" } } ] }"#.utf8),
            file: "t.json5"
        ).config
        let table = try RouteTable(config: config)
        let shared = ProxyConfigOptions(websiteUpstreams: ["": "https://www.example.org"])
        let nginx = ProxyConfig.nginx(table.sites, options: shared)
        let sites = nginx.components(separatedBy: "# MARK: site ")
        let (root, pre) = (sites[1], sites[2])
        #expect(root.contains("location ~ \"^/[A-Za-z0-9_-]+$\" {\n        error_page 404 418 = @website;"))
        #expect(root.contains("proxy_intercept_errors on;"))
        #expect(root.contains("location @website {\n        set $linkwell_cookie $http_cookie;\n        proxy_pass https://www.example.org;\n        proxy_ssl_server_name on;\n    }"))
        #expect(root.contains("location = / {\n        error_page 418 = @linkwell;\n        if ($args ~ \"(^|&)link(=|&|$)\") {"))
        #expect(!pre.contains("@website") && !pre.contains("location = / {"))
        #expect(pre.contains("location ^~ /l/ {\n        set $linkwell_cookie \"\";\n        proxy_pass http://linkwell;"))
        #expect(pre.contains("location = /l {"))
        let caddy = ProxyConfig.caddy(table.sites, options: shared).components(separatedBy: "# MARK: site ")
        #expect(caddy[1].contains("\t\tpath_regexp codes ^/[A-Za-z0-9_-]+$\n"))
        #expect(caddy[1].contains("\t\t\t@miss header X-Linkwell-Miss *\n\t\t\thandle_response @miss {\n\t\t\t\treverse_proxy https://www.example.org\n"))
        #expect(caddy[1].contains("\t\tquery link=*\n"))
        #expect(caddy[2].contains("@links path_regexp links ^/l(?:/.*)?$") && !caddy[2].contains("@codes"))
        // Without a website the whole domain is Linkwell's already.
        let alone = ProxyConfig.nginx(table.sites, options: ProxyConfigOptions()) + ProxyConfig.caddy(table.sites, options: ProxyConfigOptions())
        #expect(!alone.contains("@website") && !alone.contains("@codes") && !alone.contains("location ^~ /l/"))
    }
}
