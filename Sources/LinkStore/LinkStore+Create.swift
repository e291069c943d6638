// Creating links — one or many, all or nothing — with the checks of `linkwell links add`
// (ShortLinkValidator, ShortCode.conflict, generated codes that never collide), and reading them a
// page at a time. Shared by the CLI and the admin REST API.

import Foundation
import LinkRouting
import LinkwellJSON

/// A link to create: the link itself, with `code` empty when one is to be generated.
public struct NewShortLink: Sendable {
    public var link: ShortLink
    /// How to generate the code when `link.code` is empty.
    public var style: ShortCode.Style
    /// Length of a generated short code.
    public var length: Int

    public init(link: ShortLink, style: ShortCode.Style = .short, length: Int = ShortCode.minimumShortLength) {
        self.link = link
        self.style = style
        self.length = length
    }
}

/// Why one link of a batch was refused: its position in the request, the field and the reason.
public struct ShortLinkItemError: Sendable, Equatable, CustomStringConvertible {
    /// Position in the request (0-based).
    public var index: Int
    /// The field at fault (`code`, `target`, `site`, …).
    public var field: String
    public var kind: Kind
    public var message: String

    public enum Kind: String, Sendable {
        /// Another link has the code (stored, or earlier in the same request).
        case codeTaken = "code_taken"
        /// The code is a path the site already answers: a route, an exclusion, linkwell's own files.
        case codeConflict = "code_conflict"
        case invalid
    }

    public var description: String { "item \(index), \(field): \(message)" }

    public init(index: Int, field: String, kind: Kind, message: String) {
        self.index = index
        self.field = field
        self.kind = kind
        self.message = message
    }
}

/// What `LinkStore.create` did: stored every link, or none (with every item's error).
public enum ShortLinkCreation: Sendable {
    case created([ShortLink])
    case refused([ShortLinkItemError])
}

/// Sites by name for link commands and the API.
public enum ShortLinkSites {
    /// The site links go to when none is named: the only site, else the one marked `default`.
    public static func defaultSite(_ table: RouteTable) -> CompiledSite? {
        if table.sites.count == 1 { return table.sites[0] }
        return table.sites.first { $0.config.isDefault == true }
    }
}

extension LinkStore {
    /// Validates every link of `items` and, when all pass, stores them in one transaction; when
    /// any fails nothing is stored and every failure is returned (in request order). Codes are
    /// generated for items without one, free on their site and unique in the batch.
    public func create(_ items: [NewShortLink], table: RouteTable) throws(LinkStoreError) -> ShortLinkCreation {
        try withDB { db throws(LinkStoreError) in
            try db.transaction { () throws(LinkStoreError) -> ShortLinkCreation in
                var errors: [ShortLinkItemError] = []
                var links: [ShortLink] = []
                links.reserveCapacity(items.count)
                // Codes named in this request, per site → the first index naming each.
                var named: [String: [String: Int]] = [:]
                for (index, item) in items.enumerated() where !item.link.code.isEmpty {
                    if let first = named[item.link.site]?[item.link.code] {
                        errors.append(ShortLinkItemError(
                            index: index, field: "code", kind: .codeTaken,
                            message: "the code '\(item.link.code)' is also given to item \(first) of this request; each code may appear once per site"))
                    } else {
                        named[item.link.site, default: [:]][item.link.code] = index
                    }
                }
                var generated: [String: Set<String>] = [:]
                for (index, item) in items.enumerated() {
                    var link = item.link
                    if link.code.isEmpty {
                        guard let site = table.site(named: link.site) else {
                            errors.append(ShortLinkItemError(index: index, field: "site", kind: .invalid, message: ShortLinkValidator.check(link, table: table).refusal?.description ?? ""))
                            continue
                        }
                        do {
                            link.code = try ShortCode.generate(style: item.style, length: item.length, site: site, table: table) { code in
                                if named[site.name]?[code] != nil || generated[site.name]?.contains(code) == true { return true }
                                return try LinkStore.exists(db, site: site.name, code: code)
                            }
                        } catch let error as LinkStoreError {
                            throw error
                        } catch {
                            throw LinkStoreError(.other, "generating a code failed: \(error)")
                        }
                        generated[site.name, default: []].insert(link.code)
                    }
                    if case let .failure(refusal) = ShortLinkValidator.check(link, table: table) {
                        errors.append(ShortLinkItemError(
                            index: index, field: refusal.field, kind: refusal.field == "code" ? .codeConflict : .invalid, message: refusal.description))
                        continue
                    }
                    if !item.link.code.isEmpty, try LinkStore.exists(db, site: link.site, code: link.code) {
                        errors.append(ShortLinkItemError(
                            index: index, field: "code", kind: .codeTaken,
                            message: "site '\(link.site)' already has a short link '\(link.code)'; pick another code, or leave it out to get a generated one"))
                        continue
                    }
                    links.append(link)
                }
                if !errors.isEmpty {
                    return .refused(errors.sorted { ($0.index, $0.field) < ($1.index, $1.field) })
                }
                for link in links {
                    try db.query("INSERT INTO links (\(LinkStore.columns)) VALUES (\(LinkStore.placeholders))", LinkStore.values(link))
                }
                return .created(links)
            }
        }
    }

    static func exists(_ db: any DatabaseConnection, site: String, code: String) throws(LinkStoreError) -> Bool {
        var found = false
        try db.query("SELECT 1 FROM links WHERE site = ? AND code = ?", [.text(site), .text(code)]) { _ in found = true }
        return found
    }

    /// Up to `limit` links in (site, code) order after `after` (nil: from the start), of `site`
    /// when given — a keyset page, stable while links are added or deleted.
    public func links(site: String?, after: (site: String, code: String)?, limit: Int) throws(LinkStoreError) -> [ShortLink] {
        try withDB { db throws(LinkStoreError) in
            var conditions: [String] = []
            var bindings: [SQLValue] = []
            if let site {
                conditions.append("site = ?")
                bindings.append(.text(site))
            }
            if let after {
                conditions.append("(site > ? OR (site = ? AND code > ?))")
                bindings += [.text(after.site), .text(after.site), .text(after.code)]
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            bindings.append(.integer(Int64(limit)))
            var out: [ShortLink] = []
            try db.query("SELECT \(LinkStore.columns) FROM links\(filter) ORDER BY site, code LIMIT ?", bindings) { out.append(LinkStore.link($0)) }
            return out
        }
    }
}

extension Result {
    var refusal: Failure? {
        if case let .failure(f) = self { return f }
        return nil
    }
}

// MARK: - JSON

extension ShortLink {
    /// `live`, `disabled` or `expired` at `now`.
    public func status(at now: Date = Date()) -> String {
        disabled ? "disabled" : isLive(at: now) ? "live" : "expired"
    }

    /// `https://<site's canonical host>/<code>`.
    public func url(table: RouteTable) -> String {
        guard let s = table.site(named: site) else { return "https://\(site)/\(code)" }
        return "https://\(s.canonicalHost)\(s.config.shortLinks?.effectivePrefix ?? "/")\(code)"
    }

    /// The link as `links --json` and the admin API show it: `code`, `site`, `url`, `target`,
    /// `status`, `route` (null for a web page) or `problem` (why it is not served), the overrides
    /// that are set, `forcedRedirect`, `disabled`, `createdAt`, `updatedAt`.
    public func json(table: RouteTable) -> JSONValue {
        var o: [(key: String, value: JSONValue)] = [
            ("code", .string(code)), ("site", .string(site)), ("url", .string(url(table: table))), ("target", .string(target)),
            ("status", .string(status())), ("forcedRedirect", .bool(forcedRedirect)), ("disabled", .bool(disabled)),
            ("createdAt", .string(ShortLink.iso(createdAt))), ("updatedAt", .string(ShortLink.iso(updatedAt))),
        ]
        switch ShortLinkValidator.check(self, table: table) {
        case let .success(.route(r)): o.append(("route", .string(r)))
        case .success(.webPage): o.append(("route", .null))
        case let .failure(refusal): o.append(("problem", .string(refusal.description)))
        }
        let optional: [(String, String?)] = [
            ("previewTitle", previewTitle), ("previewDescription", previewDescription), ("previewImage", previewImage),
            ("iosFallback", iosFallback), ("androidFallback", androidFallback), ("desktopFallback", desktopFallback),
            ("expiresAt", expiresAt.map(ShortLink.iso)),
        ]
        for (key, value) in optional { if let value { o.append((key, .string(value))) } }
        if let fdl {
            var f: [(key: String, value: JSONValue)] = []
            for (name, value) in fdl.named { if let value { f.append((name, .string(value))) } }
            f.append(("archived", .bool(fdl.archived)))
            o.append(("fdl", .object(f)))
        }
        return .object(o)
    }

    /// `2026-12-01T11:17:54Z`.
    public static func iso(_ d: Date) -> String { RFC3339.format(d) }
}
