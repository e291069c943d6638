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

    struct State {
        /// The link index the links come from (0: none yet).
        var generation: UInt64 = 0
        var links: [Key: IndexedShortLink] = [:]
    }

    private let state = Locked(State())
    let capacity: Int
    static let defaultCapacity = 4096

    init(capacity: Int = ResolvedLinkCache.defaultCapacity) {
        self.capacity = capacity
    }

    /// `index.lookup(site:code:now:)`, resolved at most once per code while cached.
    func lookup(_ index: LinkIndex, site: String, code: Substring, now: Date = Date()) -> IndexedShortLink? {
        let key = Key(site: site, code: String(code))
        let generation = index.generation
        let found: IndexedShortLink
        if let hit = state.withLock({ $0.generation == generation ? $0.links[key] : nil }) {
            found = hit
        } else {
            guard let resolved = index.resolved(site: site, code: code) else { return nil }
            found = resolved
            // Emptied states are freed after the lock is let go.
            var released: [State] = []
            state.withLock { s in
                // A newer index empties the cache; a request still on an older one keeps nothing.
                if generation > s.generation {
                    released.append(s)
                    s = State(generation: generation)
                }
                guard generation == s.generation else { return }
                if s.links.count >= capacity {
                    released.append(s)
                    s = State(generation: generation)
                }
                s.links[key] = resolved
            }
            released.removeAll()
        }
        return found.link.isLive(at: now) ? found : nil
    }

    /// Links kept now (tests).
    var count: Int { state.withLock { $0.links.count } }
}
