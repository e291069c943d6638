import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A response body made of byte ranges in output order, each taken from `constant` (bytes shared
/// by every request, such as a compiled page's literal text) or from `written` (this request's
/// own bytes). libmicrohttpd sends the ranges in place (`MHD_create_response_from_iovec`): the
/// constant bytes are never copied, and the body keeps both arrays alive until libmicrohttpd has
/// sent the last byte, even when the snapshot that made `constant` is gone by then.
public final class SpanBody: @unchecked Sendable {
    // @unchecked: immutable after `init`; libmicrohttpd reads the arrays' storage from its threads.

    /// Bytes shared across requests.
    public let constant: [UInt8]
    /// This request's bytes.
    public let written: [UInt8]
    /// Pairs `start, end` of offsets into `constant` followed by `written` (an offset of
    /// `constant.count + k` is byte `k` of `written`); each pair lies within one of the two.
    public let spans: [Int32]
    /// Body length in bytes.
    public let count: Int

    public init(constant: [UInt8], written: [UInt8], spans: [Int32]) {
        precondition(spans.count % 2 == 0, "SpanBody spans come in start, end pairs")
        var total = 0
        var i = 0
        let limit = constant.count + written.count
        while i < spans.count {
            let start = Int(spans[i])
            let end = Int(spans[i + 1])
            precondition(start >= 0 && start <= end && end <= limit && (end <= constant.count || start >= constant.count),
                         "SpanBody span \(start)..<\(end) does not lie within the constant (\(constant.count) bytes) or the written bytes (\(written.count))")
            total += end - start
            i += 2
        }
        self.constant = constant
        self.written = written
        self.spans = spans
        self.count = total
    }

    /// The body's bytes, copied into one array.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        let split = constant.count
        var i = 0
        while i < spans.count {
            let start = Int(spans[i])
            let end = Int(spans[i + 1])
            if end <= split && start < split {
                out += constant[start..<end]
            } else {
                out += written[(start - split)..<(end - split)]
            }
            i += 2
        }
        return out
    }

    /// A libmicrohttpd response over the spans; the body stays alive (retained) until
    /// libmicrohttpd destroys the response. nil when libmicrohttpd could not make it.
    func makeResponse() -> OpaquePointer? {
        let pairs = spans.count / 2
        let split = constant.count
        return constant.withUnsafeBytes { constantBytes in
            written.withUnsafeBytes { writtenBytes in
                withUnsafeTemporaryAllocation(of: MHD_IoVec.self, capacity: max(pairs, 1)) { iov in
                    var n = 0
                    var i = 0
                    while i < spans.count {
                        let start = Int(spans[i])
                        let end = Int(spans[i + 1])
                        i += 2
                        guard end > start else { continue }
                        let base = start < split ? constantBytes.baseAddress! + start : writtenBytes.baseAddress! + (start - split)
                        iov[n] = MHD_IoVec(iov_base: base, iov_len: end - start)
                        n += 1
                    }
                    // The pointers stay valid: the arrays are never mutated and this object,
                    // retained here, keeps their storage until `releaseSpanBody` runs.
                    let retained = Unmanaged.passRetained(self).toOpaque()
                    guard let response = MHD_create_response_from_iovec(iov.baseAddress, UInt32(n), releaseSpanBody, retained) else {
                        Unmanaged<SpanBody>.fromOpaque(retained).release()
                        return nil
                    }
                    return response
                }
            }
        }
    }
}

/// libmicrohttpd's free callback of a `SpanBody` response: drops the body's reference.
private let releaseSpanBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<SpanBody>.fromOpaque(cls).release()
}
