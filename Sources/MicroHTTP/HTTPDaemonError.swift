#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the HTTP daemon could not start. `description` is the sentence to show the operator.
public enum HTTPDaemonError: Error, Equatable, CustomStringConvertible {
    /// The listen address could not be parsed (`text` as given, and what is wrong with it).
    case invalidAddress(String, reason: String)
    /// The socket could not be bound or libmicrohttpd could not start on it.
    case cannotListen(ListenAddress, cause: String)
    /// An option is out of range.
    case invalidOption(String)

    public var description: String {
        switch self {
        case let .invalidAddress(text, reason):
            "invalid listen address '\(text)': \(reason)"
        case let .cannotListen(address, cause):
            "cannot listen on \(address): \(cause)"
        case let .invalidOption(message):
            "invalid HTTP daemon option: \(message)"
        }
    }

    /// The operator-facing cause for a failed `bind`, with a hint at the fix.
    static func bindCause(errno code: Int32, address: ListenAddress) -> String {
        switch code {
        case EADDRINUSE:
            "address already in use — is another linkwell or nginx running? pick another port with --listen"
        case EACCES:
            "permission denied — ports below 1024 need root or CAP_NET_BIND_SERVICE; pick a port from 1024 up with --listen"
        case EADDRNOTAVAIL:
            "address not available — \(address.host) is not an address of this machine; use 127.0.0.1, ::1, 0.0.0.0 or :: with --listen"
        case EAFNOSUPPORT:
            "\(address.isIPv6 ? "IPv6" : "IPv4") is not available on this machine"
        default:
            String(cString: strerror(code))
        }
    }
}
