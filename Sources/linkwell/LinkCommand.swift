// linkwell link — build a link for a route, the same way the apps' Swift code does.

import Foundation
import LinkRouting

enum LinkCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "link",
        overview: "Build the canonical link for a route from its parameters (values are percent-encoded).",
        abstract: "Build a link for a route from parameters.",
        arguments: [
            ArgumentSpec(name: "<route>", help: "The route's name (see 'linkwell routes')."),
            ArgumentSpec(name: "<name>=<value>", help: "A parameter; repeat for each.", arity: .repeating),
        ],
        options: [scheme.spec, schemeName.spec, site.spec, json.spec, CommonOptions.config.spec]
    )
    static let scheme = Flag("--scheme", help: "Build the custom-scheme link (the app's first scheme) instead of https.")
    static let schemeName = Option<String>("--scheme-name", "scheme", help: "Build the link with this custom scheme.")
    static let site = Option<String>("--site", "site", help: "The site, when several have a route of that name.")
    static let json = Flag("--json", help: "Print the link with its site, route, parameters and the apps that open it, as JSON.")

    static func run(_ args: Arguments) throws -> Int32 {
        guard let route = args.positional.first else { throw UsageError(message: "name the route: linkwell link <route> name=value…") }
        var params: [String: String] = [:]
        for p in args.positional.dropFirst() {
            guard let eq = p.firstIndex(of: "="), eq != p.startIndex else {
                throw UsageError(message: "'\(p)' is not name=value")
            }
            params[String(p[..<eq])] = String(p[p.index(after: eq)...])
        }
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        // The site: the one named, else the first with a route of that name.
        let site: CompiledSite
        if let name = args[Self.site] {
            guard let s = table.site(named: name) else {
                throw UsageError(message: "no site '\(name)'; the config has \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            site = s
        } else if let s = table.sites.first(where: { $0.entry(named: route) != nil }) {
            site = s
        } else {
            let all = table.sites.map { s in "\(s.name): \(s.routes.compactMap(\.route?.name).joined(separator: ", "))" }
            let names = table.sites.flatMap { $0.routes.compactMap(\.route?.name) }
            let hint = DidYouMean.closest(route, in: names).map { "did you mean '\($0)'? " } ?? ""
            Output.err("Error: no site has a route '\(route)'; \(hint)the routes are \(all.joined(separator: "; "))")
            return ExitCode.failure
        }
        if site.entry(named: route)?.isRoute != true {
            let names = site.routes.compactMap(\.route?.name)
            let hint = DidYouMean.closest(route, in: names).map { "did you mean '\($0)'? " } ?? ""
            Output.err("Error: site '\(site.name)' has no route '\(route)'; \(hint)its routes are \(names.map { "'\($0)'" }.joined(separator: ", "))")
            return ExitCode.failure
        }
        if let scheme = args[schemeName], site.schemes[scheme] == nil {
            let registered = site.schemes.keys.sorted()
            Output.err(
                "Error: no app of site '\(site.name)' registers the scheme '\(scheme)', so no app would open the link; "
                    + (registered.isEmpty ? "the site's apps register none (add 'schemes' to an app)" : "registered: \(registered.joined(separator: ", "))"))
            return ExitCode.failure
        }
        let form: LinkForm = args[schemeName].map { .customScheme($0) } ?? (args.has(scheme) ? .customScheme(nil) : .https)
        let link: String
        do {
            link = try table.build(site: site.name, route: route, parameters: params, form: form)
        } catch {
            Output.err("Error: \(error)")
            return ExitCode.failure
        }
        if args.has(json) {
            let match = table.resolve(link).match
            struct Built: Encodable {
                var url, site, route: String
                var parameters: [String: String]
                var ios, android: [String]
            }
            Output.json(Built(
                url: link, site: site.name, route: route, parameters: params,
                ios: match?.iosAppIDs ?? [], android: match?.androidPackages ?? []))
        } else {
            Output.out(link)
        }
        return 0
    }
}
