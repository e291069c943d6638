// linkwell verify — the platform matchers on any association file: a Linux stand-in for
// Apple's macOS-only `swcutil verify`, and AOSP's statement parser for assetlinks.json.

import Foundation
import LinkRouting
import LinkwellJSON
import PlatformMatchers

/// `verify --aasa … --json`.
struct AASAReport: Encodable {
    struct App: Encodable {
        var appID, verdict: String
        var detailsIndex, componentIndex: Int
        var rule: String
    }

    struct Result: Encodable {
        var url: String
        var apps: [App]
    }

    var file: String
    var valid: Bool
    var error: String?
    var warnings: [String]?
    var results: [Result]?
}

/// `verify --assetlinks … --json`.
struct AssetLinksReport: Encodable {
    struct Result: Encodable {
        var url: String
        var handled: Bool
        var component: Int?
        var rule: String?
        var exception: String?
        var reason: String?
    }

    var file, parser, parse: String
    var verified: Bool
    var reason: String?
    var results: [Result]?
}

enum VerifyCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "verify",
        overview: "Say what iOS or Android would do with an association file (yours or anyone's) for some URLs.",
        abstract: "Run the Apple or Android matcher on any association file (swcutil stand-in).",
        arguments: [ArgumentSpec(name: "<url>", help: "URLs exactly as a browser would send them.", arity: .repeating)],
        options: [aasa.spec, assetlinks.spec, package.spec, cert.spec, host.spec, android15.spec, CommonOptions.json.spec],
        discussion: """
            Examples:
              linkwell verify --aasa <file> <url> ... [--json]
              linkwell verify --assetlinks <file> --package <name> [--cert <fingerprint> ...] [--host <host>] [<url> ...] [--android15] [--json]
            Exit status: 0 when the file parses, 1 when the platform would reject it, 64 on usage errors.
            """
    )
    static let aasa = Option<Path>("--aasa", "file", help: "An apple-app-site-association file: prints match, block or nothing per app ID.")
    static let assetlinks = Option<Path>(
        "--assetlinks", "file", help: "An assetlinks.json file: parse result, verification, and per URL whether the app handles it.")
    static let package = Option<String>("--package", "name", help: "With --assetlinks: the Android package to verify.")
    static let cert = Option<String>("--cert", "fingerprint", help: "With --assetlinks: the app's SHA-256 signing fingerprint.", repeatable: true)
    static let host = Option<String>(
        "--host", "host", help: "With --assetlinks: the host the file is served on (like swcutil's -d); a URL on another host is not handled.")
    static let android15 = Flag("--android15", help: "Use Android 15's dynamic-rule parser instead of Android 16's.")

    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            Output.err("Error: cannot read '\(path)': \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
            throw ExitStatus(code: 1)
        }
        return Array(data)
    }

    static func run(_ args: Arguments) throws -> Int32 {
        switch (args[aasa]?.path, args[assetlinks]?.path) {
        case let (aasa?, nil): return try runAASA(path: aasa, args)
        case let (nil, links?): return try runAssetLinks(path: links, args)
        default: throw UsageError(message: "give exactly one of --aasa FILE or --assetlinks FILE")
        }
    }

    static func runAASA(path: String, _ args: Arguments) throws -> Int32 {
        guard !args.positional.isEmpty else { throw UsageError(message: "give at least one URL to check") }
        let bytes = try read(path)
        let matcher: AppleMatcher
        do {
            matcher = try AppleMatcher(aasa: try JSONValue.parse(bytes))
        } catch {
            if args.has(CommonOptions.json) {
                Output.json(AASAReport(file: path, valid: false, error: "\(error)"))
            } else {
                Output.err("Error: \(path): iOS would not use this file: \(error)")
            }
            return 1
        }
        var results: [AASAReport.Result] = []
        var warnings = matcher.warnings
        for id in matcher.appIDs {
            let team = id.prefix { $0 != "." }
            if team.count != 10 || !team.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
                warnings.append("app ID '\(id)': the team ID '\(team)' is not 10 characters of A–Z and 0–9, so no real app can match it")
            }
        }
        if !args.has(CommonOptions.json) { for w in warnings { Output.note("warning: \(w)") } }
        for url in args.positional {
            let decisions = matcher.decisions(for: url)
            if args.has(CommonOptions.json) {
                results.append(AASAReport.Result(url: url, apps: decisions.map {
                    AASAReport.App(appID: $0.appID, verdict: $0.verdict.rawValue, detailsIndex: $0.detailsIndex, componentIndex: $0.componentIndex, rule: $0.rule)
                }))
            } else {
                Output.out(url)
                if decisions.isEmpty { Output.out("  (no app claims it)") }
                for d in decisions {
                    Output.out("  \(d.appID): \(d.verdict.rawValue)  — details[\(d.detailsIndex)] component #\(d.componentIndex) \(d.rule)")
                }
            }
        }
        if args.has(CommonOptions.json) { Output.json(AASAReport(file: path, valid: true, warnings: warnings, results: results)) }
        return 0
    }

    static func runAssetLinks(path: String, _ args: Arguments) throws -> Int32 {
        guard let package = args[package] else { throw UsageError(message: "--assetlinks needs --package NAME") }
        let certs = args.all(cert)
        let bytes = try read(path)
        let generation: AndroidParserGeneration = args.has(android15) ? .android15 : .android16
        let json = args.has(CommonOptions.json)
        switch AssetLinksFile.parse(bytes, generation: generation) {
        case let .failure(rejection):
            if json {
                Output.json(AssetLinksReport(file: path, parser: generation.rawValue, parse: "rejected", verified: false, reason: rejection.description))
            } else {
                Output.out("\(path): REJECTED — Android ignores the whole file: \(rejection)")
            }
            return 1
        case let .success(file):
            let verified = file.isVerified(package: package, certificates: certs)
            var results: [AssetLinksReport.Result] = []
            if !json {
                Output.out("\(path): parses (\(file.statements.count) statement(s))")
                for w in file.warnings { Output.note("warning: \(w)") }
                Output.out("\(package)\(certs.isEmpty ? "" : " with \(certs.count) certificate(s)"): \(verified ? "verified" : "NOT verified")")
                if !verified && certs.isEmpty { Output.out("  (give the app's signing fingerprint with --cert to verify it)") }
            }
            let host = args[host].map { $0.lowercased() }
            for url in args.positional {
                if let host, let urlHost = URLParts(url)?.host, urlHost != host {
                    // Android checks a link against the file of the link's own host only.
                    let why = "the URL's host '\(urlHost)' is not '\(host)', where this file is served"
                    if json {
                        results.append(AssetLinksReport.Result(url: url, handled: false, reason: why))
                    } else {
                        Output.out("  \(url): not handled — \(why)")
                    }
                    continue
                }
                let d = file.handles(url: url, package: package, certificates: certs)
                if json {
                    results.append(AssetLinksReport.Result(
                        url: url, handled: d?.handled ?? false, component: d?.ruleIndex, rule: d?.rule, exception: d?.exception))
                } else if let d {
                    var why = d.rule.map { " — component #\(d.ruleIndex ?? 0) \($0)" } ?? (d.handled ? " — no dynamic rules" : " — no component matches")
                    if let exception = d.exception { why += ", whose pattern Android's PatternMatcher rejects: it throws (\(exception))" }
                    Output.out("  \(url): \(d.handled ? "handled" : "not handled")\(why)")
                } else {
                    Output.out("  \(url): not handled (package not verified)")
                }
            }
            if json { Output.json(AssetLinksReport(file: path, parser: generation.rawValue, parse: "ok", verified: verified, results: results)) }
            return 0
        }
    }
}
