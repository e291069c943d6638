// The console's list of links: a page of one site's links found by a search (`q`: code, target,
// title) in an order (`sort=code|created|clicks`, `dir=asc|desc`), read with LIMIT/OFFSET on an
// index, with each link's clicks of the last 7 days as a sparkline; the bulk form (disable, CSV
// export of the selected links) and delete behind a confirmation page.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension Console {
    static let listPageSize = 50
    /// The sparkline's days, today included.
    static let sparkDays = 7

    /// The list's parameters as the address carries them.
    struct ListParameters {
        var site: String
        var q: String
        var sort: LinkListSort
        var descending: Bool
        var page: Int

        init(_ query: [String: String], table: RouteTable) {
            site = query["site"].flatMap { table.site(named: $0)?.name } ?? table.sites.first?.name ?? ""
            q = String((query["q"] ?? "").trimmingCharacters(in: .whitespaces).prefix(200))
            sort = query["sort"].flatMap(LinkListSort.init(rawValue:)) ?? .code
            // Newest and most-clicked first unless asked otherwise; codes A to Z.
            descending = query["dir"].map { $0 == "desc" } ?? (sort != .code)
            page = max(1, min(Int(query["page"] ?? "") ?? 1, 1_000_000))
        }

        func address(page: Int) -> String {
            var items = ["site=\(PercentEncoding.encodeComponent(site))"]
            if !q.isEmpty { items.append("q=\(PercentEncoding.encodeComponent(q))") }
            items += ["sort=\(sort.rawValue)", "dir=\(descending ? "desc" : "asc")"]
            if page > 1 { items.append("page=\(page)") }
            return "/?" + items.joined(separator: "&")
        }
    }

    /// `GET /`: one page of the list.
    func linksPage(_ visit: Visit, notice: String?, problem: String? = nil, status: Int = 200) -> HTTPResponse {
        guard let session = visit.session else { return redirect("/") }
        let table = runtime.snapshot.table
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let p = ListParameters(query, table: table)
        let today = Int(Date().timeIntervalSince1970) / 86_400
        let days = ((today - Self.sparkDays + 1)...today).map(ClickDay.fromEpochDays)
        var listed: [ShortLink] = []
        var clicks: [String: [Int: Int]] = [:]
        var more = false
        let read: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            listed = try store.linkList(LinkListQuery(
                site: p.site, search: p.q, sort: p.sort, descending: p.descending,
                offset: (p.page - 1) * Self.listPageSize, limit: Self.listPageSize + 1, clicksSince: days[0]))
            // One more row than shown was asked for: its presence says there is a next page.
            more = listed.count > Self.listPageSize
            if more { listed.removeLast() }
            clicks = try store.dailyClicks(site: p.site, codes: listed.map(\.code), since: days[0], through: days[days.count - 1])
        }
        var problem = problem
        if case let .failure(error) = read { problem = "The links cannot be read right now: \(error.description)" }
        var notice = notice
        if let done = query["done"], let code = query["code"], ["disabled", "enabled", "deleted"].contains(done) { notice = "Link \(code) \(done)." }
        if query["done"] == "bulk-disabled", let n = query["count"].flatMap(Int.init) { notice = "\(n) link\(n == 1 ? "" : "s") disabled." }
        let canWrite = session.scope.allows(.write)
        let rows: [TemplateValue] = listed.map { link in
            let disabled = link.disabled
            let perDay = days.map { clicks[link.code]?[$0] ?? 0 }
            let q = "site=\(PercentEncoding.encodeComponent(link.site))&code=\(PercentEncoding.encodeComponent(link.code))"
            return [
                "code": .string(link.code), "target": .string(link.target), "title": .string(link.previewTitle ?? ""), "status": .string(link.status()),
                "site": .string(link.site), "action": .string(disabled ? "enable" : "disable"), "actionLabel": .string(disabled ? "Enable" : "Disable"),
                "canWrite": .bool(canWrite), "csrf": .string(session.csrf),
                "editURL": .string("/console/links/edit?\(q)"), "deleteURL": .string("/console/links/delete?\(q)"),
                "clicks": .int(perDay.reduce(0, +)), "bars": Self.sparkBars(perDay),
                "sparkLabel": .string("Clicks per day, the last \(Self.sparkDays) days: \(perDay.map(String.init).joined(separator: ", ")); \(perDay.reduce(0, +)) in all"),
            ]
        }
        let sortLabels: [LinkListSort: String] = [.code: "Code", .created: "Created", .clicks: "Clicks, 7 days"]
        let sortText = "by \(sortLabels[p.sort]!.lowercased()), \(p.descending ? "descending" : "ascending")"
        return page(ConsoleTemplates.compiled.links, visit, [
            "title": "Links", "onLinks": true, "site": .string(p.site), "canWrite": .bool(canWrite),
            "sites": .list(table.sites.map { ["name": .string($0.name), "selected": .bool($0.name == p.site)] }),
            "shortSearch": .bool(!p.q.isEmpty && p.q.count < LinkStore.searchIndexMinimum),
            "q": p.q.isEmpty ? .null : .string(p.q), "page": .int(p.page), "paged": .bool(p.page > 1), "sortText": .string(sortText),
            "sorts": .list(LinkListSort.allCases.map { ["value": .string($0.rawValue), "label": .string(sortLabels[$0]!), "selected": .bool($0 == p.sort)] }),
            "dirs": .list([("asc", "Ascending"), ("desc", "Descending")].map { ["value": .string($0.0), "label": .string($0.1), "selected": .bool(($0.0 == "desc") == p.descending)] }),
            "links": .list(rows), "hasLinks": .bool(!rows.isEmpty),
            "previous": p.page > 1 ? .string(p.address(page: p.page - 1)) : .null,
            "next": more ? .string(p.address(page: p.page + 1)) : .null,
            "notice": notice.map(TemplateValue.string) ?? .null, "problem": problem.map(TemplateValue.string) ?? .null,
        ], status: status)
    }

    /// Seven bars in a 69 × 20 box, scaled to the busiest day (a day with clicks is at least 2 px).
    static func sparkBars(_ perDay: [Int]) -> TemplateValue {
        let top = max(perDay.max() ?? 0, 1)
        return .list(perDay.enumerated().map { i, n in
            let h = n == 0 ? 1 : max(2, n * 20 / top)
            return ["x": .int(i * 10), "y": .int(20 - h), "h": .int(h)]
        })
    }

    /// Every value of `name` in a form body (`a=1&a=2`): the bulk form's checkboxes.
    static func formValues(_ body: [UInt8], _ name: String) -> [String] {
        RawQueryItem.split(String(decoding: body, as: UTF8.self)).compactMap { item in
            let decode = { (s: Substring) in PercentEncoding.decode(s.replacingOccurrences(of: "+", with: " ")) }
            return decode(item.name) == name ? item.value.map(decode) : nil
        }
    }

    /// `POST /console/links/bulk`: `action=disable` (write) or `export` (a CSV of the selection).
    func bulk(_ visit: Visit, session: ConsoleSession, form: [String: String]) -> HTTPResponse {
        let table = runtime.snapshot.table
        let site = form["site"] ?? ""
        let codes = Array(Set(Self.formValues(visit.request.body, "select"))).sorted()
        guard table.site(named: site) != nil else { return linksPage(visit, notice: nil, problem: "The form named no site this server has.", status: 400) }
        guard !codes.isEmpty else { return linksPage(visit, notice: nil, problem: "Select one or more links with their checkboxes first; nothing was changed.", status: 400) }
        switch form["action"] {
        case "export": return exportCSV(visit, site: site, codes: codes)
        case "disable":
            guard session.scope.allows(.write) else {
                audit(actor(session, visit).entry("refused", site: site, code: nil, detail: ["path": .string("/console/links/bulk")],
                                                  outcome: "refused: insufficient_scope (\(session.scope.rawValue) scope)"))
                return message(visit, "Not allowed", "Your token has scope '\(session.scope.rawValue)', which cannot change links; sign in with a write token. Nothing was changed.", status: 403)
            }
            var changed: [ShortLink] = []
            let outcome: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
                var entries: [AuditEntry] = []
                for code in codes {
                    guard var link = try store.link(site: site, code: code), !link.disabled else { continue }
                    let before = link.json(table: table)
                    link.disabled = true
                    link.updatedAt = ShortLink.wholeSeconds(Date())
                    changed.append(link)
                    entries.append(actor(session, visit).entry("link.update", site: site, code: code, detail: AdminAPI.difference(before, link.json(table: table))))
                }
                try store.upsert(changed)
                try store.appendAudit(entries)
            }
            if case let .failure(error) = outcome { return linksPage(visit, notice: nil, problem: "Nothing was changed: \(error.description)", status: 503) }
            if !changed.isEmpty { runtime.linksChanged(changed: changed, removed: []) }
            return redirect("/?site=\(PercentEncoding.encodeComponent(site))&done=bulk-disabled&count=\(changed.count)")
        default:
            return linksPage(visit, notice: nil, problem: "The form named no action (disable or export).", status: 400)
        }
    }

    /// The selected links as CSV (RFC 4180: CRLF, quoted where needed; cells a spreadsheet would
    /// run as a formula are prefixed with `'`).
    private func exportCSV(_ visit: Visit, site: String, codes: [String]) -> HTTPResponse {
        let table = runtime.snapshot.table
        var links: [ShortLink] = []
        let read: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            for code in codes { if let link = try store.link(site: site, code: code) { links.append(link) } }
        }
        if case let .failure(error) = read { return linksPage(visit, notice: nil, problem: "The links cannot be read right now: \(error.description)", status: 503) }
        let header = ["site", "code", "url", "target", "status", "previewTitle", "previewDescription", "previewImage",
                      "iosFallback", "androidFallback", "desktopFallback", "forcedRedirect", "expiresAt", "createdAt", "updatedAt"]
        var text = Self.csvRow(header)
        for l in links {
            text += Self.csvRow([
                l.site, l.code, l.url(table: table), l.target, l.status(), l.previewTitle ?? "", l.previewDescription ?? "", l.previewImage ?? "",
                l.iosFallback ?? "", l.androidFallback ?? "", l.desktopFallback ?? "", l.forcedRedirect ? "true" : "false",
                l.expiresAt.map(ShortLink.iso) ?? "", ShortLink.iso(l.createdAt), ShortLink.iso(l.updatedAt),
            ])
        }
        let name = "\(site)-links.csv".filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        return .dynamic(status: 200, headers: [
            ("Content-Type", "text/csv; charset=utf-8; header=present"), ("Content-Disposition", "attachment; filename=\"\(name)\""),
            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
        ], body: Array(text.utf8))
    }

    /// One CSV record: fields with a comma, quote, CR or LF quoted (quotes doubled); a field
    /// starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so no spreadsheet runs it.
    static func csvRow(_ fields: [String]) -> String {
        fields.map { field -> String in
            var f = field
            if let first = f.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { f = "'" + f }
            guard f.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return f }
            return "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }

    /// `GET /console/links/delete?site=&code=`: the confirmation (a form, so it works without script).
    func deletePage(_ visit: Visit) -> HTTPResponse {
        guard let session = visit.session else { return redirect("/") }
        guard session.scope.allows(.write) else { return message(visit, "Not allowed", "Deleting links needs a write token; you signed in with a \(session.scope.rawValue) token.", status: 403) }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        var link: ShortLink?
        _ = withStore { store throws(LinkStoreError) in link = try store.link(site: query["site"] ?? "", code: query["code"] ?? "") }
        guard let link else { return message(visit, "Not found", "Site '\(query["site"] ?? "")' has no short link '\(query["code"] ?? "")'.", status: 404) }
        return page(ConsoleTemplates.linkPages.deleteLink, visit, [
            "title": .string("Delete \(link.code)"), "site": .string(link.site), "code": .string(link.code), "target": .string(link.target),
            "url": .string(link.url(table: runtime.snapshot.table)), "back": .string("/?site=\(PercentEncoding.encodeComponent(link.site))"),
        ], status: 200)
    }

    /// `POST /console/links/delete` (with `confirm=yes`, which only the confirmation page sends).
    func deleteLink(_ visit: Visit, session: ConsoleSession, form: [String: String]) -> HTTPResponse {
        let table = runtime.snapshot.table
        let site = form["site"] ?? "", code = form["code"] ?? ""
        guard form["confirm"] == "yes" else {
            return redirect("/console/links/delete?site=\(PercentEncoding.encodeComponent(site))&code=\(PercentEncoding.encodeComponent(code))")
        }
        var deleted: ShortLink?
        let outcome: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            guard let link = try store.link(site: site, code: code) else { return }
            try store.delete(site: site, code: code)
            try store.appendAudit([actor(session, visit).entry("link.delete", site: site, code: code, detail: link.json(table: table))])
            deleted = link
        }
        if case let .failure(error) = outcome { return message(visit, "Not deleted", "Nothing was changed: \(error.description)", status: 503) }
        guard deleted != nil else { return message(visit, "Not found", "Site '\(site)' has no short link '\(code)' (already deleted?).", status: 404) }
        runtime.linksChanged(changed: [], removed: [(site, code)])
        return redirect("/?site=\(PercentEncoding.encodeComponent(site))&done=deleted&code=\(PercentEncoding.encodeComponent(code))")
    }
}
