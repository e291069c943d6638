// The whole of `linkwell validate`: load, check the model, compile the route table, generate
// both files and check them (size, and that each platform claims exactly what the parser
// accepts). `serve` and reload run the same function, so nothing is served that would fail here.

import LinkRouting

public struct ValidationReport: Sendable {
    public var file: String
    public var diagnostics: [Diagnostic]
    /// The compiled table when there are no errors.
    public var table: RouteTable?

    public var errors: [Diagnostic] { diagnostics.errors }
    public var warnings: [Diagnostic] { diagnostics.warnings }
    public var isValid: Bool { errors.isEmpty && table != nil }
}

public enum ConfigValidator {
    /// - Parameter platformCheck: run the platform matchers over the generated files
    ///   (`linkwell validate`); `serve` skips it, since it can only produce warnings.
    public static func validate(path: String, platformCheck: Bool = true) -> ValidationReport {
        let loaded: (config: LinkwellConfig, warnings: [Diagnostic])
        do {
            loaded = try ConfigLoader.load(path: path)
        } catch {
            return ValidationReport(file: path, diagnostics: error.diagnostics, table: nil)
        }
        return validate(loaded.config, file: path, loadWarnings: loaded.warnings, platformCheck: platformCheck)
    }

    public static func validate(_ config: LinkwellConfig, file: String, loadWarnings: [Diagnostic] = [], platformCheck: Bool = true) -> ValidationReport {
        var diagnostics = loadWarnings + config.validate().map { $0.withFile(file) }
        let table: RouteTable
        do {
            table = try RouteTable(config: config)
        } catch {
            diagnostics += error.diagnostics.map { $0.withFile(file) }
            return ValidationReport(file: file, diagnostics: diagnostics, table: nil)
        }
        diagnostics += table.semanticDiagnostics().map { $0.withFile(file) }
        for site in table.sites {
            let size = AASAGenerator.bytes(for: site).count
            if size > AASAGenerator.sizeLimit {
                diagnostics.append(
                    Diagnostic(
                        .error, file: file, at: "sites[\(site.index)].routes", value: "\(size) bytes",
                        "the generated apple-app-site-association for site '\(site.name)' is \(size) bytes; iOS ignores files over \(AASAGenerator.sizeLimit) bytes",
                        fix: "merge routes that share a prefix into one with a parameter, or split the apps across domains"))
            }
            // (An oversized file is already an error; comparing it would only take time.)
            if platformCheck && size <= AASAGenerator.sizeLimit { diagnostics += InvariantCheck.differences(site: site, table: table).map { $0.diagnostic(file: file) } }
        }
        // Deterministic order: errors first, then by config path.
        diagnostics.sort { a, b in
            if a.severity != b.severity { return a.severity == .error }
            return a.path < b.path
        }
        return ValidationReport(file: file, diagnostics: diagnostics, table: diagnostics.errors.isEmpty ? table : nil)
    }
}
