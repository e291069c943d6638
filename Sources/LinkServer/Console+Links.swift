// The console's link forms: create and edit with the API's own checks (LinkInput, LinkStore.create,
// ShortLinkValidator) and its messages shown next to the field at fault; the preview card a chat
// app would show, drawn from the link's current title and description; the QR code as SVG and PNG.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

extension Console {
    /// The form fields the console edits, in page order: (form and API name, label, hint).
    static let linkFields: [(name: String, label: String, hint: String)] = [
        ("code", "Code", "Left empty: a short code is generated. Letters, digits, - and _."),
        ("target", "Target URL", "Where the link leads: a page of the site (a route) or an app link."),
        ("previewTitle", "Preview title", "The title chat apps and the landing page show."),
        ("previewDescription", "Preview description", "One or two sentences under the title."),
        ("previewImage", "Preview image URL", "An https image (1200 × 630 works everywhere) instead of the route's."),
        ("iosFallback", "iPhone fallback URL", "Where iPhones without the app go instead of the App Store."),
        ("androidFallback", "Android fallback URL", "Where Android phones without the app go instead of Google Play."),
        ("desktopFallback", "Desktop fallback URL", "Where desktop browsers go instead of the landing page."),
        ("expiresAt", "Expires at", "An RFC 3339 time (e.g. 2027-01-31T00:00:00Z); after it the link answers 404. Empty: never."),
        ("forcedRedirect", "Forced redirect", "Send every visitor straight to the target (or the platform's fallback), without the landing page."),
    ]

    /// The fields that are checkboxes (sent as `true` when ticked, absent when not).
    static let linkChecks: Set<String> = ["forcedRedirect"]

    /// A field's form text as the API's JSON value (a ticked checkbox is `true`).
    static func jsonValue(_ name: String, _ text: String) -> JSONValue {
        linkChecks.contains(name) ? .bool(text == "true") : .string(text)
    }

    /// `GET /console/links/new` and `GET /console/links/edit?site=&code=`.
    func linkForm(_ visit: Visit, editing: Bool) -> HTTPResponse {
        guard let session = visit.session else { return redirect("/") }
        guard session.scope.allows(.write) else { return message(visit, "Not allowed", "Changing links needs a write token; you signed in with a \(session.scope.rawValue) token.", status: 403) }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let table = runtime.snapshot.table
        let site = query["site"].flatMap { table.site(named: $0)?.name } ?? table.sites.first?.name ?? ""
        guard editing else { return formPage(visit, site: site, link: nil, values: [:], problems: [:], status: 200) }
        var link: ShortLink?
        _ = withStore { store throws(LinkStoreError) in link = try store.link(site: site, code: query["code"] ?? "") }
        guard let link else { return message(visit, "Not found", "Site '\(site)' has no short link '\(query["code"] ?? "")'.", status: 404) }
        let notice = query["done"] == "created" ? "Link \(link.code) created." : query["done"] == "saved" ? "Saved." : nil
        return formPage(visit, site: site, link: link, values: Self.values(of: link), problems: [:], status: 200, notice: notice)
    }

    /// `POST /console/links/new`: the API's create, one link.
    func createLink(_ visit: Visit, session: ConsoleSession, form: [String: String]) -> HTTPResponse {
        let table = runtime.snapshot.table
        let site = form["site"].flatMap { table.site(named: $0)?.name } ?? table.sites.first?.name ?? ""
        var object: [(key: String, value: JSONValue)] = [("site", .string(site))]
        for f in Self.linkFields { if let v = form[f.name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty { object.append((f.name, Self.jsonValue(f.name, v))) } }
        var problems: [String: String] = [:]
        var created: ShortLink?
        switch LinkInput.new(.object(object), table: table) {
        case let .failure(p): for item in p.items { problems[item.field] = problems[item.field] ?? item.message }
        case let .success(draft):
            let outcome: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
                switch try store.create([draft], table: table) {
                case let .refused(errors): for e in errors { problems[e.field] = problems[e.field] ?? e.message }
                case let .created(links):
                    created = links[0]
                    try store.appendAudit([actor(session, visit).entry("link.create", site: links[0].site, code: links[0].code, detail: links[0].json(table: table))])
                }
            }
            if case let .failure(error) = outcome { problems["code"] = "nothing was stored: \(error.description)" }
        }
        guard let created else { return formPage(visit, site: site, link: nil, values: form, problems: problems, status: 422) }
        runtime.linksChanged(changed: [created], removed: [])
        return redirect("/console/links/edit?site=\(PercentEncoding.encodeComponent(created.site))&code=\(PercentEncoding.encodeComponent(created.code))&done=created")
    }

    /// `POST /console/links/edit`: the API's PATCH of target, title and description.
    func editLink(_ visit: Visit, session: ConsoleSession, form: [String: String]) -> HTTPResponse {
        let table = runtime.snapshot.table
        let site = form["site"] ?? "", code = form["code"] ?? ""
        var patch: [(key: String, value: JSONValue)] = []
        for f in Self.linkFields where f.name != "code" {
            // An unticked checkbox is not sent: the form always shows it, so absent is false.
            if Self.linkChecks.contains(f.name) { patch.append((f.name, .bool(form[f.name] == "true"))); continue }
            guard let v = form[f.name]?.trimmingCharacters(in: .whitespaces) else { continue }
            patch.append((f.name, v.isEmpty ? (f.name == "target" ? .string("") : .null) : .string(v)))
        }
        var problems: [String: String] = [:]
        var saved: ShortLink?
        var existing: ShortLink?
        let outcome: Result<Void, LinkStoreError> = withStore { store throws(LinkStoreError) in
            guard let before = try store.link(site: site, code: code) else { return }
            existing = before
            switch LinkInput.patch(.object(patch), onto: before) {
            case let .failure(p): for item in p.items { problems[item.field] = item.message }
            case var .success(link):
                link.updatedAt = ShortLink.wholeSeconds(Date())
                if case let .failure(refusal) = ShortLinkValidator.check(link, table: table) {
                    problems[refusal.field] = refusal.description
                    return
                }
                try store.upsert(link)
                try store.appendAudit([actor(session, visit).entry(
                    "link.update", site: site, code: code, detail: AdminAPI.difference(before.json(table: table), link.json(table: table)))])
                saved = link
            }
        }
        if case let .failure(error) = outcome { return message(visit, "Not saved", "Nothing was changed: \(error.description)", status: 503) }
        guard let existing else { return message(visit, "Not found", "Site '\(site)' has no short link '\(code)'.", status: 404) }
        guard let saved else { return formPage(visit, site: site, link: existing, values: form, problems: problems, status: 422) }
        runtime.linksChanged(changed: [saved], removed: [])
        return redirect("/console/links/edit?site=\(PercentEncoding.encodeComponent(site))&code=\(PercentEncoding.encodeComponent(code))&done=saved")
    }

    /// `GET /console/links/qr.svg|qr.png?site=&code=`: the short URL's QR code, as a download.
    func qrDownload(_ visit: Visit, png: Bool) -> HTTPResponse {
        guard visit.session != nil else { return redirect("/") }
        let query = AdminAPI.queryItems(visit.request.rawQuery)
        let table = runtime.snapshot.table
        var link: ShortLink?
        _ = withStore { store throws(LinkStoreError) in link = try store.link(site: query["site"] ?? "", code: query["code"] ?? "") }
        guard let link, let qr = QRCode(link.url(table: table)) else { return message(visit, "Not found", "There is no such link.", status: 404) }
        let name = "\(link.site)-\(link.code).\(png ? "png" : "svg")".filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        let body = png ? QRImage.png(qr, scale: 8) : Array(qr.svg(label: "QR code for \(link.url(table: table))", pixelsPerModule: 8).html.utf8)
        return .dynamic(status: 200, headers: [
            ("Content-Type", png ? "image/png" : "image/svg+xml"), ("Content-Disposition", "attachment; filename=\"\(name)\""),
            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", Self.csp),
        ], body: body)
    }

    func actor(_ session: ConsoleSession, _ visit: Visit) -> AdminActor {
        AdminActor(name: session.name, via: session.via, scope: session.scope, client: visit.client)
    }

    static func values(of link: ShortLink) -> [String: String] {
        [
            "code": link.code, "target": link.target, "previewTitle": link.previewTitle ?? "", "previewDescription": link.previewDescription ?? "",
            "previewImage": link.previewImage ?? "", "iosFallback": link.iosFallback ?? "", "androidFallback": link.androidFallback ?? "",
            "desktopFallback": link.desktopFallback ?? "", "expiresAt": link.expiresAt.map(ShortLink.iso) ?? "", "forcedRedirect": link.forcedRedirect ? "true" : "",
        ]
    }

    private func formPage(_ visit: Visit, site: String, link: ShortLink?, values: [String: String], problems: [String: String], status: Int, notice: String? = nil) -> HTTPResponse {
        let table = runtime.snapshot.table
        let fields: [TemplateValue] = Self.linkFields.filter { link == nil || $0.name != "code" }.map { f in
            [
                "name": .string(f.name), "label": .string(f.label), "hint": .string(f.hint), "value": .string(values[f.name] ?? ""),
                "problem": problems[f.name].map(TemplateValue.string) ?? .null, "long": .bool(f.name == "previewDescription"),
                "check": .bool(Self.linkChecks.contains(f.name)), "checked": .bool(values[f.name] == "true"),
            ]
        }
        // Problems of fields the form does not show (site, …) go on top.
        let shown = Set(Self.linkFields.map(\.name))
        let other = problems.filter { !shown.contains($0.key) }.map { "\($0.key): \($0.value)" }.sorted().joined(separator: " ")
        var context: [String: TemplateValue] = [
            "title": .string(link.map { "Edit \($0.code)" } ?? "New link"), "site": .string(site), "fields": .list(fields),
            "editing": .bool(link != nil), "notice": notice.map(TemplateValue.string) ?? .null,
            "problem": other.isEmpty ? (problems.isEmpty ? .null : "The link was not saved; see the fields below.") : .string(other),
            "sites": .list(table.sites.map { ["name": .string($0.name), "selected": .bool($0.name == site)] }),
        ]
        if let link {
            let url = link.url(table: table)
            context["code"] = .string(link.code)
            context["url"] = .string(url)
            let card = previewCard(link)
            context["card"] = [
                "title": .string(card.title), "description": .string(card.description ?? ""), "host": .string(URL(string: url)?.host ?? ""),
                "image": card.image.map(TemplateValue.string) ?? .null,
            ]
            context["devices"] = .list(PreviewDevice.allCases.map { d in
                ["id": .string(d.rawValue), "name": .string(d.name), "src": .string("/console/links/preview?device=\(d.rawValue)&site=\(PercentEncoding.encodeComponent(link.site))&code=\(PercentEncoding.encodeComponent(link.code))")]
            })
            context["deleteURL"] = .string("/console/links/delete?site=\(PercentEncoding.encodeComponent(link.site))&code=\(PercentEncoding.encodeComponent(link.code))")
            if let qr = QRCode(url) { context["qr"] = .html(qr.svg(label: "QR code for \(url)", pixelsPerModule: 4)) }
            let q = "site=\(PercentEncoding.encodeComponent(link.site))&code=\(PercentEncoding.encodeComponent(link.code))"
            context["qrSVG"] = .string("/console/links/qr.svg?\(q)")
            context["qrPNG"] = .string("/console/links/qr.png?\(q)")
        }
        let response = page(ConsoleTemplates.compiled.linkForm, visit, context, status: status)
        // The device previews are frames of this origin; the card's image may be on the site.
        guard let link else { return response }
        return Self.replacingCSP(response, Self.editorCSP(image: previewCard(link).image))
    }
}

/// A QR code as a PNG: 8-bit greyscale, `scale` pixels per module, the quiet zone included,
/// stored (uncompressed) deflate blocks — a few dozen KB, decoded by any reader.
enum QRImage {
    static func png(_ qr: QRCode, scale: Int) -> [UInt8] {
        let side = (qr.width + 2 * QRCode.quietZone) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity((side + 1) * side)
        for y in 0..<side {
            raw.append(0)  // filter: none
            let my = y / scale - QRCode.quietZone
            for x in 0..<side {
                let mx = x / scale - QRCode.quietZone
                let dark = (0..<qr.width).contains(mx) && (0..<qr.width).contains(my) && qr.isDark(x: mx, y: my)
                raw.append(dark ? 0 : 255)
            }
        }
        var header: [UInt8] = []
        header += be32(UInt32(side)) + be32(UInt32(side)) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let last: UInt8 = i + n >= data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
