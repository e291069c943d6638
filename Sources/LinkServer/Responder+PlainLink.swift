#if canImport(Glibc)
import Glibc
#endif
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// A plain link straight from the request: after the association files, most requests a link
/// domain gets are a route's link or a path that is nothing (a dead campaign link, a scanner).
/// This step runs the general path's checks in its order — the request-target, the site, the
/// dot segments, then each step that could claim the path (association files, the resolve
/// endpoint, preview cards, `public/` files, long links) — on the request's own strings, and
/// answers the two outcomes left: a route's landing answer, or the not-found page with its click.
/// The not-found page needs no `RequestFacts`, no proxy resolution and no copies of the request.
///
/// It answers exactly what `route` would, and gives way to it (nil) whenever anything could make
/// the general path answer differently: a method other than GET/HEAD, a forwarding header (a
/// trusted proxy may change the Host, client and scheme), no site for the Host, a target the
/// general path refuses, a path another step may claim, a live short link's code, a site whose
/// misses redirect (`notFound.redirect`), a renderer plugged in by a caller.
extension Responder {
    /// `answered` gets the result, the path as sent and the request (it counts and logs them) and
    /// gives the response to send: the result is made once and lent, never copied.
    static func plainLink(_ snapshot: Snapshot, _ request: HTTPRequest,
                          _ answered: (borrowing ResponderResult, Substring, borrowing HTTPRequest) -> HTTPResponse) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        guard request.forwardingHeaderLines == 0 else { return nil }
        let answerer = snapshot.answerer
        guard let shipped = answerer.shipped,
              let index = HostMemo.siteIndex(snapshot, host: request.header(.host) ?? "") else { return nil }
        let site = snapshot.sites[index]
        let target = request.rawTarget
        let utf8 = target.utf8
        // Everything on the target's bytes, in the general path's order: its checks, the steps
        // before the route's, the route's match, a short link's code, the not-found page.
        let answer = utf8.withContiguousStorageIfAvailable { bytes -> HTTPResponse? in
            guard let scan = PlainTarget(bytes, shortLinkPrefix: site.shortLinkPrefixBytes) else { return nil }
            // Without a query the path is the whole target (no index to check).
            let path: Substring, query: Substring?
            if scan.pathEnd == scan.count {
                (path, query) = (Substring(target), nil)
            } else {
                let pathEnd = utf8.index(utf8.startIndex, offsetBy: scan.pathEnd)
                (path, query) = (target[..<pathEnd], target[utf8.index(after: pathEnd)...])
            }
            guard !snapshot.assets.mayHave(length: scan.pathEnd) || snapshot.assets.response(path) == nil,
                  !isLongLink(path, prefix: site.shortLinkPrefix, query: query) else { return nil }
            let queryBytes = scan.pathEnd == scan.count ? nil : UnsafeBufferPointer(rebasing: bytes[(scan.pathEnd + 1)...])
            let resolution = snapshot.table.resolve(site: site.compiled, pathBytes: UnsafeBufferPointer(rebasing: bytes[..<scan.pathEnd]),
                                                    queryBytes: queryBytes)
            if case let .matched(match) = resolution {
                // The route's answer, made as the general path makes it (the landing stage reads
                // the facts only for a plugged-in renderer's pages).
                let facts = RequestFacts(request)
                let trust = snapshot.proxyTrust.resolve(facts)
                let visitor = answerer.visitor(site: site, userAgent: facts.userAgent, acceptLanguage: facts.acceptLanguage)
                let r = Request(snapshot: snapshot, facts: facts, trust: trust, site: site, path: path)
                var result = landed(r, LandingRequest(site: site, match: match, visitor: visitor))
                if !result.secured { result.response = secured(result.response) }
                return answered(result, path, request)
            }
            if scan.codeStart != scan.pathEnd,
               snapshot.resolvedLinks.lookup(snapshot.links, site: site.name, code: path[utf8.index(utf8.startIndex, offsetBy: scan.codeStart)...]) != nil {
                return nil
            }
            guard !site.redirectsMisses else { return nil }
            let agent = request.header(.userAgent).map(RequestFacts.cap), language = request.header(.acceptLanguage).map(RequestFacts.cap)
            guard let miss = MissMemo.answer(snapshot, site: index, userAgent: agent, acceptLanguage: language, make: {
                let visitor = answerer.visitor(site: site, userAgent: agent, acceptLanguage: language)
                guard let catalog = visitor.catalog else { return nil }
                return MissMemo.Answer(response: shipped.notFound(site: site.compiled, platform: visitor.browser.platform, catalog: catalog),
                                       click: ClickEvent(visitor: visitor, site: site.name, outcome: .notFound))
            }) else { return nil }
            var result = ResponderResult(response: miss.response, kind: .notFound, site: site.name, route: nil,
                                         client: request.peerAddress, scheme: "http")
            result.click = miss.click
            return answered(result, path, request)
        }
        return answer ?? nil
    }

    /// A request-target read once, byte by byte, for `plainLink`: where its path ends, and where a
    /// short-link code would start. nil — give way to the general path — for a target
    /// `isOriginForm` refuses, a path with a dot segment (`hasDotSegment`), or a path another step
    /// may claim: `/.…` (the association files, the resolve endpoint, and every other dot path go
    /// the general way), `/apple-app-site-association`, `/static/og/…`.
    struct PlainTarget {
        let count: Int
        /// The path's length (the offset of the first `?`, or `count`).
        let pathEnd: Int
        /// Where the code starts when the path is `{prefix}{code}` with no `/` in the code;
        /// `pathEnd` when it cannot be a short link.
        let codeStart: Int

        init?(_ bytes: UnsafeBufferPointer<UInt8>, shortLinkPrefix prefix: [UInt8]) {
            count = bytes.count
            guard let base = bytes.baseAddress, count > 0, base[0] == UInt8(ascii: "/") else { return nil }
            // The path up to `?`: no byte `isOriginForm` refuses; a dot or `%` seen (a dot segment
            // needs one). Then the query: no refused byte.
            var end = count
            var dotted = false
            var i = 0
            while i < count {
                let b = base[i]
                if b <= 0x20 || b == 0x7F { return nil }
                if b == UInt8(ascii: "?") {
                    end = i
                    break
                }
                if b == UInt8(ascii: ".") || b == UInt8(ascii: "%") { dotted = true }
                i += 1
            }
            while i < count {
                if base[i] <= 0x20 || base[i] == 0x7F { return nil }
                i += 1
            }
            pathEnd = end
            if end > 1 {
                switch base[1] {
                case UInt8(ascii: "."): return nil
                case UInt8(ascii: "a") where Responder.matches(base, end, "/apple-app-site-association"): return nil
                case UInt8(ascii: "s") where Responder.hasPrefix(base, end, "/static/og/"): return nil
                default: break
                }
            }
            if dotted && Responder.hasDotSegment(UnsafeBufferPointer(start: base, count: end)) { return nil }
            let start = prefix.count
            codeStart = end > start && prefix.withUnsafeBufferPointer({ Responder.hasPrefix(base, end, $0) })
                && memchr(base + start, Int32(UInt8(ascii: "/")), end - start) == nil ? start : end
        }
    }

    /// The `count` bytes at `base` start with `prefix`'s.
    static func hasPrefix(_ base: UnsafePointer<UInt8>, _ count: Int, _ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        prefix.count <= count && (prefix.isEmpty || memcmp(base, prefix.baseAddress!, prefix.count) == 0)
    }

    static func hasPrefix(_ base: UnsafePointer<UInt8>, _ count: Int, _ prefix: StaticString) -> Bool {
        hasPrefix(base, count, UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    /// The `count` bytes at `base` are `text`'s.
    static func matches(_ base: UnsafePointer<UInt8>, _ count: Int, _ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && memcmp(base, text.utf8Start, count) == 0
    }

    /// The generated preview cards' path prefix (`previewCard`).
    static let previewCardPrefix = "/static/og/"
}
