// linkwell doctor — checks a deployment from the outside, the way Apple's CDN and Android's
// verifier see it: both files over HTTPS, no redirects followed, status, content type, strict
// JSON, size, certificate, drift from the local config, and every route claimed on both
// platforms through the files actually served. Debian's curl does the fetching (predictable
// redirect, TLS and --resolve behaviour on Linux).

import Association
import Foundation
import LinkRouting
import LinkwellJSON
import PlatformMatchers

enum DoctorCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "doctor",
        overview: "Check a live deployment: the association files as Apple and Google fetch them, for every domain of the config.",
        abstract: "Check a live deployment over HTTPS the way Apple and Google fetch it.",
        arguments: [
            ArgumentSpec(
                name: "https://<domain>[:<port>]",
                help: "The deployment to check. Every exact domain of the config (and the root of every wildcard) is checked on the same port.")
        ],
        options: [CommonOptions.config.spec, site.spec, cacert.spec, resolve.spec, timeout.spec, apkCert.spec, token.spec, admin.spec, offline.spec, json.spec],
        discussion: """
            Prints one line per check: PASS, WARN or FAIL, what was checked, and for a failure how to
            fix it. Besides the deployment itself it asks Apple's CDN
            (app-site-association.cdn-apple.com/a/v1/DOMAIN, the copy devices use) and Google's
            Digital Asset Links API (statements:list, what Android's verifier sees); --offline skips
            both. Through the proxy it follows the journey of each site: a route, a short
            link (a stored one, or with --token a temporary one it creates and deletes), a long link
            (?link=…) must reach Linkwell, and an unknown path the website when one shares the domain. Last, the on-device commands for what cannot be checked from here.
            Exit status: 0 when nothing failed, 1 when a check failed, 64 on usage errors, 69 without curl.
            Needs curl (Debian: apt-get install curl).
            """
    )

    static let site = Option<String>("--site", "name", help: "Check only this site's domains (default: every site of the config).")
    static let cacert = Option<Path>(
        "--cacert", "file", help: "Trust this CA certificate (PEM) instead of the system store — for staging or `tls internal`.")
    static let resolve = Option<String>(
        "--resolve", "host:port:addr", help: "Connect to addr for host:port (curl's --resolve), to test before DNS points at the server.", repeatable: true)
    static let timeout = Option<Seconds>("--timeout", "seconds", help: "Per-request time limit (default 15).")
    static let apkCert = Option<String>(
        "--apk-cert", "fingerprint",
        help: "The SHA-256 your installed APK is signed with (or Play's app-signing key): is it in assetlinks.json?", repeatable: true)
    static let token = Option<String>(
        "--token", "token",
        help: "An admin API token (linkwell tokens create): doctor creates a temporary short link, follows it through the proxy and deletes it.")
    static let admin = Option<String>(
        "--admin", "host:port", help: "Where the admin API listens, for --token (default: the config's server.admin, else 127.0.0.1:9090).")
    static let offline = Flag("--offline", help: "Ask neither Apple's CDN nor Google's Digital Asset Links API; check the deployment only.")
    static let json = Flag("--json", help: "Print the checks, what Apple's CDN and Google see, and the on-device commands as JSON.")

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "give the deployment's URL, e.g. linkwell doctor https://example.com") }
        guard let base = URLParts(args.positional[0]), base.scheme == "https" || base.scheme == "http", !base.host.isEmpty else {
            throw UsageError(message: "'\(args.positional[0])' is not an https URL; give https://<domain>[:<port>]")
        }
        var apkCerts: [String] = []
        for raw in args.all(apkCert) {
            guard let fp = Doctor.normalizedFingerprint(raw) else {
                throw UsageError(message: "--apk-cert '\(raw)' is not a SHA-256 fingerprint (32 hex pairs, e.g. 14:6D:E9:…:44:E5; keytool -printcert -jarfile app.apk prints it)")
            }
            apkCerts.append(fp)
        }
        guard FileManager.default.isExecutableFile(atPath: Fetch.curlPath()) else {
            Output.err("Error: doctor needs curl to fetch the files as Apple and Google do, and none is on PATH; install it (apt-get install curl)")
            return ExitCode.unavailable
        }
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        var doctor = Doctor(
            validated: validated, scheme: base.scheme, port: base.port, cacert: args[cacert]?.path,
            resolve: args.all(resolve), timeout: args[timeout]?.value ?? 15)
        doctor.quietLines = args.has(json)
        doctor.offline = args.has(offline)
        doctor.apkCerts = apkCerts
        doctor.token = args[token]
        doctor.admin = args[admin] ?? Doctor.adminAddress(table)
        doctor.configPath = args.configPath
        if let name = args[Self.site], table.site(named: name) == nil {
            throw UsageError(message: "no site '\(name)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
        }
        doctor.run(urlHost: base.host, onlySite: args[Self.site])
        let device = doctor.deviceCommands(onlySite: args[Self.site])
        if args.has(json) {
            struct Report: Encodable {
                var checks: [[String: String]]
                var appleCDN, google: [ServiceReport]
                var deviceCommands: [[String: String]]
                var passed, warnings, failed: Int
            }
            Output.json(Report(
                checks: doctor.checks, appleCDN: doctor.cdnReports, google: doctor.googleReports,
                deviceCommands: device.map { ["platform": $0.platform, "command": $0.command, "why": $0.why] },
                passed: doctor.passed, warnings: doctor.warnings, failed: doctor.failed))
        } else {
            if !device.isEmpty {
                Output.out("On a device (doctor cannot check these from here):")
                for d in device { Output.out("  \(d.platform.padding(toLength: 8, withPad: " ", startingAt: 0)) \(d.command)    # \(d.why)") }
            }
            Output.out("doctor: \(doctor.passed) passed, \(doctor.warnings) warning(s), \(doctor.failed) failed")
        }
        return doctor.failed > 0 ? 1 : 0
    }
}

/// What Apple's CDN or Google's Digital Asset Links API said about one host, for --json.
struct ServiceReport: Encodable {
    struct Statement: Encodable {
        var package: String
        var sha256Fingerprint: String
    }

    var host, url, error: String?
    var status: Int?
    var appleFailureReason, appleFailureDetails, appleFrom: String?
    var identical: Bool?
    var statements: [Statement]?
    var errorCode: [String]?
}

/// The checks, and their tally.
struct Doctor {
    /// The local config and the files it generates (once), compared with what is served.
    let validated: ValidatedConfig
    var table: RouteTable { validated.table }
    let scheme: String
    let port: Int?
    let cacert: String?
    let resolve: [String]
    let timeout: Int
    var passed = 0
    var warnings = 0
    var failed = 0
    /// Every check, for --json.
    var checks: [[String: String]] = []
    /// --json: collect, do not print lines.
    var quietLines = false
    /// --offline: ask neither Apple's CDN nor Google's API.
    var offline = false
    /// --apk-cert fingerprints, normalized.
    var apkCerts: [String] = []
    /// The journey through the proxy (a route, a short link, a long link, a miss): once per site.
    var journeyChecked = Set<String>()
    /// `--token`: an admin API token, to create (and delete) a temporary short link.
    var token: String?
    /// `--admin`: where the admin API listens (`host:port`).
    var admin: String?
    /// The config file, for the link store a server started with it uses.
    var configPath = ""
    /// What Apple's CDN and Google's API said, per host, for --json.
    var cdnReports: [ServiceReport] = []
    var googleReports: [ServiceReport] = []

    init(validated: ValidatedConfig, scheme: String, port: Int?, cacert: String?, resolve: [String], timeout: Int) {
        self.validated = validated
        self.scheme = scheme
        self.port = port
        self.cacert = cacert
        self.resolve = resolve
        self.timeout = timeout
    }

    mutating func pass(_ what: String) {
        passed += 1
        record("pass", what, nil)
    }

    mutating func warn(_ what: String, fix: String) {
        warnings += 1
        record("warn", what, fix)
    }

    mutating func fail(_ what: String, fix: String) {
        failed += 1
        record("fail", what, fix)
    }

    mutating func record(_ result: String, _ what: String, _ fix: String?) {
        var c = ["result": result, "check": what]
        if let fix { c["fix"] = fix }
        checks.append(c)
        if !quietLines { Output.out("\(result.uppercased()) \(what)\(fix.map { " — fix: \($0)" } ?? "")") }
    }

    /// The hosts to check, each with the site whose files it must serve.
    func targets(urlHost: String, onlySite: String?) -> [(host: String, site: CompiledSite, note: String?)] {
        var out: [(String, CompiledSite, String?)] = []
        var seen = Set<String>()
        func add(_ host: String, _ site: CompiledSite, _ note: String?) {
            if seen.insert(host).inserted { out.append((host, site, note)) }
        }
        if let site = table.site(forHost: urlHost, fallbackToDefault: false), onlySite == nil || site.name == onlySite {
            add(urlHost, site, nil)
        }
        for site in table.sites where onlySite == nil || site.name == onlySite {
            for d in site.exactDomains { add(d, site, nil) }
            for w in site.wildcardSuffixes {
                // `*.example.com` is verified against the file on `example.com` itself.
                add(String(w.dropFirst()), site, "root of *\(w)")
            }
        }
        return out
    }

    mutating func run(urlHost: String, onlySite: String?) {
        let host = urlHost.lowercased()
        if scheme != "https" {
            fail("\(scheme)://\(host): Apple and Android fetch the association files over https only",
                 fix: "put TLS in front of Linkwell (Caddy, nginx or a load balancer; see docs/guide/deploy.md) and run doctor with https://")
        }
        if table.site(forHost: host, fallbackToDefault: false) == nil {
            warn("\(host) is not a domain of any site in the config; checking the config's domains instead",
                 fix: "add '\(host)' to a site's domains, or run doctor with one of them")
        }
        let targets = targets(urlHost: host, onlySite: onlySite)
        if targets.isEmpty {
            fail("the config lists no domains to check", fix: "add domains to the site")
            return
        }
        for t in targets {
            check(host: t.host, site: t.site, note: t.note)
        }
    }

    func url(host: String, path: String) -> String {
        "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path)"
    }

    // MARK: - One host

    mutating func check(host: String, site: CompiledSite, note: String?) {
        let label = note.map { "\(host) (\($0))" } ?? host
        var tlsReported = false
        var files: [(path: String, kind: FileKind, required: Bool)] = []
        if !site.iosApps.isEmpty {
            files.append(("/.well-known/apple-app-site-association", .aasa, true))
            files.append(("/apple-app-site-association", .aasa, false))
        }
        if !site.androidApps.isEmpty {
            files.append(("/.well-known/assetlinks.json", .assetlinks, true))
        }
        var served: [FileKind: [UInt8]] = [:]
        for file in files {
            let u = url(host: host, path: file.path)
            let fetched = Fetch.run(url: u, cacert: cacert, resolve: resolve, timeout: timeout, userAgent: file.kind == .aasa ? "AASA-Bot/1.0.0" : nil)
            if let problem = fetched.transportError {
                if file.required {
                    fail("\(label): \(u): \(problem.what)", fix: problem.fix)
                } else {
                    warn("\(label): \(u): \(problem.what)", fix: problem.fix)
                }
                if problem.isTLS || problem.isConnect { return }  // the other files would fail the same way
                continue
            }
            if !tlsReported, scheme == "https" {
                tlsReported = true
                pass("\(label): TLS certificate valid for \(host)\(cacert != nil ? " (trusted through --cacert)" : "")")
            }
            if file.required {
                if let body = checkFile(label: label, path: file.path, url: u, kind: file.kind, site: site, fetched: fetched) { served[file.kind] = body }
            } else {
                // The legacy root path: iOS 9–12 only; a warning, not a failure.
                if fetched.status == 200, fetched.mediaType == "application/json", fetched.body == validated.generated(site).aasa {
                    pass("\(label): \(file.path) (legacy iOS 9–12 path) serves the same file")
                } else {
                    warn("\(label): \(u) answers \(fetched.status)\(fetched.location.map { " → \($0)" } ?? "") \(fetched.contentType ?? "without Content-Type")",
                         fix: "proxy /apple-app-site-association to Linkwell too (old iOS versions read it)")
                }
            }
        }
        checkRoutes(label: label, host: host, site: site, served: served)
        if journeyChecked.insert(site.name).inserted { checkJourney(label: label, host: host, site: site) }
        checkAPKCertificates(label: label, site: site, served: served[.assetlinks])
        if !offline {
            if !site.iosApps.isEmpty { checkAppleCDN(label: label, host: host, site: site, origin: served[.aasa]) }
            if !site.androidApps.isEmpty { checkGoogle(label: label, host: host, site: site) }
        }
    }

    enum FileKind: Hashable { case aasa, assetlinks }

    /// Status, content type, encoding, syntax, size, keys and drift; returns the body when it is
    /// usable for the route checks.
    mutating func checkFile(label: String, path: String, url u: String, kind: FileKind, site: CompiledSite, fetched: Fetch) -> [UInt8]? {
        let name = path
        let platform = kind == .aasa ? "Apple's CDN" : "Android's verifier"
        switch fetched.status {
        case 200:
            pass("\(label): \(name) status 200 without redirect")
        case 301, 302, 303, 307, 308:
            fail("\(label): \(u) redirects (\(fetched.status) → \(fetched.location ?? "no Location")); \(platform) never follows redirects",
                 fix: "serve /.well-known/ directly on every domain: exempt it from the proxy's http→https and www/non-www redirects (see config/deploy/)")
            return nil
        case 404:
            fail("\(label): \(u) answers 404; the file is not reaching clients",
                 fix: "proxy /.well-known/ (and /apple-app-site-association) to Linkwell instead of serving it from the web root, and list '\(label.split(separator: " ")[0])' in the site's domains")
            return nil
        case 401, 403:
            fail("\(label): \(u) answers \(fetched.status); \(platform) sends no credentials and comes from unpublished addresses",
                 fix: "remove auth, IP/country and User-Agent filtering (WAF, bot protection) for /.well-known/")
            return nil
        default:
            fail("\(label): \(u) answers \(fetched.status); anything but 200 means no association",
                 fix: "check the proxy's upstream (is Linkwell running? 'curl http://127.0.0.1:9090/readyz') and its error log")
            return nil
        }
        if fetched.mediaType == "application/json" {
            pass("\(label): \(name) Content-Type \(fetched.contentType ?? "")")
        } else {
            fail("\(label): \(name) Content-Type is \(fetched.contentType.map { "'\($0)'" } ?? "missing"), not application/json",
                 fix: "let the proxy pass Linkwell's Content-Type through (no 'default_type'/'add_header Content-Type'/'header Content-Type' override for /.well-known/)")
        }
        if fetched.contentEncoding != nil {
            warn("\(label): \(name) sent Content-Encoding '\(fetched.contentEncoding!)' though curl asked for none",
                 fix: "do not compress /.well-known/ responses for clients that did not ask")
        }
        let body = fetched.body
        let content = ServedFileChecks.file(label: label, name: name, kind: kind == .aasa ? .aasa : .assetlinks, body: body, site: site)
        for c in content.checks { record(c) }
        guard content.usable else { return nil }
        let expected = kind == .aasa ? validated.generated(site).aasa : validated.generated(site).assetLinks
        if body == expected {
            pass("\(label): \(name) is byte-identical to what the local config generates")
        } else {
            let cached = fetched.header("age") != nil || fetched.headers.contains { ["x-cache", "cf-cache-status", "x-cache-status"].contains($0.name) && $0.value.lowercased().contains("hit") }
            fail("\(label): \(name) differs from what the local config generates (\(body.count) bytes served, \(expected.count) expected)\(cached ? "; a cache answered" : "")",
                 fix: cached
                    ? "purge the CDN/proxy cache for /.well-known/ and keep its TTL short; Apple's CDN itself re-fetches only within ~24 h"
                    : "reload Linkwell with this config (systemctl reload linkwell / kill -HUP) or run doctor with the deployed --config")
        }
        checkCaching(label: label, name: name, fetched: fetched)
        return body
    }

    mutating func checkCaching(label: String, name: String, fetched: Fetch) {
        guard let cc = fetched.header("cache-control")?.lowercased() else { return }
        var maxAge: Int? = nil
        for part in cc.split(separator: ",") {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0] == "max-age" || kv[0] == "s-maxage", let v = Int(kv[1]) { maxAge = max(maxAge ?? 0, v) }
        }
        if let maxAge, maxAge > 3600 {
            warn("\(label): \(name) Cache-Control '\(cc)' keeps a changed file stale for \(maxAge / 60) min in caches (Apple's CDN adds up to a day)",
                 fix: "keep max-age at an hour or less (server.associationCacheControl)")
        }
    }

    // MARK: - Routes through the served files

    mutating func checkRoutes(label: String, host: String, site: CompiledSite, served: [FileKind: [UInt8]]) {
        for c in ServedFileChecks.routes(label: label, host: host, site: site, table: table, aasa: served[.aasa], assetLinks: served[.assetlinks]) {
            record(c)
        }
    }

    /// Counts and prints a check made by ``ServedFileChecks``.
    mutating func record(_ c: ServedFileCheck) {
        switch c.result {
        case .pass: pass(c.what)
        case .warn: warn(c.what, fix: c.fix ?? "")
        case .fail: fail(c.what, fix: c.fix ?? "")
        }
    }
}

/// One GET through curl, redirects not followed.
struct Fetch {
    struct Problem {
        var what: String
        var fix: String
        var isTLS = false
        var isConnect = false
    }

    var status = 0
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var transportError: Problem?

    func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }
    var contentType: String? { header("content-type") }
    var mediaType: String? {
        contentType.map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }
    var location: String? { header("location") }
    var contentEncoding: String? { header("content-encoding").flatMap { $0.lowercased() == "identity" ? nil : $0 } }

    /// `method`, `json` and `bearer`: a call to the admin API (the token goes through a file,
    /// never on curl's command line).
    static func run(url: String, cacert: String?, resolve: [String], timeout: Int, userAgent: String?,
                    method: String = "GET", json: String? = nil, bearer: String? = nil) -> Fetch {
        var result = Fetch()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-doctor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            result.transportError = Problem(what: "cannot create a temporary directory: \(error)", fix: "check TMPDIR")
            return result
        }
        let headerFile = dir.appendingPathComponent("headers").path
        let bodyFile = dir.appendingPathComponent("body").path
        var args = ["-sS", "--max-redirs", "0", "--proto", "=https,http", "--max-time", String(timeout), "--connect-timeout", String(min(timeout, 10)),
                    "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}"]
        if let cacert { args += ["--cacert", cacert] }
        for r in resolve { args += ["--resolve", r] }
        if let userAgent { args += ["-A", userAgent] }
        if method != "GET" { args += ["-X", method] }
        if let json {
            let bodyIn = dir.appendingPathComponent("request").path
            _ = FileManager.default.createFile(atPath: bodyIn, contents: Data(json.utf8))
            args += ["-H", "Content-Type: application/json", "--data-binary", "@" + bodyIn]
        }
        if let bearer {
            let auth = dir.appendingPathComponent("authorization").path
            _ = FileManager.default.createFile(atPath: auth, contents: Data("Authorization: Bearer \(bearer)\n".utf8), attributes: [.posixPermissions: 0o600])
            args += ["-H", "@" + auth]
        }
        args += ["--", url]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.curlPath())
        process.arguments = args
        let errPipe = Pipe()
        let outPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = outPipe
        do {
            try process.run()
        } catch {
            result.transportError = Problem(what: "cannot run curl: \(error)", fix: "install curl (apt-get install curl)", isConnect: true)
            return result
        }
        let stderr = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = outPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let code = process.terminationStatus
        let message = stderr.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        switch code {
        case 0: break
        case 60, 51, 58, 77, 83:
            result.transportError = Problem(
                what: "certificate not valid: \(message)",
                fix: "serve a certificate from a public CA covering the host (Let's Encrypt via Caddy or certbot) with its full chain; Apple and Android reject self-signed and incomplete chains",
                isTLS: true)
            return result
        case 35, 53, 54, 59, 66, 80:
            result.transportError = Problem(what: "TLS handshake failed: \(message)", fix: "serve TLS 1.2+ with a certificate for this host on this port", isTLS: true)
            return result
        case 6:
            result.transportError = Problem(what: "host does not resolve: \(message)", fix: "add a DNS record pointing at the proxy (or test with --resolve host:port:addr)", isConnect: true)
            return result
        case 7, 28:
            result.transportError = Problem(what: "cannot connect: \(message)", fix: "is the proxy listening on this port and reachable from the internet? Apple's CDN needs port 443", isConnect: true)
            return result
        case 47:
            break  // too many redirects: curl stops at the first; the status below reports it
        default:
            result.transportError = Problem(what: "curl failed (exit \(code)): \(message)", fix: "run the same request with 'curl -v' to see what breaks")
            return result
        }
        let head = (try? String(contentsOfFile: headerFile, encoding: .isoLatin1)) ?? ""
        let blocks = head.components(separatedBy: "\r\n\r\n").filter { $0.hasPrefix("HTTP/") }
        if let last = blocks.last {
            let lines = last.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            if parts.count >= 2, let s = Int(parts[1]) { result.status = s }
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                result.headers.append((line[..<colon].trimmingCharacters(in: .whitespaces).lowercased(),
                                       line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        result.body = (FileManager.default.contents(atPath: bodyFile)).map { Array($0) } ?? []
        return result
    }

    static func curlPath() -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"] {
            let p = "\(dir)/curl"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return "/usr/bin/curl"
    }
}
