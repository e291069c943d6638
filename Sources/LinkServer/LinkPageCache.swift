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
/// budget: when a new entry would pass either, the cache is emptied first (BoundedCache `.empty`).
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
    }

    private let entries: BoundedCache<Key, Entry>
    var capacity: Int { entries.capacity }
    var byteBudget: Int { entries.byteBudget }
    /// A larger answer is made every time, never kept.
    var largestEntry: Int { entries.largestEntry }
    static let defaultCapacity = 4096
    static let defaultByteBudget = 16 * 1024 * 1024
    /// Counted per entry besides the answer's bytes: the key, the link and the response object.
    static let entryOverhead = 1024

    init(capacity: Int = LinkPageCache.defaultCapacity, byteBudget: Int = LinkPageCache.defaultByteBudget) {
        entries = BoundedCache(capacity: capacity, byteBudget: byteBudget, largestEntry: byteBudget / 16, whenFull: .empty) { key, entry in
            let answer = switch entry.answer.answer {
            case let .page(response): response.bodyCount
            case let .redirect(location): location.utf8.count
            }
            return LinkPageCache.entryOverhead + key.code.utf8.count + answer
        }
    }

    /// The cached answer of `key` when it was made from `link` under `generation`, else `make()`'s
    /// (kept for the next request; a newer index empties the cache, a request still on an older
    /// one keeps nothing).
    func answer(_ key: Key, link: IndexedShortLink, generation: UInt64, make: () -> LinkAnswer) -> LinkAnswer {
        if let hit = entries.cached(key, generation: generation), hit.link == link { return hit.answer }
        let made = make()
        entries.keep(key, Entry(link: link, answer: made), generation: generation)
        return made
    }

    /// Entries and bytes held now (tests, the bench).
    var count: Int { entries.count }
    var bytes: Int { entries.bytes }
}

extension HTTPResponse {
    var bodyCount: Int {
        switch self {
        case let .prepared(p): p.bodyCount
        case let .dynamic(_, _, body): body.count
        case let .spans(_, _, body): body.count
        }
    }
}
