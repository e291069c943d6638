// linkwell doctor — the journey through the proxy, once per site: a route, a short link, a long
// link and an unknown path, each fetched as a link-preview crawler would, and each checked for who
// answered it (Linkwell or the website). A proxy that sends short links or `/?link=…` to the
// website passes every file check and still loses every link a team shared; this is what
// catches it.

import Foundation
import LandingPages
import LinkRouting
import LinkServer
import LinkStore

extension Doctor {
    static let crawler = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"

    /// `server.admin` of the config (a wildcard address reached on loopback), else the default.
    static func adminAddress(_ table: RouteTable) -> String {
        var admin = table.config.server?.admin ?? ServerConfiguration.defaultAdmin.description
        if admin.hasPrefix("0.0.0.0:") { admin = "127.0.0.1:" + admin.dropFirst(8) }
        if admin.hasPrefix("[::]:") { admin = "[::1]:" + admin.dropFirst(5) }
        return admin
    }

    /// Linkwell's answers are recognisable: its pages' Content-Security-Policy, its redirects'
    /// `Found: ` body, its not-found page's `X-Linkwell-Miss`.
    static func answeredByLinkwell(_ f: Fetch) -> Bool {
        if f.header(ProxyMarker.miss) != nil { return true }
        if f.header("content-security-policy") == LandingRenderer.contentSecurityPolicy { return true }
        return (300..<400).contains(f.status) && f.body.starts(with: Array("Found: ".utf8))
    }

    /// The regenerate-the-proxy fix, with the site's website when the config names one.
    func proxyFix(_ site: CompiledSite, _ what: String) -> String {
        let origin = site.config.website.flatMap { URLParts($0) }.map { "\($0.scheme)://\($0.host)" } ?? "<your website's origin>"
        return "send \(what) to Linkwell: regenerate the proxy config from the routes (linkwell generate nginx|caddy --config \(configPath) --website-upstream \(origin)) and reload the proxy; see docs/guide/deploy.md#which-paths-go-to-linkwell"
    }

    mutating func checkJourney(label: String, host: String, site: CompiledSite) {
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        let (origin, cacert, resolve, timeout) = (url(host: host, path: ""), cacert, resolve, timeout)
        let get = { (path: String) in
            Fetch.run(url: origin + path, cacert: cacert, resolve: resolve, timeout: timeout, userAgent: Self.crawler)
        }
        // A route's sample link: the target of the long link and of a temporary short link too.
        var sample: String?
        if let entry = site.routes.first(where: { $0.route != nil }), let name = entry.route?.name,
           let built = try? table.build(site: site.name, route: name, parameters: entry.sampleParameters(), form: .https),
           let parts = URLParts(built) {
            sample = built
            let path = parts.path + (parts.query.map { "?" + $0 } ?? "")
            expectLinkwell(label, site, "route '\(name)' \(path)", get(path), what: "the routes' paths")
        }
        if let sample {
            let path = (prefix == "/" ? "/" : prefix) + "?link=" + PercentEncoding.encodeComponent(sample)
            expectLinkwell(label, site, "long link \(prefix)?link=…", get(path),
                           what: prefix == "/" ? "long links (/ with a link parameter)" : "the short-link prefix \(prefix)")
        }
        checkShortLink(label: label, site: site, prefix: prefix, sample: sample, get: get)
        checkMiss(label: label, host: host, site: site, get: get)
    }

    mutating func expectLinkwell(_ label: String, _ site: CompiledSite, _ what: String, _ f: Fetch, what paths: String) {
        if let problem = f.transportError {
            fail("\(label): \(what): \(problem.what)", fix: problem.fix)
        } else if Self.answeredByLinkwell(f) {
            pass("\(label): \(what) reaches Linkwell (\(f.status))")
        } else {
            fail("\(label): \(what) reaches another upstream, not Linkwell (\(f.status)\(f.contentType.map { ", \($0)" } ?? ""))", fix: proxyFix(site, paths))
        }
    }

    /// With `--token` a temporary link (created, followed, deleted); without, a stored one of
    /// the local store.
    mutating func checkShortLink(label: String, site: CompiledSite, prefix: String, sample: String?, get: (String) -> Fetch) {
        let what = prefix == "/" ? "short links (/CODE: Linkwell first, the website when Linkwell answers its not-found page)" : "the short-link prefix \(prefix)"
        if let token, let admin, let sample {
            let code = "doctor-" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
            let title = "linkwell doctor \(code)"
            let api = "http://\(admin)/api/v1/links"
            let body = #"{"site":"\#(site.name)","code":"\#(code)","target":"\#(sample)","previewTitle":"\#(title)"}"#
            let created = Fetch.run(url: api, cacert: nil, resolve: [], timeout: timeout, userAgent: nil, method: "POST", json: body, bearer: token)
            guard created.status == 201 else {
                let why = created.transportError?.what ?? "status \(created.status): \(String(decoding: created.body.prefix(300), as: UTF8.self))"
                fail("\(label): cannot create a temporary short link through the admin API at \(admin): \(why)",
                     fix: "pass --admin host:port of the running server and a valid --token (linkwell tokens create with the server's --config)")
                return
            }
            defer {
                _ = Fetch.run(url: "\(api)/\(site.name)/\(code)", cacert: nil, resolve: [], timeout: timeout, userAgent: nil, method: "DELETE", bearer: token)
            }
            // The server picks a new link up within a second (its refresh); allow a few.
            var f = get(prefix + code)
            let deadline = Date().addingTimeInterval(5)
            while f.header(ProxyMarker.miss) != nil, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.25)
                f = get(prefix + code)
            }
            if f.status == 200, String(decoding: f.body, as: UTF8.self).contains(title) {
                pass("\(label): a short link created now (\(prefix)\(code)) reaches Linkwell with no proxy change")
            } else if f.header(ProxyMarker.miss) != nil {
                fail("\(label): a short link created through \(admin) (\(prefix)\(code)) is not found by the server behind the proxy",
                     fix: "point --admin at the server behind this proxy (several instances must share one PostgreSQL store)")
            } else {
                expectLinkwell(label, site, "a short link created now (\(prefix)\(code))", f, what: what)
            }
            return
        }
        let stored: ShortLink? = {
            guard let location = try? StorageLocation.of(storage: table.config.storage, configPath: configPath), location.exists else { return nil }
            return (try? LinkStore(location).links())?.first { $0.site == site.name && !$0.disabled }
        }()
        guard let stored else {
            warn("\(label): no stored short link to follow through the proxy",
                 fix: "pass --token (an admin API token: linkwell tokens create) and doctor creates a temporary link, follows it and deletes it")
            return
        }
        let f = get(prefix + stored.code)
        if f.header(ProxyMarker.miss) != nil {
            warn("\(label): stored short link \(prefix)\(stored.code) reaches Linkwell, which does not know it",
                 fix: "is the server behind the proxy using the same store as --config \(configPath)?")
        } else {
            expectLinkwell(label, site, "stored short link \(prefix)\(stored.code)", f, what: what)
        }
    }

    /// A path no link has: the website's when one shares the domain, else Linkwell's not-found page.
    mutating func checkMiss(label: String, host: String, site: CompiledSite, get: (String) -> Fetch) {
        let path = "/linkwell-doctor-" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        let f = get(path)
        if let problem = f.transportError {
            fail("\(label): unknown path \(path): \(problem.what)", fix: problem.fix)
            return
        }
        let websiteHere = site.config.website.flatMap { URLParts($0) }.map { site.serves(host: $0.host.lowercased()) } ?? false
        if f.header(ProxyMarker.miss) != nil {
            if websiteHere {
                fail("\(label): unknown path \(path) gets Linkwell's not-found page, but the site's website (\(site.config.website ?? "")) is on this domain",
                     fix: proxyFix(site, "only the link paths"))
            } else {
                pass("\(label): unknown path \(path) gets Linkwell's not-found page (no website shares this domain)")
            }
        } else if f.status >= 500 {
            fail("\(label): unknown path \(path) answers \(f.status): the proxy's fallback to the website fails",
                 fix: "is the website up at the proxy's --website-upstream? (the proxy's error log names the upstream it tried)")
        } else {
            pass("\(label): unknown path \(path) reaches the website (\(f.status))")
        }
    }
}

/// The response header of Linkwell's not-found page, as curl's lower-cased header name.
enum ProxyMarker {
    static let miss = LandingRenderer.missHeader.0.lowercased()
}
