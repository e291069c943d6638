import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A libmicrohttpd response built once and queued any number of times, from any thread.
///
/// The body lives in a buffer this object allocates; libmicrohttpd serves it without copying
/// (persistent memory) and frees it when the last reference to the response goes away — this
/// object's, or that of a connection still sending it after the object is gone (for example a
/// download that outlives a configuration reload).
public final class PreparedResponse: @unchecked Sendable {
    // @unchecked: `response` is an MHD_Response, which libmicrohttpd reference-counts under its
    // own mutex and never mutates after the headers below are added in `init`.

    public let status: Int
    /// The headers as given, minus any libmicrohttpd refused (see `rejectedHeaders`).
    public let headers: [(String, String)]
    /// Header names libmicrohttpd refused (`Content-Length`, which it computes itself, or a
    /// name/value with CR/LF). Check this when building a snapshot.
    public let rejectedHeaders: [String]
    /// Body length in bytes (also the `Content-Length` a `HEAD` request reports).
    public let bodyCount: Int

    /// `PoolRoom.headerBlockBytes` of `headers`, counted once.
    let headerBlockBytes: Int
    let response: OpaquePointer
    private let bodyStorage: UnsafeMutableRawPointer

    /// - Parameters:
    ///   - status: 100…999.
    ///   - headers: sent in this order after the status line; libmicrohttpd adds
    ///     `Content-Length`, `Date` and, when needed, `Connection`.
    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        precondition((100...999).contains(status), "HTTP status \(status) is outside 100…999")
        let storage = malloc(max(body.count, 1))!
        body.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { storage.copyMemory(from: base, byteCount: bytes.count) }
        }
        // Persistent (no copy) and freed by libmicrohttpd together with the response.
        guard let response = MHD_create_response_from_buffer_with_free_callback(body.count, storage, free) else {
            free(storage)
            fatalError("libmicrohttpd could not create a response (out of memory)")
        }
        var accepted: [(String, String)] = []
        var rejected: [String] = []
        for (name, value) in headers {
            if MHD_add_response_header(response, name, value) == .YES {
                accepted.append((name, value))
            } else {
                rejected.append(name)
            }
        }
        self.status = status
        self.headers = accepted
        self.headerBlockBytes = PoolRoom.headerBlockBytes(accepted)
        self.rejectedHeaders = rejected
        self.bodyCount = body.count
        self.response = response
        self.bodyStorage = storage
    }

    /// A copy of the body bytes.
    public var body: [UInt8] {
        Array(UnsafeRawBufferPointer(start: bodyStorage, count: bodyCount))
    }

    /// Calls `body` with the body bytes, without copying.
    public func withBodyBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: bodyStorage, count: bodyCount))
    }

    deinit {
        // Drops this object's reference; the body is freed when no connection uses it any more.
        MHD_destroy_response(response)
    }
}
