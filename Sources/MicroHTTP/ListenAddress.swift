#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One address the HTTP daemon listens on: a numeric IPv4 or IPv6 host and a TCP port.
///
/// Port 0 lets the operating system pick a free port; `HTTPDaemon.boundAddresses` reports it.
/// Host names are not resolved: the daemon binds exactly the address it is given
/// (use `0.0.0.0` or `::` for all interfaces).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// Numeric host, without brackets: `127.0.0.1`, `::1`, `0.0.0.0`, `::`.
    public var host: String
    public var port: UInt16
    /// IPv6 only: also accept IPv4 connections (as IPv4-mapped addresses) on this socket.
    public var dualStack: Bool

    public init(host: String, port: UInt16, dualStack: Bool = false) {
        self.host = host
        self.port = port
        self.dualStack = dualStack
    }

    /// Parses `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:80`, `[::]:8080`.
    public init(parsing text: String) throws(HTTPDaemonError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw .invalidAddress(text, reason: "missing ']' after the IPv6 address; write it as [::1]:8080")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw .invalidAddress(text, reason: "missing ':port' after ']'; write it as [::1]:8080")
            }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw .invalidAddress(text, reason: "missing ':port'; write it as 127.0.0.1:8080 or [::1]:8080")
            }
            host = text[..<colon]
            if host.contains(":") {
                throw .invalidAddress(text, reason: "an IPv6 address needs brackets; write it as [::1]:8080")
            }
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else {
            throw .invalidAddress(text, reason: "'\(portText)' is not a port number (0…65535; 0 lets the system pick)")
        }
        self.init(host: String(host), port: port)
        _ = try socketAddress()
    }

    /// True when `host` is an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The `sockaddr_in` / `sockaddr_in6` to bind, validated with `inet_pton`.
    func socketAddress() throws(HTTPDaemonError) -> SocketAddress {
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                throw .invalidAddress(description, reason: "'\(host)' is not a numeric IPv6 address")
            }
            return .v6(address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                throw .invalidAddress(
                    description,
                    reason: "'\(host)' is not a numeric IPv4 address (names are not resolved; use 127.0.0.1, 0.0.0.0, ::1 or ::)")
            }
            return .v4(address)
        }
    }
}

/// A bindable socket address (IPv4 or IPv6).
enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    func withSockaddrPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch self {
        case .v4(var address):
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(var address):
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Text form of a peer address; IPv4-mapped IPv6 addresses (dual-stack sockets) are shown as IPv4.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return numericText(family: AF_INET, &raw)
        case AF_INET6:
            var raw = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            let isMapped = withUnsafeBytes(of: &raw) { bytes in
                bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            }
            guard isMapped else { return numericText(family: AF_INET6, &raw) }
            var v4 = in_addr()
            withUnsafeMutableBytes(of: &v4) { target in
                withUnsafeBytes(of: &raw) { source in target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[12..<16])) }
            }
            return numericText(family: AF_INET, &v4)
        default:
            return ""
        }
    }

    private static func numericText<Address>(family: Int32, _ address: inout Address) -> String {
        withUnsafeBytes(of: &address) { bytes in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
                guard let text = inet_ntop(family, bytes.baseAddress, buffer.baseAddress, socklen_t(buffer.count)) else { return "" }
                return String(cString: text)
            }
        }
    }
}
