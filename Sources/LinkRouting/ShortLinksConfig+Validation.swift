// Checks of a site's `shortLinks` block: the prefix is a plain path and the allowed hosts are hosts.

extension LinkwellConfig {
    func validateShortLinks(_ config: ShortLinksConfig, at: String, into out: inout [Diagnostic]) {
        if let prefix = config.prefix, !prefix.isEmpty, let problem = Self.prefixProblem(prefix) {
            out.append(Diagnostic(.error, at: "\(at).prefix", value: prefix, "short-link prefix '\(prefix)' \(problem)",
                                  fix: "write a path that starts and ends with '/' and uses only letters, digits, '-' and '_', e.g. \"/l/\""))
        }
        for (i, host) in (config.allowedHosts ?? []).enumerated() {
            if let problem = Self.domainProblem(host) {
                out.append(Diagnostic(.error, at: "\(at).allowedHosts[\(i)]", value: host, "allowed host '\(host)' \(problem.0)", fix: problem.1))
            }
        }
        if config.openApp == true, config.linkDomain != true, config.effectivePrefix == "/" {
            out.append(Diagnostic(
                .error, at: "\(at).openApp", value: "true",
                "short links at the root of this domain cannot open the app: the association files would have to claim every path ('/*'), and the website's pages on this domain would open in the app too",
                fix: "put the codes under a prefix (\"prefix\": \"/l/\": only '/l/*' is claimed), or, when no website shares this domain, say so with \"linkDomain\": true"))
        }
    }

    /// Why `prefix` cannot be a short-link prefix, or nil.
    public static func prefixProblem(_ prefix: String) -> String? {
        guard prefix.hasPrefix("/"), prefix.hasSuffix("/") else { return "does not start and end with '/'" }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropLast()
        if segments.contains(where: \.isEmpty) { return "has an empty segment ('//')" }
        for segment in segments {
            if segment == "." || segment == ".." { return "has a '.' or '..' segment" }
            if !segment.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                return "has characters other than letters, digits, '-' and '_' in '\(segment)'"
            }
        }
        return nil
    }
}
