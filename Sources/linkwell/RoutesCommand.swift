// linkwell routes — the route table as a table.

import Foundation
import LinkRouting

/// One site's routes and exclusions as `routes --json` prints them.
struct SiteRoutes: Encodable {
    struct Entry: Encodable {
        var index: Int
        var path: String
        var ios: [String]
        var android: [String]
        var route: String?
        var requiredQuery: [String]?
        var optionalQuery: [String]?
        var exclude: Bool?
    }

    var site: String
    var domains: [String]
    var entries: [Entry]

    init(_ site: CompiledSite) {
        self.site = site.name
        domains = site.config.domains
        entries = site.entries.map { e in
            var entry = Entry(index: e.index, path: e.pattern.source, ios: e.iosAppIDs, android: e.androidPackages)
            if let r = e.route {
                entry.route = r.name
                entry.requiredQuery = e.requiredQuery
                entry.optionalQuery = e.optionalQuery
            } else {
                entry.exclude = true
            }
            return entry
        }
    }
}

enum RoutesCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "routes",
        overview: "List every site's routes and exclusions in priority order.",
        abstract: "List the routes of every site.",
        options: [CommonOptions.config.spec, CommonOptions.json.spec]
    )

    static func run(_ args: Arguments) throws -> Int32 {
        let (validated, _) = try args.loadConfig()
        let table = validated.table
        if args.has(CommonOptions.json) {
            Output.json(table.sites.map(SiteRoutes.init))
            return 0
        }
        var rows: [[String]] = [["SITE", "ROUTE", "PATH", "QUERY", "APPS"]]
        for site in table.sites {
            for e in site.entries {
                let query = e.requiredQuery.map { "\($0)=…" } + e.optionalQuery.map { "[\($0)=…]" }
                let apps = (e.iosAppIDs.map { "ios:\($0)" } + e.androidPackages.map { "android:\($0)" }).joined(separator: " ")
                rows.append([site.name, e.route?.name ?? "(exclude)", e.pattern.source, query.joined(separator: "&"), apps])
            }
        }
        let widths = (0..<5).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            Output.out(row.enumerated().map { $0.offset == 4 ? $0.element : $0.element.padding(toLength: widths[$0.offset] + 2, withPad: " ", startingAt: 0) }.joined())
        }
        return 0
    }
}
