// doctor, beyond the origin: Apple's CDN copy of the AASA (what devices actually read), Google's
// Digital Asset Links API (what Android's verifier sees), the APK's signing certificate, and the
// on-device commands for what no server can check.

import Foundation
import LinkRouting
import LinkwellJSON
import PlatformMatchers

extension Doctor {
    /// Apple's CDN: `LINKWELL_APPLE_CDN_URL` + DOMAIN (tests point it at a local stand-in).
    static var appleCDNBase: String {
        Output.environment["LINKWELL_APPLE_CDN_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://app-site-association.cdn-apple.com/a/v1/"
    }

    /// Google's statements:list endpoint: `LINKWELL_DIGITAL_ASSET_LINKS_URL` overrides it.
    static var digitalAssetLinksURL: String {
        Output.environment["LINKWELL_DIGITAL_ASSET_LINKS_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "https://digitalassetlinks.googleapis.com/v1/statements:list"
    }

    /// `14:6d:e9…` or `146DE9…` as `14:6D:E9:…`; nil when it is not 32 bytes of hex.
    static func normalizedFingerprint(_ raw: String) -> String? {
        switch LinkwellConfig.fingerprintProblem(raw.filter { $0 != " " }) {
        case nil: return raw.filter { $0 != " " }
        case let .fixable(corrected, _): return corrected
        case .invalid: return nil
        }
    }

    /// The origin a host is checked on: `https://host` (with a port other than 443).
    func origin(host: String) -> String {
        "https://\(host)\(port.flatMap { $0 == 443 ? nil : ":\($0)" } ?? "")"
    }

    /// One GET to a third-party service (timeout applies); a warning when it cannot be reached.
    mutating func ask(_ service: String, url u: String, label: String, host: String, report: inout ServiceReport) -> Fetch? {
        let fetched = Fetch.run(url: u, cacert: nil, resolve: [], timeout: timeout, userAgent: nil)
        report.host = host
        report.url = u
        if let problem = fetched.transportError {
            report.error = problem.what
            warn("\(label): could not ask \(service) (\(u)): \(problem.what)",
                 fix: "run doctor where the internet is reachable, or --offline to skip it; devices rely on what \(service) says, not on your server alone")
            return nil
        }
        report.status = fetched.status
        return fetched
    }

    // MARK: - Apple's CDN

    mutating func checkAppleCDN(label: String, host: String, site: CompiledSite, origin served: [UInt8]?) {
        var report = ServiceReport()
        defer { cdnReports.append(report) }
        guard let fetched = ask("Apple's CDN", url: Self.appleCDNBase + host, label: label, host: host, report: &report) else { return }
        let reason = fetched.header("apple-failure-reason")
        let details = fetched.header("apple-failure-details")
        report.appleFailureReason = reason
        report.appleFailureDetails = details
        report.appleFrom = fetched.header("apple-from")
        switch fetched.status {
        case 200:
            guard let served else {
                warn("\(label): Apple's CDN has a copy (\(fetched.body.count) bytes) but the origin's file could not be compared",
                     fix: "fix the origin's /.well-known/apple-app-site-association first (see above)")
                return
            }
            if fetched.body == served {
                report.identical = true
                pass("\(label): Apple's CDN copy is byte-identical to the origin's file (what devices read matches what you serve)")
            } else {
                report.identical = false
                let listed = (try? JSONValue.parse(fetched.body)).map { json in
                    site.iosApps.filter { app in (json["applinks"]?["details"]?.arrayValue ?? []).contains { d in
                        (d["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []).contains(app.appID) || d["appID"]?.stringValue == app.appID
                    } }.map(\.appID)
                } ?? []
                let missing = site.iosApps.map(\.appID).filter { !listed.contains($0) }
                warn("\(label): Apple's CDN serves an older copy (\(fetched.body.count) bytes; the origin serves \(served.count))"
                        + (missing.isEmpty ? "" : "; it does not list \(missing.joined(separator: ", ")) yet")
                        + "; devices use the CDN's copy, so changed routes do not open the app until it refreshes",
                     fix: "wait: the CDN re-fetches within about a day; to test now, use applinks:\(host)?mode=developer (Developer Mode on the device) to fetch from your server directly")
            }
        case 404 where reason != nil:
            fail("\(label): Apple's CDN could not fetch \(fetched.header("apple-from") ?? "the file"): \(reason!)\(details.map { " (details: \($0))" } ?? "")",
                 fix: Self.explainAppleFailure(reason: reason!, details: details))
        case 404:
            warn("\(label): Apple's CDN has no copy of \(host) yet (404 without Apple-Failure-Reason): it has not ingested the domain",
                 fix: "the CDN fetches a domain after an app with applinks:\(host) is installed somewhere, usually within a day; install the app on a device, or use applinks:\(host)?mode=developer while testing")
        default:
            warn("\(label): Apple's CDN answered \(fetched.status) for \(host)",
                 fix: "retry later; if it persists, check the origin file and https://developer.apple.com/system-status/")
        }
    }

    /// What an `Apple-Failure-Reason` means for the operator.
    static func explainAppleFailure(reason: String, details: String?) -> String {
        let text = (reason + " " + (details ?? "")).lowercased()
        if text.contains("403") || text.contains("401") || text.contains("forbidden") {
            return "your server refused Apple's bot (AASA-Bot/1.0.0, from Apple's addresses): allow it through the WAF/bot protection/IP or country rules for /.well-known/, then wait for the CDN to retry (hours)"
        }
        if text.contains("redirect") || text.contains(" 30") {
            return "the file is behind a redirect, which Apple's CDN does not follow: serve it directly on this exact host (see docs/guide/deploy.md)"
        }
        if text.contains("404") || text.contains("not found") {
            return "your server answered 404 to Apple's bot: proxy /.well-known/apple-app-site-association to Linkwell on this host"
        }
        if text.contains("timeout") || text.contains("timed out") || text.contains("connect") {
            return "Apple's CDN could not reach your server on port 443 (firewall, DNS, IPv4/IPv6 reachability): make it reachable from the internet"
        }
        if text.contains("certificate") || text.contains("ssl") || text.contains("tls") || text.contains("trust") {
            return "Apple's CDN rejected the TLS certificate: serve a publicly trusted certificate with its full chain"
        }
        if text.contains("json") || text.contains("content-type") || text.contains("parse") {
            return "Apple's CDN could not read the file: serve Linkwell's file unchanged with Content-Type: application/json"
        }
        return "fix what the reason names on the origin, then wait for the CDN to retry (it caches failures for a while; Cache-Control on this answer says how long)"
    }

    // MARK: - Google's Digital Asset Links API

    mutating func checkGoogle(label: String, host: String, site: CompiledSite) {
        let source = origin(host: host)
        let query = "source.web.site=\(PercentEncoding.encodeComponent(source))&relation=delegate_permission/common.handle_all_urls"
        var report = ServiceReport()
        defer { googleReports.append(report) }
        let u = Self.digitalAssetLinksURL + "?" + query
        guard let fetched = ask("Google's Digital Asset Links API", url: u, label: label, host: host, report: &report) else { return }
        guard let json = try? JSONValue.parse(fetched.body) else {
            warn("\(label): Google's Digital Asset Links API answered \(fetched.status) with no JSON", fix: "retry later")
            return
        }
        if fetched.status != 200 {
            let message = json["error"]?["message"]?.stringValue ?? "no message"
            report.error = message
            warn("\(label): Google's Digital Asset Links API answered \(fetched.status): \(message)",
                 fix: "check the domain is public and spelled as in the config; retry later")
            return
        }
        // {"statements":[{"source":{"web":{"site":"https://example.com."}},"relation":"…",
        //   "target":{"androidApp":{"packageName":"…","certificate":{"sha256Fingerprint":"…"}}}}],
        //  "maxAge":"599.99s","debugString":"…","errorCode":["ERROR_CODE_…"]}
        var seen: [(package: String, fingerprint: String)] = []
        for statement in json["statements"]?.arrayValue ?? [] {
            guard let app = statement["target"]?["androidApp"], let package = app["packageName"]?.stringValue,
                let fp = app["certificate"]?["sha256Fingerprint"]?.stringValue
            else { continue }
            seen.append((package, fp.uppercased()))
        }
        report.statements = seen.map { ServiceReport.Statement(package: $0.package, sha256Fingerprint: $0.fingerprint) }
        let errors = json["errorCode"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if !errors.isEmpty {
            report.errorCode = errors
            let debug = json["debugString"]?.stringValue.map { $0.split(separator: "\n").first.map(String.init) ?? $0 }
            fail("\(label): Google could not read \(source)/.well-known/assetlinks.json: \(errors.joined(separator: ", "))\(debug.map { " — \($0)" } ?? "")",
                 fix: errors.map(Self.explainGoogleError).joined(separator: "; "))
        }
        let summary = seen.isEmpty ? "no package/fingerprint pairs" : seen.map { "\($0.package) \($0.fingerprint)" }.joined(separator: ", ")
        for app in site.androidApps {
            let configured = Set(app.fingerprints.map { $0.uppercased() })
            let google = Set(seen.filter { $0.package == app.package }.map(\.fingerprint))
            if !configured.isDisjoint(with: google) {
                pass("\(label): Google sees \(app.package) with \(configured.intersection(google).sorted().joined(separator: ", "))")
                if !google.subtracting(configured).isEmpty {
                    warn("\(label): Google also sees \(app.package) with \(google.subtracting(configured).sorted().joined(separator: ", ")), which the config does not list",
                         fix: "the served file is older than the config, or Google's cache (maxAge \(json["maxAge"]?.stringValue ?? "?")) has not expired; reload Linkwell and re-check later")
                }
            } else if errors.isEmpty {
                fail("\(label): Google does not see \(app.package) with the configured fingerprint(s); it sees \(summary)",
                     fix: google.isEmpty
                        ? "serve the assetlinks.json this config generates on \(host) (Google reads it at \(source)/.well-known/assetlinks.json); its answer is cached for maxAge \(json["maxAge"]?.stringValue ?? "?")"
                        : "Google sees other fingerprints for \(app.package): with Play App Signing list the app-signing key's SHA-256 (Play Console → App integrity), not the upload key's")
            }
        }
    }

    /// What a Digital Asset Links `errorCode` means for the operator.
    static func explainGoogleError(_ code: String) -> String {
        switch code {
        case "ERROR_CODE_FETCH_ERROR": return "Google could not fetch the file (DNS, firewall, 404 or 5xx): make /.well-known/assetlinks.json answer 200 on port 443"
        case "ERROR_CODE_FAILED_SSL_VALIDATION": return "the TLS certificate is not trusted: serve a public CA's certificate with the full chain"
        case "ERROR_CODE_REDIRECT": return "the file is behind a redirect, which Android's verifier does not follow: serve it directly on this host"
        case "ERROR_CODE_TOO_LARGE": return "the file is too large: fewer statements or apps per file"
        case "ERROR_CODE_MALFORMED_HTTP_RESPONSE": return "the HTTP response is malformed: check the proxy in front of Linkwell"
        case "ERROR_CODE_WRONG_CONTENT_TYPE": return "Content-Type is not application/json: let the proxy pass Linkwell's through"
        case "ERROR_CODE_MALFORMED_CONTENT": return "the file is not valid statement JSON: serve 'linkwell generate assetlinks' unchanged"
        case "ERROR_CODE_SECURE_ASSET_INCLUDES_INSECURE": return "an https site's statements point at http assets: use https everywhere"
        case "ERROR_CODE_FETCH_BUDGET_EXHAUSTED": return "Google's fetch budget for the site ran out: retry later"
        case "ERROR_CODE_INVALID_QUERY": return "the query was rejected: check the domain"
        default: return "\(code): see the Digital Asset Links API reference"
        }
    }

    // MARK: - The APK's certificate

    mutating func checkAPKCertificates(label: String, site: CompiledSite, served: [UInt8]?) {
        guard !apkCerts.isEmpty, !site.androidApps.isEmpty else { return }
        let file = served.flatMap { try? AssetLinksFile.parse($0).get() }
        for fp in apkCerts {
            for app in site.androidApps {
                let inConfig = app.fingerprints.map { $0.uppercased() }.contains(fp)
                let inFile = file?.isVerified(package: app.package, certificates: [fp]) ?? false
                if inFile {
                    pass("\(label): --apk-cert \(fp) is in the served assetlinks.json for \(app.package)")
                } else {
                    fail("\(label): --apk-cert \(fp) is not in the served assetlinks.json for \(app.package)\(inConfig ? " (the config lists it: deploy the config)" : "")",
                         fix: inConfig
                            ? "reload Linkwell with this config, then re-run doctor"
                            : "an APK from Google Play is signed with Play's app-signing key, not your upload key: if \(fp) is your upload or debug key, add Play's app-signing SHA-256 (Play Console → Test and release → Setup → App integrity → App signing key certificate) to fingerprints; for local builds add the debug key's (./gradlew signingReport) as well")
                }
            }
        }
    }

    // MARK: - On the device

    func deviceCommands(onlySite: String?) -> [(platform: String, command: String, why: String)] {
        var out: [(String, String, String)] = []
        for site in table.sites where onlySite == nil || site.name == onlySite {
            for app in site.androidApps {
                out.append(("Android", "adb shell pm get-app-links \(app.package)", "which domains Android verified for the app"))
                out.append(("Android", "adb shell pm verify-app-links --re-verify \(app.package)", "verify again after a fix"))
            }
            if !site.iosApps.isEmpty {
                for domain in site.exactDomains {
                    out.append(("iOS", "applinks:\(domain)?mode=developer", "in the entitlement with Developer Mode on: fetch from your server, not Apple's CDN"))
                }
            }
        }
        return out
    }
}
