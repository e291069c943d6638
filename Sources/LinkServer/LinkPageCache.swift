// Short links WITH overrides (preview, fallbacks, campaign tags, forced redirect), answered once
// per link and variant. A stored link's overrides and target are fixed, so its answer depends on
// the request only through the variant the route pages are compiled by (platform, crawler,
// in-app browser, language) plus whether the browser is an iPad (`ipfl`): the landing stage
// (LandingAnswerer) makes it once — the same calls it makes per request, so the bytes are the
// renderer's — and every later request of the variant is a dictionary probe and a prepared response.
//
// An entry remembers the link it was made from; a lookup that finds the code with other contents
// (edited, re-imported) makes it again. The whole cache is released when the served link index
// changes (`LinkIndex.generation`) and with its snapshot on a reload. Disabled and expired links
// never get here (the index lookup refuses them first), so they stay not found.

import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// The answers of short links with overrides, by link and variant, within a count and a byte
/// budget: when a new entry would pass either, the cache is emptied first (hot links come back
/// on their next request; a flood of distinct links costs what rendering costs, never memory).
final class LinkPageCache: Sendable {
    struct Key: Hashable, Sendable {
        var site: Int
        var code: String
        var platform: Platform
        var crawler: Bool
        /// nil for crawlers (their page does not show the in-app note).
        var inAppBrowser: String?
        var locale: String
        var iPad: Bool
    }

    struct Entry: Sendable {
        /// What the answer was made from.
        var link: IndexedShortLink
        var answer: LinkAnswer
        var bytes: Int
    }

    struct State {
        /// The link index the entries belong to (0: none yet).
        var generation: UInt64 = 0
        var entries: [Key: Entry] = [:]
        var bytes = 0
    }

    private let state = Locked(State())
    let capacity: Int
    let byteBudget: Int
    /// A larger answer is made every time, never kept.
    let largestEntry: Int
    static let defaultCapacity = 4096
    static let defaultByteBudget = 16 * 1024 * 1024
    /// Counted per entry besides the answer's bytes: the key, the link and the response object.
    static let entryOverhead = 1024

    init(capacity: Int = LinkPageCache.defaultCapacity, byteBudget: Int = LinkPageCache.defaultByteBudget) {
        self.capacity = capacity
        self.byteBudget = byteBudget
        self.largestEntry = byteBudget / 16
    }

    /// The cached answer of `key` when it was made from `link` under `generation`, else `make()`'s
    /// (kept for the next request).
    func answer(_ key: Key, link: IndexedShortLink, generation: UInt64, make: () -> LinkAnswer) -> LinkAnswer {
        let hit: LinkAnswer? = state.withLock { s in
            guard s.generation == generation, let entry = s.entries[key], entry.link == link else { return nil }
            return entry.answer
        }
        if let hit { return hit }
        let made = make()
        let size = Self.entryOverhead + key.code.utf8.count + {
            switch made.answer {
            case let .page(response): response.bodyCount
            case let .redirect(location): location.utf8.count
            }
        }()
        // Emptied states are freed after the lock is let go.
        var released: [State] = []
        state.withLock { s in
            // A newer index empties the cache; a request still on an older one keeps nothing.
            if generation > s.generation {
                released.append(s)
                s = State(generation: generation)
            }
            guard generation == s.generation, size <= largestEntry else { return }
            if let old = s.entries.removeValue(forKey: key) { s.bytes -= old.bytes }
            if s.entries.count >= capacity || s.bytes + size > byteBudget {
                released.append(s)
                s = State(generation: generation)
            }
            s.entries[key] = Entry(link: link, answer: made, bytes: size)
            s.bytes += size
        }
        released.removeAll()
        return made
    }

    /// Entries and bytes held now (tests, the bench).
    var count: Int { state.withLock { $0.entries.count } }
    var bytes: Int { state.withLock { $0.bytes } }
}

extension HTTPResponse {
    var bodyCount: Int {
        switch self {
        case let .prepared(p): p.bodyCount
        case let .dynamic(_, _, body): body.count
        }
    }
}
