// linkwell validate — every check, before anything is served.

import Association
import Foundation
import LinkRouting
import LinkServer

/// `validate --json`: the findings and the platform limits.
struct ValidationResult: Encodable {
    struct Finding: Encodable {
        var severity, path, message: String
        var value, fix: String?
    }

    struct Limit: Encodable {
        var path, platform, limit, summary, message, example, note: String
        var routes: [String]
        var sampleLinks: Int
    }

    var file: String
    var valid: Bool
    var diagnostics: [Finding]
    var limits: [Limit]

    init(file: String, report: ValidationReport) {
        self.file = file
        valid = report.errors.isEmpty
        diagnostics = report.diagnostics.map { d in Finding(severity: d.severity.rawValue, path: d.path, message: d.message, value: d.value, fix: d.fix) }
        limits = report.limits.map { l in
            Limit(
                path: "sites[\(l.site)].routes", platform: l.platform, limit: l.limit.rawValue, summary: l.limit.summary,
                message: l.limit.explanation, example: l.example, note: l.limit.fix, routes: l.routes, sampleLinks: l.count)
        }
    }
}

enum ValidateCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "validate",
        overview: "Check a config: app IDs, fingerprints, routes, shadowing, file size, and that iOS and Android claim exactly what the parser accepts.",
        abstract: "Check a config before anything is served.",
        options: [CommonOptions.config.spec, websiteUpstream.spec, websitePaths.spec, limits.spec, json.spec],
        discussion: "Warnings are things to fix in the config. Platform limits are not warnings: they are links (usually malformed ones) that a platform reads differently from the parser, which no association file can change; the summary line counts them and '--limits' lists each with a link that shows it. Exit status: 0 when there are no errors (warnings allowed), 1 on errors, 64 on usage errors."
    )

    static let websiteUpstream = Option<String>(
        "--website-upstream", "[site=]url",
        help: "The website the proxy sends unclaimed paths to (as for 'generate nginx'); silences the website-loop warning.", repeatable: true)
    static let websitePaths = Option<Path>(
        "--website-paths", "file",
        help: "The website's own paths, one a line (a path or a URL; a sitemap's <loc> list will do): warn about a stored short code that would shadow one behind the proxy (needs --website-upstream).")
    static let limits = Flag(
        "--limits",
        help: "Also list the platform limits: links that iOS or Android reads differently from the parser whatever the generated files say (the summary line only counts them).")
    static let json = Flag("--json", help: "Print the findings as JSON (the platform limits included).")

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "unexpected argument '\(args.positional[0])'") }
        let path = args.configPath
        var report = LoadedConfig.load(path: path, platformCheck: true).1
        if let table = report.table {
            let options = ProxyConfigOptions(websiteUpstreams: try GenerateCommand.websiteUpstreams(args.all(websiteUpstream), table: table))
            // One warning per site's website: the landing checks may already have one there.
            let warned = Set(report.diagnostics.filter { $0.severity == .warning }.map(\.path))
            report.diagnostics += ProxyConfig.websiteLoopWarnings(table, options: options).filter { !warned.contains($0.path) }.map { $0.withFile(path) }
            report.diagnostics += ValidateLinks.diagnostics(table: table, configPath: path).map { $0.withFile(path) }
            if let file = args[websitePaths]?.path {
                guard !options.websiteUpstreams.isEmpty else {
                    throw UsageError(message: "--website-paths needs --website-upstream: only a site that shares its domain with a website can shadow its pages")
                }
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw IOFailure(description: "cannot read --website-paths \(file): no such file, or not readable")
                }
                let paths = ValidateLinks.websitePaths(String(decoding: data, as: UTF8.self))
                report.diagnostics += ValidateLinks.websiteShadows(table: table, configPath: path, websites: options, paths: paths).map { $0.withFile(path) }
            }
        }
        if args.has(json) {
            Output.json(ValidationResult(file: path, report: report))
            return report.errors.isEmpty ? 0 : 1
        }
        for d in report.diagnostics {
            let line = d.file == nil ? d.withFile(path).description : d.description
            // Diagnostics on stderr (warnings dropped with --quiet), the verdict on stdout.
            if d.severity == .error { Output.err(line) } else { Output.note(line) }
        }
        if args.has(limits) {
            for limit in report.limits { Output.out("\(path): \(limit)") }
        }
        if report.errors.isEmpty, let table = report.table {
            let routes = table.sites.reduce(0) { $0 + $1.routes.count }
            var summary = "\(path): OK — \(table.sites.count) site(s), \(routes) route(s), \(report.warnings.count) warning(s)"
            if !report.limits.isEmpty {
                let count = report.limits.count
                summary += ", \(count) platform limit\(count == 1 ? "" : "s")" + (args.has(limits) ? " (listed above)" : ": see 'linkwell validate --limits'")
            }
            Output.out(summary)
            return 0
        }
        Output.err("\(path): \(report.errors.count) error(s), \(report.warnings.count) warning(s)")
        return 1
    }
}
