// linkwell link — build a link for a route, the same way the apps' Swift code does.

import Foundation
import LinkRouting

enum LinkCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "link",
        overview: "Build the canonical link for a route from its parameters (values are percent-encoded).",
        usage: "linkwell link <route> [<name>=<value> ...] [--scheme] [--scheme-name <scheme>] [--site <site>] [--config <file>]",
        arguments: [("<route>", "The route's name (see 'linkwell routes')."), ("<name>=<value>", "A parameter; repeat for each.")],
        options: [
            OptionSpec(name: "--scheme", valueName: nil, help: "Build the custom-scheme link (the app's first scheme) instead of https."),
            OptionSpec(name: "--scheme-name", valueName: "scheme", help: "Build the link with this custom scheme."),
            OptionSpec(name: "--site", valueName: "site", help: "The site, when several have a route of that name."),
            configOption,
        ]
    )

    static func run(_ args: Arguments) throws -> Int32 {
        guard let route = args.positional.first else { throw UsageError(message: "name the route: linkwell link <route> name=value…") }
        var params: [String: String] = [:]
        for p in args.positional.dropFirst() {
            guard let eq = p.firstIndex(of: "="), eq != p.startIndex else {
                throw UsageError(message: "'\(p)' is not name=value")
            }
            params[String(p[..<eq])] = String(p[p.index(after: eq)...])
        }
        let (validated, _) = try loadConfig(args)
        let table = validated.table
        let form: LinkForm = args.value("--scheme-name").map { .customScheme($0) } ?? (args.has("--scheme") ? .customScheme(nil) : .https)
        do {
            Output.out(try table.build(site: args.value("--site"), route: route, parameters: params, form: form))
            return 0
        } catch {
            Output.err("Error: \(error)")
            return 1
        }
    }
}
