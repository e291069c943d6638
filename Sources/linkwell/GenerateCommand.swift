// linkwell generate — the association files as static files, for S3, Pages or your own nginx.

import Association
import Foundation
import LinkRouting
import LinkServer

enum GenerateCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "generate",
        overview: "Write the association files for static hosting, or an nginx/Caddy config derived from the routes.",
        abstract: "Write apple-app-site-association / assetlinks.json for static hosting.",
        arguments: [
            ArgumentSpec(
                name: "aasa|assetlinks|all|nginx|caddy", help: "What to generate.",
                values: [
                    ("aasa|assetlinks|all", "Which file: apple-app-site-association, assetlinks.json, or both."),
                    ("nginx|caddy", "A reverse-proxy config: the association files and the route paths to Linkwell, the rest to the website."),
                ])
        ],
        options: [site.spec, output.spec, websiteUpstream.spec, linkwellUpstream.spec, acmeWebroot.spec, certDir.spec, bootstrap.spec, CommonOptions.config.spec],
        discussion: """
            Serve the association files with status 200, Content-Type: application/json, and no redirect.
            The AASA also belongs at /apple-app-site-association for old iOS versions.

            nginx/caddy: per site, /.well-known/ and /apple-app-site-association, exactly the paths the
            routes and exclusions cover, and Linkwell's /static/ files go to Linkwell; everything else
            to --website-upstream. Port 80 serves ACME challenges from --acme-webroot and the association
            files, and redirects the rest to HTTPS. Regenerate after every route change.
            """
    )

    static let site = Option<String>(
        "--site", "domain", help: "The site (its name or a domain); needed to print to stdout when the config has several.")
    static let output = Option<Path>(
        "--output", "path", help: "aasa/assetlinks/all: write <path>/<domain>/.well-known/<file>; nginx/caddy: write the config to <path>.")
    static let websiteUpstream = Option<String>(
        "--website-upstream", "[site=]url", help: "nginx/caddy: where paths Linkwell does not claim go (default: Linkwell's not-found page).",
        repeatable: true)
    static let linkwellUpstream = Option<String>(
        "--linkwell-upstream", "host:port", help: "nginx/caddy: where Linkwell listens (default: the config's first server.listen, else 127.0.0.1:8080).")
    static let acmeWebroot = Option<Path>(
        "--acme-webroot", "dir", help: "nginx/caddy: ACME HTTP-01 webroot served on port 80 (default: /var/www/letsencrypt).")
    static let certDir = Option<Path>(
        "--cert-dir", "dir", help: "nginx: certificates at <dir>/<first domain>/fullchain.pem (default: /etc/letsencrypt/live).")
    static let bootstrap = Flag("--bootstrap", help: "nginx: HTTP only, no certificate needed (the first certbot run).")

    /// The proxy-only options, as their values were written (for the generated file's header).
    static func proxyOptions(_ args: Arguments) -> [(name: String, values: [String])] {
        [
            (websiteUpstream.spec.name, args.all(websiteUpstream)), (linkwellUpstream.spec.name, args.all(linkwellUpstream)),
            (acmeWebroot.spec.name, args.all(acmeWebroot).map(\.path)), (certDir.spec.name, args.all(certDir).map(\.path)),
        ]
    }

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1, ["aasa", "assetlinks", "all", "nginx", "caddy"].contains(args.positional[0]) else {
            throw UsageError(message: "say what to generate: aasa, assetlinks, all, nginx or caddy")
        }
        let which = args.positional[0]
        if which == "nginx" || which == "caddy" { return try proxy(which, args) }
        for (proxyOnly, values) in proxyOptions(args) where !values.isEmpty {
            throw UsageError(message: "\(proxyOnly) is for 'generate nginx' and 'generate caddy'")
        }
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        var sites = table.sites
        if let name = args[Self.site] {
            guard let s = table.site(named: name) else {
                throw UsageError(message: "no site '\(name)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            sites = [s]
        }
        func files(_ site: CompiledSite) -> [(String, [UInt8])] {
            var out: [(String, [UInt8])] = []
            let generated = validated.generated(site)
            if which != "assetlinks", !site.iosApps.isEmpty { out.append(("apple-app-site-association", generated.aasa)) }
            if which != "aasa", !site.androidApps.isEmpty { out.append(("assetlinks.json", generated.assetLinks)) }
            return out
        }
        guard let dir = args[output]?.path else {
            guard sites.count == 1 else {
                throw UsageError(message: "the config has \(sites.count) sites; pick one with --site, or write them all with --output DIR")
            }
            guard which != "all" else { throw UsageError(message: "'all' needs --output DIR; print one file at a time to stdout") }
            let f = files(sites[0])
            guard let bytes = f.first?.1 else {
                Output.err("Error: site '\(sites[0].name)' has no \(which == "aasa" ? "iOS" : "Android") apps, so there is no \(which) file")
                return 1
            }
            FileHandle.standardOutput.write(Data(bytes))
            return 0
        }
        let fm = FileManager.default
        for site in sites {
            for domain in site.exactDomains.isEmpty ? [site.canonicalHost] : site.exactDomains {
                let wellKnown = URL(fileURLWithPath: dir).appendingPathComponent(domain).appendingPathComponent(".well-known")
                for (name, bytes) in files(site) {
                    let target = wellKnown.appendingPathComponent(name)
                    do {
                        try fm.createDirectory(at: wellKnown, withIntermediateDirectories: true)
                        try Data(bytes).write(to: target)
                    } catch {
                        throw IOFailure(description: "cannot write \(target.path): \(error.localizedDescription)")
                    }
                    Output.note("wrote \(target.path) (\(bytes.count) bytes)")
                }
            }
        }
        return 0
    }
}

extension GenerateCommand {
    /// `[site=]url` options as the generator's map; usage errors name the bad value.
    static func websiteUpstreams(_ values: [String], table: RouteTable) throws -> [String: String] {
        var out: [String: String] = [:]
        for raw in values {
            var site = ""
            var url = raw
            if let eq = raw.firstIndex(of: "="), !raw[..<eq].contains(":") {
                site = String(raw[..<eq])
                url = String(raw[raw.index(after: eq)...])
                guard let s = table.site(named: site) else {
                    throw UsageError(message: "--website-upstream \(raw): no site '\(site)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
                }
                site = s.name
            }
            if let problem = ProxyConfig.problem(withUpstream: url) { throw UsageError(message: "--website-upstream: \(problem)") }
            out[site] = url
        }
        return out
    }

    static func proxy(_ which: String, _ args: Arguments) throws -> Int32 {
        let table = try args.loadConfig().0.table
        if which == "caddy", args.has(bootstrap) {
            throw UsageError(message: "--bootstrap is for nginx; Caddy obtains its certificates itself (automatic HTTPS)")
        }
        if which == "caddy", args.given(certDir) {
            throw UsageError(message: "--cert-dir is for nginx; Caddy keeps its own certificates")
        }
        let configPath = args.configPath
        // Linkwell's own /static/ files (the shipped CSS, brand stylesheets, a publicDir's files)
        // and the generated preview cards under /static/og/.
        var assets = ["/static/og/"]
        if let snapshot = ServerRuntime.loadSnapshot(configPath: configPath).0 {
            assets += snapshot.assets.responses.keys.filter { $0.hasPrefix("/static/") }.sorted()
        }
        var command = ["linkwell", "generate", which]
        if args.given(CommonOptions.config) { command += ["--config", configPath] }
        for (name, values) in proxyOptions(args) {
            for v in values { command += [name, v] }
        }
        if args.has(bootstrap) { command.append("--bootstrap") }
        var sites = table.sites
        if let name = args[Self.site] {
            guard let s = table.site(named: name) else {
                throw UsageError(message: "no site '\(name)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            sites = [s]
            command += ["--site", name]
        }
        // A wildcard listen address is reached on loopback.
        var listen = table.config.server?.listen?.first ?? "127.0.0.1:8080"
        if listen.hasPrefix("0.0.0.0:") { listen = "127.0.0.1:" + listen.dropFirst(8) }
        if listen.hasPrefix("[::]:") { listen = "[::1]:" + listen.dropFirst(5) }
        var options = ProxyConfigOptions(
            linkwellUpstream: args[linkwellUpstream] ?? listen,
            websiteUpstreams: try websiteUpstreams(args.all(websiteUpstream), table: table),
            bootstrap: args.has(bootstrap), assetPaths: assets, command: command.joined(separator: " "))
        if let dir = args[acmeWebroot]?.path { options.acmeWebroot = dir }
        if let dir = args[certDir]?.path { options.certificateDirectory = dir }
        let text = which == "nginx" ? ProxyConfig.nginx(sites, options: options) : ProxyConfig.caddy(sites, options: options)
        if let path = args[output]?.path {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                throw IOFailure(description: "cannot write \(path): \(error.localizedDescription)")
            }
            Output.note("wrote \(path) (\(text.utf8.count) bytes)")
        } else {
            Output.out(text)
        }
        return 0
    }
}
