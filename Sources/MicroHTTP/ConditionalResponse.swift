/// A 200 response built once, with its strong ETag and the matching 304, for bytes that do not
/// depend on the request (association files, static assets).
public struct ConditionalResponse: Sendable {
    public let etag: String
    public let ok: PreparedResponse
    public let notModified: PreparedResponse

    public init(body: [UInt8], contentType: String, cacheControl: String) {
        let etag = EntityTag.strong(for: body)
        self.etag = etag
        ok = PreparedResponse(
            status: 200,
            headers: [("Content-Type", contentType), ("ETag", etag), ("Cache-Control", cacheControl),
                      ("X-Content-Type-Options", "nosniff")],
            body: body)
        notModified = PreparedResponse(status: 304, headers: [("ETag", etag), ("Cache-Control", cacheControl)], body: [])
    }

    /// The 304 when `If-None-Match` matches the ETag, else the 200.
    public func respond(ifNoneMatch: String?) -> HTTPResponse {
        EntityTag.noneMatchHits(ifNoneMatch, etag: etag) ? .prepared(notModified) : .prepared(ok)
    }
}
