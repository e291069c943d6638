// The whole of `linkwell validate`: load, check the model, compile the route table, generate
// both files and check them (size, and that each platform claims exactly what the parser
// accepts). `serve` and reload run the same function, so nothing is served that would fail here.

import LinkRouting

public struct ValidationReport: Sendable {
    public var file: String
    public var diagnostics: [Diagnostic]
    /// The compiled table and generated files when there are no errors.
    public var validated: ValidatedConfig?
    /// Where a platform reads links differently from the parser and no file can change it: not
    /// warnings (there is nothing to fix), counted in `validate`'s summary and listed by `--limits`.
    public var limits: [PlatformLimit]

    public init(file: String, diagnostics: [Diagnostic], validated: ValidatedConfig?, limits: [PlatformLimit] = []) {
        self.file = file
        self.diagnostics = diagnostics
        self.validated = validated
        self.limits = limits
    }

    /// The compiled table when there are no errors.
    public var table: RouteTable? { validated?.table }
    public var errors: [Diagnostic] { diagnostics.errors }
    public var warnings: [Diagnostic] { diagnostics.warnings }
    public var isValid: Bool { errors.isEmpty && validated != nil }
}

public enum ConfigValidator {
    /// A check run on the decoded model beside the built-in ones; its findings are sorted and
    /// counted with the rest (LinkServer checks the `server` keys this way).
    public typealias Check = (LinkwellConfig) -> [Diagnostic]
    /// A check run on the compiled route table beside the built-in ones (LinkServer checks the
    /// landing pages the table makes this way).
    public typealias TableCheck = (RouteTable) -> [Diagnostic]

    /// - Parameter platformCheck: run the platform matchers over the generated files
    ///   (`linkwell validate`); `serve` skips it, since it can only produce warnings.
    /// `reusing`: the generated sites of the config a reload replaces; a site whose config is
    /// unchanged (same position, equal `SiteConfig`) is neither compiled nor generated again.
    public static func validate(
        path: String, platformCheck: Bool = true, reusing: [GeneratedSite] = [], extraChecks: Check = { _ in [] },
        tableChecks: TableCheck = { _ in [] }
    ) -> ValidationReport {
        let loaded: ConfigLoader.Loaded
        do {
            // A site whose text is unchanged is not decoded again (when every reused site has its text).
            let sources = reusing.compactMap(\.source)
            loaded = try ConfigLoader.load(path: path, reusing: sources.count == reusing.count ? sources : [])
        } catch {
            return ValidationReport(file: path, diagnostics: error.diagnostics, validated: nil)
        }
        return validate(loaded.config, file: path, loadWarnings: loaded.warnings, platformCheck: platformCheck, reusing: reusing,
                        extraChecks: extraChecks, tableChecks: tableChecks, sources: loaded.sites)
    }

    /// Checks the model, compiles the table and generates every site's files once; the report
    /// carries them (`validated`) when nothing is an error.
    public static func validate(
        _ config: LinkwellConfig, file: String, loadWarnings: [Diagnostic] = [], platformCheck: Bool = true,
        reusing: [GeneratedSite] = [], extraChecks: Check = { _ in [] }, tableChecks: TableCheck = { _ in [] },
        sources: [ConfigLoader.SiteSource] = []
    ) -> ValidationReport {
        // A site equal to the reused one at its position keeps its own findings (a reload that
        // leaves it alone does not check it again); the cross-site checks always run.
        // Each site's own checks read only that site: run on every core.
        let own = ParallelMap.map(config.sites.count) { s in
            guard s < reusing.count, reusing[s].compiled.index == s, reusing[s].compiled.config == config.sites[s] else {
                GenerationCounter.record(.siteChecks, index: s)
                return config.validateSite(config.sites[s], index: s)
            }
            return reusing[s].siteDiagnostics
        }
        let checked = config.validate(reusing: { own[$0] })
        var diagnostics = loadWarnings + (checked.diagnostics + extraChecks(config)).map { $0.withFile(file) }
        let table: RouteTable
        do {
            table = try RouteTable(config: config, reusing: reusing.map(\.compiled))
        } catch {
            diagnostics += error.diagnostics.map { $0.withFile(file) }
            return ValidationReport(file: file, diagnostics: diagnostics, validated: nil)
        }
        diagnostics += tableChecks(table).map { $0.withFile(file) }
        let validated = ValidatedConfig(file: file, table: table, reusing: reusing, siteDiagnostics: checked.perSite, sources: sources)
        // Shadowed routes and empty exclusions, per site: a reused site brings its own.
        diagnostics += validated.sites.flatMap(\.semanticDiagnostics).map { $0.withFile(file) }
        var limits: [PlatformLimit] = []
        for site in validated.sites {
            func oversized(_ bytes: [UInt8], _ what: String) {
                diagnostics.append(
                    Diagnostic(
                        .error, file: file, at: "sites[\(site.compiled.index)].routes", value: "\(bytes.count) bytes",
                        "the generated \(what)",
                        fix: "merge routes that share a prefix into one with a parameter, or split the apps across domains"))
            }
            if site.aasaIsOversized {
                oversized(site.aasa, "apple-app-site-association for site '\(site.name)' is \(site.aasa.count) bytes; iOS ignores files over \(AASAGenerator.sizeLimit) bytes")
            }
            if site.assetLinksIsOversized {
                oversized(
                    site.assetLinks,
                    "assetlinks.json for site '\(site.name)' is \(site.assetLinks.count) bytes; Android's verifier reads at most \(AssetLinksGenerator.sizeLimit) bytes (1 MiB) and fails on a longer body")
            }
            for (name, bytes) in [("apple-app-site-association", site.aasa), ("assetlinks.json", site.assetLinks)]
            where bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                diagnostics.append(
                    Diagnostic(
                        .error, file: file, at: "sites[\(site.compiled.index)]", value: "EF BB BF",
                        "the generated \(name) for site '\(site.name)' starts with a UTF-8 byte-order mark; Android's strict JSON reader does not skip it",
                        fix: "report this as a Linkwell bug: generated files never carry a BOM"))
            }
            // (An oversized file is already an error; comparing it would only take time.)
            if platformCheck && !site.aasaIsOversized && !site.assetLinksIsOversized {
                do {
                    for difference in try InvariantCheck.differences(site, table: table) {
                        if let limit = difference.platformLimit {
                            limits.append(limit)
                        } else {
                            diagnostics.append(difference.diagnostic(file: file))
                        }
                    }
                } catch {
                    diagnostics.append(error.diagnostic(file: file))
                }
            }
        }
        diagnostics = sorted(diagnostics)
        return ValidationReport(file: file, diagnostics: diagnostics, validated: diagnostics.errors.isEmpty ? validated : nil, limits: limits)
    }

    /// Deterministic order: errors first, then by config path.
    static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.sorted { a, b in
            if a.severity != b.severity { return a.severity == .error }
            return a.path < b.path
        }
    }
}
