// linkwell links — short links in the config's SQLite store (storage.sqlite, default linkwell.db
// beside the config): add, list, show, disable, enable, delete, import, export.

import Association
import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON

enum LinksCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "links",
        overview: "Manage short links (https://<domain>/<code>) in the config's link database.",
        usage: "linkwell links add|list|show|disable|enable|delete|import|export [<code>|<file>] [--site <name>] [--config <file>] [--json] [options]",
        arguments: [
            ("add", "Add a link: --target <url>, a generated code unless --code is given."),
            ("list", "List the links (of --site when given)."),
            ("show <code>", "Show one link and what its target is."),
            ("disable <code>", "Make the link answer as not found; the code stays taken."),
            ("enable <code>", "Serve a disabled link again (an archived FDL link, say)."),
            ("delete <code>", "Delete the link; its code may be handed out again."),
            ("import <file>", "Import Linkwell's link file (.csv or .json, as 'export' writes it); or --fdl-takeout."),
            ("export", "Write every link (of --site) as CSV (default) or JSON to stdout or --output."),
        ],
        options: [
            configOption,
            OptionSpec(name: "--site", valueName: "name", help: "Site name or domain (default: the only or the default site)."),
            OptionSpec(name: "--target", valueName: "url", help: "add: where the link leads (a URL of the site's routes, or a page on its domains)."),
            OptionSpec(name: "--code", valueName: "code", help: "add: use this code (A–Z a–z 0–9 - _) instead of a generated one."),
            OptionSpec(name: "--length", valueName: "n", help: "add: length of a generated short code (default 4, at least 4)."),
            OptionSpec(name: "--unguessable", valueName: nil, help: "add: generate 17 characters from 96 random bits."),
            OptionSpec(name: "--title", valueName: "text", help: "add: preview title instead of the route's."),
            OptionSpec(name: "--description", valueName: "text", help: "add: preview description instead of the route's."),
            OptionSpec(name: "--image", valueName: "url", help: "add: preview image URL instead of the route's."),
            OptionSpec(name: "--ios-fallback", valueName: "url", help: "add: where iPhones without the app go."),
            OptionSpec(name: "--android-fallback", valueName: "url", help: "add: where Android devices without the app go."),
            OptionSpec(name: "--desktop-fallback", valueName: "url", help: "add: where desktop browsers go."),
            OptionSpec(name: "--forced-redirect", valueName: nil, help: "add: redirect without the landing page (FDL efr=1)."),
            OptionSpec(name: "--expires", valueName: "time", help: "add: ISO 8601 time after which the link is not found (2027-01-31T00:00:00Z)."),
            OptionSpec(name: "--fdl-takeout", valueName: "file", help: "import: a Firebase Dynamic Links Takeout CSV (one per domain; with --site)."),
            OptionSpec(name: "--archived", valueName: "policy", help: "import: archived FDL links are imported 'disable'd (default), 'serve'd, or 'skip'ped."),
            OptionSpec(name: "--dry-run", valueName: nil, help: "import: report what would change, write nothing."),
            OptionSpec(name: "--format", valueName: "csv|json", help: "import/export: the file format (default: from the file name; export: csv)."),
            OptionSpec(name: "--output", valueName: "file", help: "export: write to this file instead of stdout."),
            OptionSpec(name: "--json", valueName: nil, help: "Print as JSON."),
        ],
        discussion: "The database is storage.sqlite of the config (relative to the config file), else linkwell.db beside it; it is created on first use."
    )

    static func run(_ args: Arguments) throws -> Int32 {
        guard let action = args.positional.first else { throw UsageError(message: "name an action: add, list, show, disable, enable, delete, import or export") }
        let (validated, _) = try loadConfig(args)
        let table = validated.table
        let store = try openLinkStore(validated)
        do {
            switch action {
            case "add": return try add(args, table: table, store: store)
            case "import": return try LinksImportCommand.importLinks(args, table: table, store: store)
            case "export": return try LinksImportCommand.export(args, table: table, store: store)
            case "list":
                let site = try args.value("--site").map { try resolveSite($0, table: table).name }
                let links = try store.links(site: site)
                if args.has("--json") {
                    Output.json(links.map { json($0, table: table) })
                } else if links.isEmpty {
                    Output.out("No short links\(site.map { " on site '\($0)'" } ?? "") in \(store.path). Add one: linkwell links add --target <url>")
                } else {
                    printTable(links)
                }
                return 0
            case "show", "disable", "enable", "delete":
                guard args.positional.count == 2 else { throw UsageError(message: "'links \(action)' takes one code: linkwell links \(action) <code>") }
                let code = args.positional[1]
                let site = try chosenSite(args, table: table)
                guard let link = try store.link(site: site.name, code: code) else {
                    Output.err("Error: site '\(site.name)' has no short link '\(code)' (in \(store.path)); 'linkwell links list' shows them.")
                    return 1
                }
                switch action {
                case "show":
                    if args.has("--json") { Output.json(json(link, table: table)) } else { printDetails(link, table: table) }
                case "disable":
                    try store.setDisabled(true, site: site.name, code: code)
                    let updated = try store.link(site: site.name, code: code) ?? link
                    if args.has("--json") { Output.json(json(updated, table: table)) } else {
                        Output.out("Disabled \(url(link, table: table)); the code stays taken ('links delete \(code)' frees it).")
                    }
                case "enable":
                    try store.setDisabled(false, site: site.name, code: code)
                    let updated = try store.link(site: site.name, code: code) ?? link
                    if args.has("--json") { Output.json(json(updated, table: table)) } else { Output.out("Enabled \(url(link, table: table)) (\(describe(link, table: table))).") }
                default:
                    try store.delete(site: site.name, code: code)
                    if args.has("--json") { Output.json(["deleted": json(link, table: table)]) } else { Output.out("Deleted \(url(link, table: table)).") }
                }
                return 0
            default:
                throw UsageError(message: "unknown action '\(action)'; use add, list, show, disable, enable, delete, import or export")
            }
        } catch let e as LinkStoreError {
            Output.err("Error: \(e)")
            return 1
        }
    }

    static func add(_ args: Arguments, table: RouteTable, store: LinkStore) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "'links add' takes no code argument; use --code <code>") }
        guard let target = args.value("--target") else { throw UsageError(message: "'links add' needs --target <url>") }
        let site = try chosenSite(args, table: table)
        var expires: Date?
        if let text = args.value("--expires") {
            guard let d = ISO8601DateFormatter().date(from: text) else {
                throw UsageError(message: "--expires '\(text)' is not an ISO 8601 time; write e.g. 2027-01-31T00:00:00Z")
            }
            expires = d
        }
        var length = ShortCode.minimumShortLength
        if let text = args.value("--length") {
            guard let n = Int(text), n >= ShortCode.minimumShortLength, n <= ShortCode.maximumLength else {
                throw UsageError(message: "--length '\(text)' must be a number from \(ShortCode.minimumShortLength) to \(ShortCode.maximumLength)")
            }
            length = n
        }
        if args.value("--code") != nil && (args.has("--unguessable") || args.value("--length") != nil) {
            throw UsageError(message: "--code chooses the code; leave out --unguessable and --length")
        }
        let draft = ShortLink(
            code: args.value("--code") ?? "", site: site.name, target: target,
            previewTitle: args.value("--title"), previewDescription: args.value("--description"), previewImage: args.value("--image"),
            iosFallback: args.value("--ios-fallback"), androidFallback: args.value("--android-fallback"),
            desktopFallback: args.value("--desktop-fallback"), forcedRedirect: args.has("--forced-redirect"), expiresAt: expires)
        let link: ShortLink
        switch try store.create([NewShortLink(link: draft, style: args.has("--unguessable") ? .unguessable : .short, length: length)], table: table) {
        case let .refused(errors):
            Output.err("Error: cannot add \(draft.code.isEmpty ? "a link" : "'\(draft.code)'") to site '\(site.name)': \(errors.map(\.message).joined(separator: "; "))")
            return 1
        case let .created(created):
            link = created[0]
        }
        if args.has("--json") {
            Output.json(json(link, table: table))
        } else {
            Output.out("Added \(url(link, table: table)) → \(target) (\(describe(link, table: table)))")
        }
        return 0
    }

    /// The config's link database, opened (created on first use); on failure prints why and exits 1.
    static func openLinkStore(_ validated: ValidatedConfig) throws -> LinkStore {
        do {
            return try LinkStore(StorageLocation.of(storage: validated.table.config.storage, configPath: validated.file))
        } catch {
            Output.err("Error: \(error)")
            throw ExitStatus(code: 1)
        }
    }

    static func chosenSite(_ args: Arguments, table: RouteTable) throws -> CompiledSite {
        if let name = args.value("--site") { return try resolveSite(name, table: table) }
        if let d = ShortLinkSites.defaultSite(table) { return d }
        throw UsageError(
            message: "the config has \(table.sites.count) sites and none is the default; choose one with --site (\(table.sites.map(\.name).joined(separator: ", ")))")
    }

    static func resolveSite(_ name: String, table: RouteTable) throws -> CompiledSite {
        guard let site = table.site(named: name) else {
            throw UsageError(message: "there is no site '\(name)'; the config's sites are \(table.sites.map(\.name).joined(separator: ", "))")
        }
        return site
    }

    static func url(_ link: ShortLink, table: RouteTable) -> String { link.url(table: table) }

    /// `route 'workout'`, `web page`, or why it no longer validates (the config changed since).
    static func describe(_ link: ShortLink, table: RouteTable) -> String {
        switch ShortLinkValidator.check(link, table: table) {
        case let .success(.route(r)): return "route '\(r)'"
        case .success(.webPage): return "web page"
        case let .failure(refusal): return "not servable: \(refusal)"
        }
    }

    static func status(_ link: ShortLink) -> String { link.status() }

    static func iso(_ d: Date) -> String { ShortLink.iso(d) }

    /// The link as the admin API shows it (`ShortLink.json(table:)`), for `Output.json`.
    static func json(_ link: ShortLink, table: RouteTable) -> [String: Any] {
        foundation(link.json(table: table)) as? [String: Any] ?? [:]
    }

    /// A JSONValue as Foundation objects (JSONSerialization's input).
    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case let .bool(b): return b
        case let .number(n): return Int(n) ?? Double(n) ?? 0
        case let .string(s): return s
        case let .array(a): return a.map(foundation)
        case let .object(o): return Dictionary(o.map { ($0.key, foundation($0.value)) }, uniquingKeysWith: { _, last in last })
        }
    }

    static func printTable(_ links: [ShortLink]) {
        var rows: [[String]] = [["SITE", "CODE", "STATUS", "TARGET"]]
        for l in links { rows.append([l.site, l.code, status(l), l.target]) }
        let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            Output.out(row.enumerated().map { $0.offset == 3 ? $0.element : $0.element.padding(toLength: widths[$0.offset] + 2, withPad: " ", startingAt: 0) }.joined())
        }
    }

    static func printDetails(_ link: ShortLink, table: RouteTable) {
        var lines: [(String, String)] = [
            ("url", url(link, table: table)), ("target", link.target), ("goes to", describe(link, table: table)), ("status", status(link)),
        ]
        let optional: [(String, String?)] = [
            ("preview title", link.previewTitle), ("preview description", link.previewDescription), ("preview image", link.previewImage),
            ("iOS fallback", link.iosFallback), ("Android fallback", link.androidFallback), ("desktop fallback", link.desktopFallback),
            ("forced redirect", link.forcedRedirect ? "yes" : nil), ("expires", link.expiresAt.map(iso)),
        ]
        for (k, v) in optional { if let v { lines.append((k, v)) } }
        lines += [("created", iso(link.createdAt)), ("updated", iso(link.updatedAt))]
        for (k, v) in lines { Output.out((k + ":").padding(toLength: 21, withPad: " ", startingAt: 0) + v) }
    }
}
