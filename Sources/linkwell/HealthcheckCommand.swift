// linkwell healthcheck — one HTTP GET over a plain POSIX socket, for a container HEALTHCHECK
// in an image that has no curl or wget: exit 0 on a 2xx answer, 1 otherwise.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LinkRouting

enum HealthcheckCommand: LinkwellCommand {
    static let spec = CommandSpec(
        name: "healthcheck",
        overview: "GET an http:// URL (normally the admin port's /healthz) and exit 0 when it answers 2xx.",
        abstract: "GET a loopback URL and exit 0 on 2xx (container HEALTHCHECK; no curl needed).",
        arguments: [ArgumentSpec(name: "<url>", help: "http://host:port/path (default http://127.0.0.1:9090/healthz). Plain HTTP only.", arity: .optional)],
        options: [timeout.spec, json.spec],
        discussion: "Dockerfile: HEALTHCHECK CMD [\"/usr/local/bin/linkwell\", \"healthcheck\", \"http://127.0.0.1:9090/healthz\"]"
    )

    static let timeout = Option<Seconds>("--timeout", "seconds", help: "Time limit for connecting and for the answer (default 3).")
    static let json = Flag("--json", help: "Print {\"url\", \"healthy\", \"status\" or \"error\"} on stdout instead of the one-line verdict.")

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count <= 1 else { throw UsageError(message: "give at most one URL") }
        let text = args.positional.first ?? "http://127.0.0.1:9090/healthz"
        guard let url = URLParts(text), url.scheme == "http", !url.host.isEmpty else {
            throw UsageError(message: "'\(text)' is not an http:// URL")
        }
        let seconds = args[timeout]?.value ?? 3
        let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        let outcome = get(host: url.host, port: url.port ?? 80, path: path, timeout: seconds)
        if args.has(json) {
            struct Verdict: Encodable {
                var url: String
                var healthy: Bool
                var status: Int?
                var error: String?
            }
            let verdict: Verdict
            switch outcome {
            case let .success(status): verdict = Verdict(url: text, healthy: (200..<300).contains(status), status: status)
            case let .failure(message): verdict = Verdict(url: text, healthy: false, error: message)
            }
            Output.json(verdict)
            return verdict.healthy ? 0 : 1
        }
        switch outcome {
        case let .success(status) where (200..<300).contains(status):
            Output.out("healthy: \(text) answered \(status)")
            return 0
        case let .success(status):
            Output.err("unhealthy: \(text) answered \(status)")
            return 1
        case let .failure(message):
            Output.err("unhealthy: \(text): \(message)")
            return 1
        }
    }

    enum Outcome {
        case success(Int)
        case failure(String)
    }

    static func get(host: String, port: Int, path: String, timeout: Int) -> Outcome {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let rc = getaddrinfo(bare, String(port), &hints, &list)
        guard rc == 0, let first = list else { return .failure("cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))") }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            cursor = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd < 0 { lastError = String(cString: strerror(errno)); continue }
            defer { close(fd) }
            var tv = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))  // Linux: bounds connect() too
            guard connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
                lastError = "connect: \(String(cString: strerror(errno)))"
                continue
            }
            let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUser-Agent: linkwell-healthcheck\r\nConnection: close\r\n\r\n".utf8)
            var sent = 0
            while sent < request.count {
                let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return .failure("send: \(String(cString: strerror(errno)))") }
                sent += n
            }
            // The status line is all we need.
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while !received.contains(0x0A), received.count < 4096 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 { return .failure("no answer: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                received += buffer[0..<n]
            }
            let line = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                return .failure("not an HTTP answer: '\(line.prefix(80))'")
            }
            return .success(status)
        }
        return .failure(lastError)
    }
}
