import LinkStore
import MicroHTTP

/// The not-found answer each request thread made last, and what it was made from: the snapshot
/// (its serial), the site, the (capped) `User-Agent` and `Accept-Language`. A client sends the
/// same two headers request after request, and comparing them with the last ones costs less than
/// the visitor's caches and the page's cache key. Per thread, so no lock; keyed by the snapshot's
/// serial, so a reload is never answered from a memo of the old pages.
enum MissMemo {
    struct Entry {
        var serial: UInt64 = 0
        var site = -1
        var userAgent: String?
        var acceptLanguage: String?
        var answer: Answer?
    }

    /// A not-found page and the click it counts: an object, so the memo hands out a reference.
    final class Answer: Sendable {
        let response: HTTPResponse
        let click: ClickEvent

        init(response: HTTPResponse, click: ClickEvent) {
            self.response = response
            self.click = click
        }
    }

    /// The memo's answer when the last one was made from the same inputs; else `make`'s (kept
    /// when not nil).
    static func answer(_ snapshot: Snapshot, site: Int, userAgent: String?, acceptLanguage: String?,
                       make: () -> Answer?) -> Answer? {
        let entry = entries.current
        if entry.pointee.serial == snapshot.serial, entry.pointee.site == site, let answer = entry.pointee.answer,
           entry.pointee.userAgent == userAgent, entry.pointee.acceptLanguage == acceptLanguage {
            return answer
        }
        guard let made = make() else { return nil }
        entry.pointee = Entry(serial: snapshot.serial, site: site, userAgent: userAgent, acceptLanguage: acceptLanguage, answer: made)
        return made
    }

    private static let entries = ThreadEntries { Entry() }
}
