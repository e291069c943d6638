// linkwell links — short links in the config's SQLite store (storage.sqlite, default linkwell.db
// beside the config): add, list, show, disable, enable, delete, import, export.

import Association
import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON

/// A JSONValue (the admin API's link form) in `--json` output: numbers as whole numbers where
/// they are, a repeated key's last value.
extension JSONValue: Encodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .object(members):
            var c = encoder.container(keyedBy: Key.self)
            for (key, value) in Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }) {
                try c.encode(value, forKey: Key(stringValue: key))
            }
        case let .array(items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        default:
            var c = encoder.singleValueContainer()
            switch self {
            case .null: try c.encodeNil()
            case let .bool(b): try c.encode(b)
            case let .number(n): if let i = Int(n) { try c.encode(i) } else { try c.encode(Double(n) ?? 0) }
            case let .string(s): try c.encode(s)
            default: break
            }
        }
    }
}

extension LinkFile.Format: ChoiceValue {}
extension ArchivedPolicy: ChoiceValue {}

enum LinksCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "links",
            overview: "Manage short links (https://<domain>/<code>) in the config's link database.",
            abstract: "Add, list, show, disable and delete short links (SQLite).",
            options: [],
            discussion: """
                The database is storage.sqlite of the config (relative to the config file), else linkwell.db beside it; it is created on first use.
                Examples:
                  linkwell links add --target https://example.com/post/1 --code launch
                  linkwell links list --json
                  linkwell links disable launch
                """),
        subcommands: [
            Command(spec: CommandSpec(name: "links add", overview: "Add a link: --target <url>, a generated code unless --code is given.", options: addOptions), run: add),
            Command(spec: CommandSpec(name: "links list", overview: "List the links (of --site when given).", options: common), run: list),
            change("show", "Show one link and what its target is."),
            change("disable", "Make the link answer as not found; the code stays taken."),
            change("enable", "Serve a disabled link again (an archived FDL link, say)."),
            change("delete", "Delete the link; its code may be handed out again."),
            Command(
                spec: CommandSpec(
                    name: "links import", overview: "Import Linkwell's link file (.csv or .json, as 'export' writes it); or --fdl-takeout.",
                    arguments: [ArgumentSpec(name: "<file>", help: "The link file (.csv or .json); none with --fdl-takeout.", arity: .optional)],
                    options: common + [fdlTakeout.spec, archived.spec, dryRun.spec, format.spec]),
                run: LinksImportCommand.importLinks),
            Command(
                spec: CommandSpec(
                    name: "links export", overview: "Write every link (of --site) as CSV (default) or JSON to stdout or --output.",
                    options: [CommonOptions.config.spec, CommonOptions.site.spec, format.spec, output.spec]),
                run: LinksImportCommand.export),
        ])

    static let common = [CommonOptions.config.spec, CommonOptions.site.spec, CommonOptions.json.spec]
    static let target = Option<String>(
        "--target", "url", help: "Where the link leads (a URL of the site's routes, or a page on its domains).")
    static let code = Option<String>("--code", "code", help: "Use this code (A–Z a–z 0–9 - _) instead of a generated one.")
    static let length = Option<CodeLength>("--length", "n", help: "Length of a generated short code (default 4, at least 4).")
    static let unguessable = Flag("--unguessable", help: "Generate 17 characters from 96 random bits.")
    static let title = Option<String>("--title", "text", help: "Preview title instead of the route's.")
    static let description = Option<String>("--description", "text", help: "Preview description instead of the route's.")
    static let image = Option<String>("--image", "url", help: "Preview image URL instead of the route's.")
    static let iosFallback = Option<String>("--ios-fallback", "url", help: "Where iPhones without the app go.")
    static let androidFallback = Option<String>("--android-fallback", "url", help: "Where Android devices without the app go.")
    static let desktopFallback = Option<String>("--desktop-fallback", "url", help: "Where desktop browsers go.")
    static let forcedRedirect = Flag("--forced-redirect", help: "Redirect without the landing page (FDL efr=1).")
    static let expires = Option<ExpiryTime>(
        "--expires", "time", help: "ISO 8601 time after which the link is not found (2027-01-31T00:00:00Z).")
    static let addOptions = common + [
        target.spec, code.spec, length.spec, unguessable.spec, title.spec, description.spec, image.spec,
        iosFallback.spec, androidFallback.spec, desktopFallback.spec, forcedRedirect.spec, expires.spec,
    ]
    static let fdlTakeout = Option<Path>("--fdl-takeout", "file", help: "A Firebase Dynamic Links Takeout CSV (one per domain; with --site).")
    static let archived = Option<ArchivedPolicy>(
        "--archived", "policy", help: "Archived FDL links are imported 'disable'd (default), 'serve'd, or 'skip'ped.")
    static let dryRun = Flag("--dry-run", help: "Report what would change, write nothing.")
    static let format = Option<LinkFile.Format>(
        "--format", "csv|json", help: "The file format (default: from the file name; export: csv).")
    static let output = Option<Path>("--output", "file", help: "Write to this file instead of stdout.")

    /// A generated code's length, from the shortest allowed to the longest.
    struct CodeLength: ArgumentValue {
        var value: Int
        init(argument: String) throws(ExpectedValue) {
            guard let n = Int(argument), n >= ShortCode.minimumShortLength, n <= ShortCode.maximumLength else {
                throw ExpectedValue(expected: "give a number from \(ShortCode.minimumShortLength) to \(ShortCode.maximumLength)")
            }
            value = n
        }
    }

    /// An ISO 8601 time (`2027-01-31T00:00:00Z`).
    struct ExpiryTime: ArgumentValue {
        var date: Date
        init(argument: String) throws(ExpectedValue) {
            guard let d = ISO8601DateFormatter().date(from: argument) else {
                throw ExpectedValue(expected: "write an ISO 8601 time, e.g. 2027-01-31T00:00:00Z")
            }
            date = d
        }
    }

    /// `links show|disable|enable|delete <code>`.
    static func change(_ action: String, _ overview: String) -> Command {
        Command(
            spec: CommandSpec(
                name: "links \(action)", overview: overview, arguments: [ArgumentSpec(name: "<code>", help: "The link's code.")], options: common),
            run: { args in try change(action, args) })
    }

    /// Runs `body` with the config's route table and link database; a store error is printed, status 1.
    static func withStore(_ args: Arguments, _ body: (RouteTable, LinkStore) throws -> Int32) throws -> Int32 {
        let (validated, _) = try args.loadConfig()
        let store = try openLinkStore(validated)
        do {
            return try body(validated.table, store)
        } catch let e as LinkStoreError {
            Output.err("Error: \(e)")
            return 1
        }
    }

    static func list(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'links list' takes no argument; choose the site with --site <name>") }
        return try withStore(args) { table, store in
            let site = try args[CommonOptions.site].map { try resolveSite($0, table: table).name }
            let links = try store.links(site: site)
            if args.has(CommonOptions.json) {
                Output.json(links.map { $0.json(table: table) })
            } else if links.isEmpty {
                Output.out("No short links\(site.map { " on site '\($0)'" } ?? "") in \(store.path). Add one: linkwell links add --target <url>")
            } else {
                printTable(links)
            }
            return 0
        }
    }

    static func change(_ action: String, _ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "'links \(action)' takes one code: linkwell links \(action) <code>") }
        let code = args.positional[0]
        return try withStore(args) { table, store in
            let site = try chosenSite(args, table: table)
            guard let link = try store.link(site: site.name, code: code) else {
                Output.err("Error: site '\(site.name)' has no short link '\(code)' (in \(store.path)); 'linkwell links list' shows them.")
                return 1
            }
            let asJSON = args.has(CommonOptions.json)
            switch action {
            case "show":
                if asJSON { Output.json(link.json(table: table)) } else { printDetails(link, table: table) }
            case "disable":
                try store.setDisabled(true, site: site.name, code: code)
                let updated = try store.link(site: site.name, code: code) ?? link
                if asJSON { Output.json(updated.json(table: table)) } else {
                    Output.out("Disabled \(url(link, table: table)); the code stays taken ('links delete \(code)' frees it).")
                }
            case "enable":
                try store.setDisabled(false, site: site.name, code: code)
                let updated = try store.link(site: site.name, code: code) ?? link
                if asJSON { Output.json(updated.json(table: table)) } else { Output.out("Enabled \(url(link, table: table)) (\(describe(link, table: table))).") }
            default:
                try store.delete(site: site.name, code: code)
                if asJSON { Output.json(["deleted": link.json(table: table)]) } else { Output.out("Deleted \(url(link, table: table)).") }
            }
            return 0
        }
    }

    static func add(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'links add' takes no code argument; use --code <code>") }
        guard let target = args[target] else { throw UsageError(message: "'links add' needs --target <url>") }
        if args.given(code) && (args.has(unguessable) || args.given(length)) {
            throw UsageError(message: "--code chooses the code; leave out --unguessable and --length")
        }
        return try withStore(args) { table, store in
            let site = try chosenSite(args, table: table)
            let draft = ShortLink(
                code: args[code] ?? "", site: site.name, target: target,
                previewTitle: args[title], previewDescription: args[description], previewImage: args[image],
                iosFallback: args[iosFallback], androidFallback: args[androidFallback],
                desktopFallback: args[desktopFallback], forcedRedirect: args.has(forcedRedirect), expiresAt: args[expires]?.date)
            let style: ShortCode.Style = args.has(unguessable) ? .unguessable : .short
            let link: ShortLink
            switch try store.create([NewShortLink(link: draft, style: style, length: args[length]?.value ?? ShortCode.minimumShortLength)], table: table) {
            case let .refused(errors):
                Output.err("Error: cannot add \(draft.code.isEmpty ? "a link" : "'\(draft.code)'") to site '\(site.name)': \(errors.map(\.message).joined(separator: "; "))")
                return 1
            case let .created(created):
                link = created[0]
            }
            if args.has(CommonOptions.json) {
                Output.json(link.json(table: table))
            } else {
                Output.out("Added \(url(link, table: table)) → \(target) (\(describe(link, table: table)))")
            }
            return 0
        }
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
        if let name = args[CommonOptions.site] { return try resolveSite(name, table: table) }
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


    static func printTable(_ links: [ShortLink]) {
        var rows: [[String]] = [["SITE", "CODE", "STATUS", "TARGET"]]
        for l in links { rows.append([l.site, l.code, status(l), l.target]) }
        printColumns(rows)
    }

    /// Rows as columns two spaces apart; the last column is not padded.
    static func printColumns(_ rows: [[String]]) {
        let count = rows.first?.count ?? 0
        let widths = (0..<count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            Output.out(row.enumerated().map { $0.offset == count - 1 ? $0.element : $0.element.padding(toLength: widths[$0.offset] + 2, withPad: " ", startingAt: 0) }.joined())
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
