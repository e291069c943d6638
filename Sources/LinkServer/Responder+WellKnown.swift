import MicroHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The association files straight from the request: most requests a link domain gets are for
/// `apple-app-site-association` and `assetlinks.json` (every app install, every OS check), and
/// their answer depends only on the site and `If-None-Match`. This step compares the target's
/// path bytes with the three exact paths, finds the site's index by the Host bytes and queues the
/// snapshot's prepared 200 or 304 — no `RequestFacts`, no proxy resolution, no copy of the site.
///
/// It answers exactly what `route` would, and gives way to it (nil) whenever anything could make
/// the general path answer differently: a method other than GET/HEAD, a forwarding header (a
/// trusted proxy may change the Host, client and scheme), a repeated `If-None-Match`, no site for
/// the Host, a site without the file (its 404 says why), a target byte `isOriginForm` refuses.
extension Responder {
    /// The three exact paths with the kind each answers; the index also picks the path's `String`
    /// for the access log (`wellKnownPathStrings`).
    static let wellKnownPaths: [(path: StaticString, kind: RequestKind)] = [
        ("/.well-known/apple-app-site-association", .aasa),
        ("/apple-app-site-association", .aasa),
        ("/.well-known/assetlinks.json", .assetlinks),
    ]
    static let wellKnownPathStrings: [String] = wellKnownPaths.map { $0.path.description }
    static let shortestWellKnownPath = wellKnownPaths.map(\.path.utf8CodeUnitCount).min()!

    /// A request for an association file, answered; nil: take the general path (`respond`).
    /// `path` is the matched path's `String` (for the access log, which logs the path as sent).
    static func wellKnown(_ snapshot: Snapshot, _ request: HTTPRequest) -> (result: ResponderResult, path: String)? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        guard let which = wellKnownPathIndex(request.rawTarget) else { return nil }
        guard request.forwardingHeaderLines == 0,
              request.headerCount(.ifNoneMatch) <= 1 else { return nil }
        guard let index = HostMemo.siteIndex(snapshot, host: request.header(.host) ?? "") else { return nil }
        let site = snapshot.sites[index]
        let kind = wellKnownPaths[which].kind
        guard let file = kind == .aasa ? site.aasa : site.assetLinks else { return nil }
        let response = file.respond(ifNoneMatch: request.header(.ifNoneMatch))
        return (ResponderResult(response: response, kind: kind, site: site.name, route: nil, client: request.peerAddress, scheme: "http"),
                wellKnownPathStrings[which])
    }

    /// Which of `wellKnownPaths` the target's path (before `?`) is, byte for byte; nil for any
    /// other target, or one with a byte `isOriginForm` refuses (a space, a control byte, DEL).
    static func wellKnownPathIndex(_ target: String) -> Int? {
        func find(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
            // Shorter than the shortest path, or not `/.…` or `/a…`: none of them (most links).
            guard let base = bytes.baseAddress, bytes.count >= shortestWellKnownPath,
                  base[1] == UInt8(ascii: ".") || base[1] == UInt8(ascii: "a") else { return nil }
            let question = memchr(base, Int32(UInt8(ascii: "?")), bytes.count)
            let pathEnd = question.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? bytes.count
            // Each path has its own length: one memcmp at most. A path equal to one of them has
            // no byte `isOriginForm` refuses; the query is checked below.
            guard let which = wellKnownPaths.firstIndex(where: { $0.path.utf8CodeUnitCount == pathEnd }),
                  memcmp(base, wellKnownPaths[which].path.utf8Start, pathEnd) == 0 else { return nil }
            for i in pathEnd..<bytes.count where bytes[i] <= 0x20 || bytes[i] == 0x7F { return nil }
            return which
        }
        if let found = target.utf8.withContiguousStorageIfAvailable(find) { return found }
        return Array(target.utf8).withUnsafeBufferPointer(find)
    }
}
