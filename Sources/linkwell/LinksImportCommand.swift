// linkwell links import / export: Firebase's Takeout CSV (--fdl-takeout) and Linkwell's own
// CSV/JSON link file; the report says what was imported, updated, unchanged, skipped (why), which
// rows are wrong (row, column, fix), and which targets the app opens (they match a route).

import Foundation
import LinkRouting
import LinkStore

enum LinksImportCommand {
    /// How many entries each list of the text report shows (`--json` has them all).
    static let listLimit = 20

    static func importLinks(_ args: Arguments) throws -> Int32 {
        if args[LinksCommand.fdlTakeout] != nil, let extra = args.positional.first {
            throw UsageError(message: "'links import --fdl-takeout FILE' takes no other file; leave out '\(extra)'")
        }
        if args[LinksCommand.fdlTakeout] == nil, args.positional.count != 1 {
            throw UsageError(message: "name the file: linkwell links import FILE.csv|FILE.json, or linkwell links import --fdl-takeout TAKEOUT.csv --site NAME")
        }
        return try LinksCommand.withStore(args) { table, store in try importLinks(args, table: table, store: store) }
    }

    static func importLinks(_ args: Arguments, table: RouteTable, store: LinkStore) throws -> Int32 {
        let dryRun = args.has(LinksCommand.dryRun)
        let plan: ImportPlan
        let source: String
        var site: CompiledSite?
        if let takeout = args[LinksCommand.fdlTakeout]?.path {
            guard args[CommonOptions.site] != nil || table.sites.count == 1 else {
                throw UsageError(message: "--fdl-takeout needs --site <name>: Firebase exports one file per domain (sites: \(table.sites.map(\.name).joined(separator: ", ")))")
            }
            let s = try LinksCommand.chosenSite(args, table: table)
            site = s
            let policy = args[LinksCommand.archived] ?? .disable
            let bytes = try read(takeout)
            source = takeout
            do {
                plan = try FDLTakeout.plan(bytes, site: s, table: table, archived: policy)
            } catch {
                Output.err("Error: \(takeout): \(error.row > 0 ? "row \(error.row), " : "")\(error.message); \(error.fix)")
                return 1
            }
        } else {
            let file = args.positional[0]
            let format = try format(args, file: file)
            if args[CommonOptions.site] != nil { site = try LinksCommand.chosenSite(args, table: table) }
            source = file
            let bytes = try read(file)
            do {
                plan = try LinkFile.plan(bytes, format: format, table: table, defaultSite: site?.name)
            } catch {
                Output.err("Error: \(file): \(error.message); \(error.fix)")
                return 1
            }
        }
        let outcome = try store.apply(plan, dryRun: dryRun)
        if args.has(CommonOptions.json) {
            Output.json(report(plan, outcome, source: source, dryRun: dryRun, table: table))
        } else {
            printReport(plan, outcome, source: source, dryRun: dryRun, site: site, table: table)
        }
        return plan.errors.isEmpty ? 0 : 1
    }

    static func export(_ args: Arguments) throws -> Int32 {
        guard args.positional.isEmpty else { throw UsageError(message: "'links export' takes no argument; write to a file with --output FILE") }
        let format = try args[LinksCommand.output].map { try self.format(args, file: $0.path) } ?? args[LinksCommand.format] ?? .csv
        return try LinksCommand.withStore(args) { table, store in
            let site = try args[CommonOptions.site].map { try LinksCommand.resolveSite($0, table: table).name }
            return try write(LinkFile.encode(try store.links(site: site), format: format), to: args[LinksCommand.output]?.path)
        }
    }

    /// The exported file, to `output` or stdout.
    static func write(_ bytes: [UInt8], to output: String?) throws -> Int32 {
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else {
                Output.err("Error: cannot write \(output); check that its folder exists and is writable.")
                return 1
            }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
        return 0
    }

    static func format(_ args: Arguments, file: String) throws -> LinkFile.Format {
        if let format = args[LinksCommand.format] { return format }
        switch (file as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "json": return .json
        default: throw UsageError(message: "cannot tell the format of '\(file)' from its name; add --format csv or --format json")
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            Output.err("Error: cannot read \(path); check the path and its permissions.")
            throw ExitStatus(code: 1)
        }
        return Array(data)
    }

    static func shortURL(_ link: ShortLink, table: RouteTable) -> String {
        table.site(named: link.site) == nil ? link.code : link.url(table: table)
    }

    static func printReport(_ plan: ImportPlan, _ outcome: ImportOutcome, source: String, dryRun: Bool, site: CompiledSite?, table: RouteTable) {
        let verb = dryRun ? "Dry run of" : "Imported"
        Output.out("\(verb) \(source)\(site.map { " into site '\($0.name)'" } ?? ""): \(plan.recordCount) row(s)\(dryRun ? " — nothing written" : "")")
        let would = dryRun ? "would be " : ""
        let archived = outcome.imported.filter { $0.link.fdl?.archived == true && $0.link.disabled }.count
        Output.out("  \(would)imported:  \(outcome.imported.count)\(archived > 0 ? " (\(archived) archived in Firebase, imported disabled: 'links enable CODE' serves one)" : "")")
        Output.out("  \(would)updated:   \(outcome.updated.count)")
        Output.out("  unchanged: \(outcome.unchanged.count)")
        Output.out("  skipped:   \(plan.skipped.count)")
        Output.out("  errors:    \(plan.errors.count)")
        for column in plan.ignoredColumns { Output.note("Note: column '\(column)' is not a Takeout column Linkwell reads; it is ignored.") }
        let rows = outcome.imported + outcome.updated + outcome.unchanged
        let app = rows.filter { $0.route != nil }.sorted { $0.row < $1.row }
        let browser = rows.filter { $0.route == nil }.sorted { $0.row < $1.row }
        if !app.isEmpty {
            Output.out("")
            Output.out("Open in the app — the target matches a route (\(app.count)):")
            var byRoute: [String: Int] = [:]
            for r in app { byRoute[r.route!, default: 0] += 1 }
            for (route, n) in byRoute.sorted(by: { $0.key < $1.key }) { Output.out("  route '\(route)': \(n) link(s)") }
        }
        if !browser.isEmpty {
            Output.out("")
            Output.out("Browser only — no route matches the target, the link redirects to it (\(browser.count)):")
            for r in browser.prefix(listLimit) { Output.out("  row \(r.row): \(shortURL(r.link, table: table)) → \(r.link.target)") }
            more(browser.count)
            Output.out("  (add a route for the paths the app should open, then import again: it updates them)")
        }
        if !plan.skipped.isEmpty {
            Output.out("")
            Output.out("Skipped (\(plan.skipped.count)):")
            for s in plan.skipped.prefix(listLimit) { Output.out("  row \(s.row), code '\(s.code)': \(s.reason)") }
            more(plan.skipped.count)
        }
        if !plan.errors.isEmpty {
            Output.err("")
            Output.err("Errors (\(plan.errors.count)) — these rows were not imported; fix them and import again (the rest stays as it is):")
            for e in plan.errors.prefix(listLimit) { Output.err("  \(e)") }
            if plan.errors.count > listLimit { Output.err("  … and \(plan.errors.count - listLimit) more (--json lists all)") }
        }
    }

    static func more(_ count: Int) {
        if count > listLimit { Output.out("  … and \(count - listLimit) more (--json lists all)") }
    }

    /// `links import --json`: every row's fate.
    struct Report: Encodable {
        struct Row: Encodable {
            var row: Int
            var code, site, url, target: String
            var route: Nullable<String>
            var opensApp, disabled: Bool
        }

        struct Skipped: Encodable {
            var row: Int
            var code, reason: String
        }

        struct Failure: Encodable {
            var row, line: Int
            var column: Nullable<String>
            var message, fix: String
        }

        var file: String
        var dryRun: Bool
        var rows: Int
        var imported, updated, unchanged: [Row]
        var skipped: [Skipped]
        var errors: [Failure]
        var ignoredColumns: [String]
    }

    static func report(_ plan: ImportPlan, _ outcome: ImportOutcome, source: String, dryRun: Bool, table: RouteTable) -> Report {
        func rows(_ list: [ImportRow]) -> [Report.Row] {
            list.map { r in
                Report.Row(
                    row: r.row, code: r.link.code, site: r.link.site, url: shortURL(r.link, table: table), target: r.link.target,
                    route: Nullable(r.route), opensApp: r.route != nil, disabled: r.link.disabled)
            }
        }
        return Report(
            file: source, dryRun: dryRun, rows: plan.recordCount,
            imported: rows(outcome.imported), updated: rows(outcome.updated), unchanged: rows(outcome.unchanged),
            skipped: plan.skipped.map { Report.Skipped(row: $0.row, code: $0.code, reason: $0.reason) },
            errors: plan.errors.map { e in Report.Failure(row: e.row, line: e.line, column: Nullable(e.column), message: e.message, fix: e.fix) },
            ignoredColumns: plan.ignoredColumns)
    }
}
