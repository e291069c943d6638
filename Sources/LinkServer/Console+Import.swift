// The console's Takeout import: a Firebase Dynamic Links Takeout CSV uploaded in a form
// (multipart/form-data), planned and written exactly as `linkwell links import --fdl-takeout`
// does (FDLTakeout.plan, LinkStore.apply), and its report: imported, updated, unchanged, skipped
// and why, rows in error.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension Console {
    /// The largest upload (a Takeout of a few hundred thousand links).
    static let importBodyLimit = 32 << 20

    /// `GET /console/import`.
    func importPage(_ visit: Visit) -> HTTPResponse {
        guard let session = visit.session else { return redirect("/") }
        guard session.scope.allows(.write) else { return message(visit, "Not allowed", "Importing links needs a write token; you signed in with a \(session.scope.rawValue) token.", status: 403) }
        return importForm(visit, report: nil, problem: nil, status: 200)
    }

    private func importForm(_ visit: Visit, report: TemplateValue?, problem: String?, status: Int) -> HTTPResponse {
        let table = runtime.snapshot.table
        return page(ConsoleTemplates.compiled.importLinks, visit, [
            "title": "Import", "onImport": true, "report": report ?? .null, "problem": problem.map(TemplateValue.string) ?? .null,
            "sites": .list(table.sites.map { ["name": .string($0.name)] }),
            "policies": .list(ArchivedPolicy.allCases.map { ["name": .string($0.rawValue), "selected": .bool($0 == .disable)] }),
        ], status: status)
    }

    /// `POST /console/import` (multipart: csrf, site, archived, file).
    func importTakeout(_ visit: Visit, session: ConsoleSession, parts: [String: [UInt8]]) -> HTTPResponse {
        let table = runtime.snapshot.table
        let siteName = parts["site"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let site = table.site(named: siteName) ?? (table.sites.count == 1 ? table.sites[0] : nil) else {
            return importForm(visit, report: nil, problem: "Choose the site the Takeout file belongs to (Firebase exports one file per domain).", status: 422)
        }
        guard let file = parts["file"], !file.isEmpty else { return importForm(visit, report: nil, problem: "Choose the Takeout CSV file to upload.", status: 422) }
        let policy = parts["archived"].flatMap { ArchivedPolicy(rawValue: String(decoding: $0, as: UTF8.self)) } ?? .disable
        let plan: ImportPlan
        do throws(ImportRowError) {
            plan = try FDLTakeout.plan(file, site: site, table: table, archived: policy)
        } catch {
            return importForm(visit, report: nil, problem: "The file cannot be read as a Takeout export: \(error.row > 0 ? "row \(error.row), " : "")\(error.message); \(error.fix)", status: 422)
        }
        var outcome: ImportOutcome?
        let written: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            let applied = try store.apply(plan, dryRun: false)
            outcome = applied
            try store.appendAudit([AdminActor(name: session.name, via: session.via, scope: session.scope, client: visit.client).entry(
                "links.import", site: site.name, code: nil, detail: [
                    "source": "fdl-takeout", "rows": .number(String(plan.recordCount)), "imported": .number(String(applied.imported.count)),
                    "updated": .number(String(applied.updated.count)), "unchanged": .number(String(applied.unchanged.count)),
                    "skipped": .number(String(plan.skipped.count)), "errors": .number(String(plan.errors.count)),
                ])])
        }
        if case let .failure(error) = written { return importForm(visit, report: nil, problem: "Nothing was imported: \(error.description)", status: 503) }
        guard let outcome else { return importForm(visit, report: nil, problem: "There is no link database yet: create a link first, or run 'linkwell links import'.", status: 503) }
        let changed = (outcome.imported + outcome.updated).map { (row: ImportRow) in row.link }
        if !changed.isEmpty { runtime.linksChanged(changed: changed, removed: []) }
        func rows(_ list: [ImportRow]) -> TemplateValue {
            .list(list.map { ["row": .int($0.row), "code": .string($0.link.code), "target": .string($0.link.target), "disabled": .bool($0.link.disabled)] })
        }
        let report: TemplateValue = [
            "site": .string(site.name), "records": .int(plan.recordCount),
            "imported": .int(outcome.imported.count), "updated": .int(outcome.updated.count), "unchanged": .int(outcome.unchanged.count),
            "skippedCount": .int(plan.skipped.count), "errorCount": .int(plan.errors.count),
            "hasImported": .bool(!(outcome.imported + outcome.updated).isEmpty), "hasSkipped": .bool(!plan.skipped.isEmpty), "hasErrors": .bool(!plan.errors.isEmpty),
            "importedRows": rows(outcome.imported + outcome.updated),
            "skipped": .list(plan.skipped.map { ["row": .int($0.row), "code": .string($0.code), "reason": .string($0.reason)] }),
            "errors": .list(plan.errors.map { ["row": .int($0.row), "message": .string($0.message), "fix": .string($0.fix)] }),
        ]
        return importForm(visit, report: report, problem: nil, status: 200)
    }

    /// The named parts of a `multipart/form-data` body (RFC 7578), or nil when it is not one.
    static func multipart(_ body: [UInt8], contentType: String?) -> [String: [UInt8]]? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
              let b = contentType.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.lowercased().hasPrefix("boundary=") })
        else { return nil }
        let boundary = Array(("--" + b.dropFirst(9).trimmingCharacters(in: CharacterSet(charactersIn: "\""))).utf8)
        var parts: [String: [UInt8]] = [:]
        var starts: [Int] = []
        var i = 0
        while i + boundary.count <= body.count {
            if body[i] == boundary[0], body[i..<(i + boundary.count)].elementsEqual(boundary) {
                starts.append(i)
                i += boundary.count
            } else {
                i += 1
            }
        }
        for (n, start) in starts.dropLast().enumerated() {
            var part = Array(body[(start + boundary.count)..<starts[n + 1]])
            if part.starts(with: [13, 10]) { part.removeFirst(2) }
            if part.suffix(2) == [13, 10] { part.removeLast(2) }
            guard let split = Self.find([13, 10, 13, 10], in: part) else { continue }
            let head = String(decoding: part[..<split], as: UTF8.self)
            guard let disposition = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-disposition:") }),
                  let nameRange = disposition.range(of: "name=\"")
            else { continue }
            let name = disposition[nameRange.upperBound...].prefix { $0 != "\"" }
            parts[String(name)] = Array(part[(split + 4)...])
        }
        return parts
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}
