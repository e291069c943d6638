import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exact bytes to a server and back, over a plain TCP connection: for tests, fuzzing and probes
/// that must send what no HTTP client would (a half-sent head, bare LF, a NUL byte).
public enum RawClient {
    /// Why an exchange could not happen; `description` names the address and the cause.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Connects to `address`, sends `bytes`, half-closes the connection when `halfClose` (so the
    /// server sees the end of the request stream), and returns everything read until the server
    /// closes or `timeoutSeconds` pass without a byte. A server that closes early, before taking
    /// all the bytes, is not a failure: the reply so far is returned.
    public static func exchange(_ bytes: [UInt8], to address: ListenAddress, halfClose: Bool = false, timeoutSeconds: Int = 5) throws(Failure) -> [UInt8] {
        let socketAddress: SocketAddress
        do { socketAddress = try address.socketAddress() } catch { throw Failure(description: error.description) }
        let fd = socket(socketAddress.family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A signal (libFuzzer's timer, a profiler) interrupts connect, send and recv with EINTR:
        // an interrupted connect goes on in the background, so wait for it instead of failing.
        if socketAddress.withSockaddrPointer({ connect(fd, $0, $1) }) != 0 {
            var pending = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = errno, length = socklen_t(MemoryLayout<Int32>.size)
            if error == EINTR {
                while poll(&pending, 1, Int32(timeoutSeconds * 1000)) < 0 && errno == EINTR {}
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            }
            guard error == 0 else {
                throw Failure(description: "cannot connect to \(address): \(String(cString: strerror(error)))")
            }
        }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            sent += n
        }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return reply }
            reply += buffer[..<n]
        }
    }
}
