// What `serve` answers for one URL, for `linkwell check`: the request goes through the same
// `Responder.respond` as a live one (the same snapshot, the same short-link index read from the
// store), so check and serve cannot disagree; this only names what came out.

import LinkStore
import MicroHTTP

/// One request's answer as the access log and the click counts name it.
public struct ServedAnswer: Sendable, Equatable {
    /// What the path was to the responder: `short_link`, `long_link`, `route`, or nil (anything else).
    public var link: String?
    public var status: Int
    /// The access log's `kind` (`page`, `redirect`, `not_found`, `static`, …).
    public var kind: String
    public var site: String?
    public var route: String?
    /// The click outcome (`app_page`, `store`, `web`, `redirect`, `not_found`), as `linkwell stats` counts it.
    public var outcome: String?
    /// The short link's code, when a stored link answered.
    public var code: String?
    public var location: String?
}

extension Responder {
    /// `rawTarget` (path and query) on `host`, as a browser with `userAgent` asks for it.
    public static func served(_ snapshot: Snapshot, host: String, rawTarget: String, userAgent: String?, acceptLanguage: String?) -> ServedAnswer {
        let facts = RequestFacts(rawTarget: rawTarget, host: host, userAgent: userAgent, acceptLanguage: acceptLanguage)
        let path = facts.rawPath
        let query = facts.rawQuery
        let result = respond(snapshot, facts)
        var link: String?
        if let click = result.click, !click.code.isEmpty {
            link = "short_link"
        } else if let site = snapshot.table.site(forHost: host) {
            let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
            if isLongLink(path, prefix: prefix, query: query) {
                link = "long_link"
            } else if result.route != nil {
                link = "route"
            }
        }
        let code = result.click.flatMap { $0.code.isEmpty ? nil : $0.code }
        return ServedAnswer(
            link: link, status: result.response.status, kind: result.kind.rawValue, site: result.site, route: result.route,
            outcome: result.click?.outcome.name, code: code, location: result.response.header("Location"))
    }
}
