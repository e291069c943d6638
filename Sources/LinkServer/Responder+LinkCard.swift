// The generated preview card of a stored short link: its page names the card by the short link's
// own URL (`l=/post42`), drawn with the link's title when it has one, so any instance can draw it
// again from the link index.

import LandingPages
import MicroHTTP

extension Responder {
    /// The card of `/static/og/<hash>.png?l=<short link path>`; nil when `l` is no stored short
    /// link with a route target (then the route's card is tried).
    static func shortLinkCard(_ r: Request) -> HTTPResponse? {
        guard let shipped = r.snapshot.answerer.shipped else { return nil }
        let (link, locale) = LandingPageRenderer.cardQuery(r.facts.rawQuery)
        guard let link, let code = shortLinkCode(Substring(link), prefix: prefix(r)),
              let short = r.snapshot.resolvedLinks.lookup(r.snapshot.links, site: r.compiled.name, code: code),
              let match = short.match else { return nil }
        let url = shortLinkURL(short.link, site: r.compiled)
        let title = short.link.previewTitle.flatMap { $0.isEmpty ? nil : $0 }
        return shipped.card(path: r.path, request: r.facts) {
            shipped.landing.svg(shipped.landing.card(for: match, site: r.compiled, locale: locale, link: url, title: title))
        }
    }
}
