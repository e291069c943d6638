// The short links a snapshot has looked up, with their targets resolved. A lookup in the link
// index decodes the link's record and checks its target against the route table
// (`ShortLinkValidator.resolve`): about half of a short link's cost. Both are the same for the same
// index and table, and an index never changes once built (a change is a new index, with a new
// `generation`), so a snapshot (one table) keeps the results per generation and checks only
// expiry per request.

import Foundation
import LinkStore
import MicroHTTP

/// Resolved short links by site and code, for one snapshot's table and the newest link index it
/// has served; emptied when a newer index is served or when `capacity` links are kept.
final class ResolvedLinkCache: Sendable {
    struct Key: Hashable, Sendable {
        var site: String
        var code: String
    }

    private let links: BoundedCache<Key, IndexedShortLink>
    var capacity: Int { links.capacity }
    static let defaultCapacity = 4096

    init(capacity: Int = ResolvedLinkCache.defaultCapacity) {
        links = BoundedCache(capacity: capacity, whenFull: .empty)
    }

    /// `index.lookup(site:code:now:)`, resolved at most once per code while cached.
    func lookup(_ index: LinkIndex, site: String, code: Substring, now: Date = Date()) -> IndexedShortLink? {
        let key = Key(site: site, code: String(code))
        let found: IndexedShortLink
        if let hit = links.cached(key, generation: index.generation) {
            found = hit
        } else {
            guard let resolved = index.resolved(site: site, code: code) else { return nil }
            found = resolved
            links.keep(key, resolved, generation: index.generation)
        }
        return found.link.isLive(at: now) ? found : nil
    }

    /// Links kept now (tests).
    var count: Int { links.count }
}
