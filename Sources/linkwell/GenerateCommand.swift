// linkwell generate — the association files as static files, for S3, Pages or your own nginx.

import Association
import Foundation
import LinkRouting

enum GenerateCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "generate",
        overview: "Write the generated association files, for hosting them without the server.",
        usage: "linkwell generate aasa|assetlinks|all [--site <domain>] [--output <dir>] [--config <file>]",
        arguments: [("aasa|assetlinks|all", "Which file: apple-app-site-association, assetlinks.json, or both.")],
        options: [
            OptionSpec(name: "--site", valueName: "domain", help: "The site (its name or a domain); needed to print to stdout when the config has several."),
            OptionSpec(name: "--output", valueName: "dir", help: "Write <dir>/<domain>/.well-known/<file> for every exact domain instead of printing."),
            configOption,
        ],
        discussion: """
            Serve the files with status 200, Content-Type: application/json, and no redirect.
            The AASA also belongs at /apple-app-site-association for old iOS versions.
            """
    )

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1, ["aasa", "assetlinks", "all"].contains(args.positional[0]) else {
            throw UsageError(message: "say which file to generate: aasa, assetlinks or all")
        }
        let which = args.positional[0]
        let (validated, _) = try loadConfig(args)
        let table = validated.table
        var sites = table.sites
        if let name = args.value("--site") {
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
        guard let dir = args.value("--output") else {
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
                try fm.createDirectory(at: wellKnown, withIntermediateDirectories: true)
                for (name, bytes) in files(site) {
                    let target = wellKnown.appendingPathComponent(name)
                    try Data(bytes).write(to: target)
                    Output.out("wrote \(target.path) (\(bytes.count) bytes)")
                }
            }
        }
        return 0
    }
}
