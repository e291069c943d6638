// The request path's view of the short links: an immutable dictionary built once from all
// stored links and one route table, held by the server's snapshot and swapped with it
// (ServerRuntime.loadSnapshot). A lookup is a dictionary read; no database call.

import Foundation
import LinkRouting

/// A stored link with its target resolved against the route table it was indexed with.
public struct IndexedShortLink: Sendable, Equatable {
    public let link: ShortLink
    /// The target's route match (a deep link), or nil for a page on the site's own domains.
    public let match: LinkMatch?
}

/// Short links by site and code, for one route table. Disabled links and links whose target
/// no longer validates (the config changed since they were stored) are left out, with the reason.
public struct LinkIndex: Sendable {
    private let bySite: [String: [String: IndexedShortLink]]
    /// Links left out, each with why (for the reload log and `validate`).
    public let skipped: [(site: String, code: String, reason: String)]
    /// How many links answer.
    public var count: Int { bySite.values.reduce(0) { $0 + $1.count } }

    /// An index with no links.
    public static let empty = LinkIndex(links: [], table: nil)

    /// Indexes `links` against `table` (nil: nothing is indexed).
    public init(links: [ShortLink], table: RouteTable?) {
        var bySite: [String: [String: IndexedShortLink]] = [:]
        var skipped: [(site: String, code: String, reason: String)] = []
        for link in links {
            guard let table else { break }
            if link.disabled { continue }
            switch ShortLinkValidator.check(link, table: table) {
            case let .failure(refusal):
                skipped.append((link.site, link.code, refusal.description))
            case .success:
                bySite[link.site, default: [:]][link.code] = IndexedShortLink(link: link, match: table.site(named: link.site).flatMap { ShortLinkValidator.match(link.target, site: $0, table: table) })
            }
        }
        self.bySite = bySite
        self.skipped = skipped
    }

    private init(bySite: [String: [String: IndexedShortLink]], skipped: [(site: String, code: String, reason: String)]) {
        self.bySite = bySite
        self.skipped = skipped
    }

    /// This index with `changed` links put in (replacing those with their site and code) and the
    /// links `removed` taken out: a write of a few links costs those links, not a rebuild.
    public func applying(changed: [ShortLink], removed: [(site: String, code: String)] = [], table: RouteTable) -> LinkIndex {
        var bySite = self.bySite
        var skipped = self.skipped
        let touched = Set(changed.map { "\($0.site)\u{0}\($0.code)" } + removed.map { "\($0.site)\u{0}\($0.code)" })
        skipped.removeAll { touched.contains("\($0.site)\u{0}\($0.code)") }
        for (site, code) in removed { bySite[site]?[code] = nil }
        let added = LinkIndex(links: changed, table: table)
        for link in changed { bySite[link.site]?[link.code] = nil }
        for (site, links) in added.bySite { bySite[site, default: [:]].merge(links) { _, new in new } }
        skipped += added.skipped
        return LinkIndex(bySite: bySite, skipped: skipped)
    }

    /// The live link with `code` on `site` at `now` (an expired link is nil), from memory.
    public func lookup(site: String, code: Substring, now: Date = Date()) -> IndexedShortLink? {
        guard let entry = bySite[site]?[String(code)], entry.link.isLive(at: now) else { return nil }
        return entry
    }
}
