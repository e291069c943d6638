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
    /// The three exact paths, as bytes, with the kind each answers; the index also picks the
    /// path's `String` for the access log (`wellKnownPathStrings`).
    static let wellKnownPaths: [(bytes: [UInt8], kind: RequestKind)] = [
        (Array("/.well-known/apple-app-site-association".utf8), .aasa),
        (Array("/apple-app-site-association".utf8), .aasa),
        (Array(assetLinksPath.utf8), .assetlinks),
    ]
    static let wellKnownPathStrings: [String] = wellKnownPaths.map { String(decoding: $0.bytes, as: UTF8.self) }

    /// A request for an association file, answered; nil: take the general path (`respond`).
    /// `path` is the matched path's `String` (for the access log, which logs the path as sent).
    static func wellKnown(_ snapshot: Snapshot, _ request: HTTPRequest) -> (result: ResponderResult, path: String)? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        guard let which = wellKnownPathIndex(request.rawTarget) else { return nil }
        guard request.headerCount(.forwarded) == 0, request.headerCount(.xForwardedFor) == 0,
              request.headerCount(.xForwardedProto) == 0, request.headerCount(.xForwardedHost) == 0,
              request.headerCount(.ifNoneMatch) <= 1 else { return nil }
        guard let index = snapshot.table.siteIndex(forHost: request.header(.host) ?? "") else { return nil }
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
            var pathEnd = bytes.count
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b <= 0x20 || b == 0x7F { return nil }
                if b == UInt8(ascii: "?") && pathEnd == bytes.count { pathEnd = i }
            }
            // Each path has its own length: one memcmp at most.
            for (i, path) in wellKnownPaths.enumerated() where path.bytes.count == pathEnd {
                return path.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, pathEnd) == 0 } ? i : nil
            }
            return nil
        }
        if let found = target.utf8.withContiguousStorageIfAvailable(find) { return found }
        return Array(target.utf8).withUnsafeBufferPointer(find)
    }
}
