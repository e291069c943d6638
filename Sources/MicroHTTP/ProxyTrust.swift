/// Which peers' `Forwarded` / `X-Forwarded-*` headers are believed, and what they say.
public struct ProxyTrust: Sendable {
    public let networks: [IPNetwork]

    /// Loopback only: `127.0.0.0/8`, `::1/128`.
    public static let defaultCIDRs = ["127.0.0.0/8", "::1/128"]

    public init(networks: [IPNetwork]) {
        self.networks = networks
    }

    /// Entries that are not CIDRs or addresses are dropped: build from a validated list.
    public init(cidrs: [String]) {
        networks = cidrs.compactMap(IPNetwork.init)
    }

    public func trusts(_ address: String) -> Bool {
        guard let ip = IPAddress(address) else { return false }
        return networks.contains { $0.contains(ip) }
    }

    /// The client as the proxies report it.
    public struct Resolution: Sendable, Equatable {
        /// The client address (for logs): the peer, or what a trusted proxy says.
        public var client: String
        /// `http` or `https`.
        public var scheme: String
        /// The Host used to select the site.
        public var host: String?
    }

    /// Applies the forwarding headers when the peer is trusted: RFC 7239 `Forwarded` wins over
    /// `X-Forwarded-For/-Proto/-Host`. From any other peer they are ignored.
    public func resolve(_ facts: RequestFacts) -> Resolution {
        var result = Resolution(client: facts.peerAddress, scheme: "http", host: facts.host)
        // Most requests carry no forwarding header: nothing to believe, no address to parse.
        if facts.forwarded.isEmpty && facts.xForwardedFor.isEmpty && facts.xForwardedProto.isEmpty && facts.xForwardedHost.isEmpty {
            return result
        }
        guard trusts(facts.peerAddress) else { return result }

        let elements = facts.forwarded.flatMap(Self.parseForwarded)
        if !elements.isEmpty {
            // Right to left: skip hops added by trusted proxies; the first untrusted `for` is the client.
            var chosen = elements.count - 1
            var client: String? = nil
            for i in stride(from: elements.count - 1, through: 0, by: -1) {
                guard let node = elements[i]["for"].map(Self.nodeAddress) else { continue }
                chosen = i
                client = node
                if !trusts(node) { break }
            }
            if let client, !client.isEmpty { result.client = client }
            if let proto = (elements[chosen]["proto"] ?? elements.last?["proto"]).flatMap(Self.scheme) { result.scheme = proto }
            if let host = (elements[chosen]["host"] ?? elements.last?["host"]), Self.plausibleHost(host) { result.host = host }
            return result
        }

        let chain = facts.xForwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
        if !chain.isEmpty {
            var client = chain[0]
            for hop in chain.reversed() {
                client = hop
                if !trusts(hop) { break }
            }
            result.client = Self.nodeAddress(client)
        }
        if let last = facts.xForwardedProto.last?.split(separator: ",").last.map({ String($0.trimmingSpaces) }),
           let proto = Self.scheme(last) {
            result.scheme = proto
        }
        if let last = facts.xForwardedHost.last?.split(separator: ",").last.map({ String($0.trimmingSpaces) }),
           Self.plausibleHost(last) {
            result.host = last
        }
        return result
    }

    /// `for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8::1]:4711"` → one dictionary per
    /// element, lower-cased keys, quotes removed.
    static func parseForwarded(_ header: String) -> [[String: String]] {
        var elements: [[String: String]] = []
        var current: [String: String] = [:]
        var key = "", value = "", inKey = true, inQuotes = false, escaped = false
        func endPair() {
            let k = key.trimmingSpaces.lowercased()
            if !k.isEmpty, current[k] == nil { current[k] = String(value.trimmingSpaces) }
            key = ""; value = ""; inKey = true
        }
        for ch in header {
            if inQuotes {
                if escaped { value.append(ch); escaped = false }
                else if ch == "\\" { escaped = true }
                else if ch == "\"" { inQuotes = false }
                else { value.append(ch) }
                continue
            }
            switch ch {
            case "\"" where !inKey: inQuotes = true
            case "=" where inKey: inKey = false
            case ";": endPair()
            case ",":
                endPair()
                if !current.isEmpty { elements.append(current) }
                current = [:]
            default:
                if inKey { key.append(ch) } else { value.append(ch) }
            }
        }
        endPair()
        if !current.isEmpty { elements.append(current) }
        return elements
    }

    /// `[2001:db8::1]:4711` → `2001:db8::1`; `192.0.2.1:80` → `192.0.2.1`; other text as is.
    static func nodeAddress(_ node: String) -> String {
        if node.hasPrefix("["), let close = node.firstIndex(of: "]") {
            return String(node[node.index(after: node.startIndex)..<close])
        }
        if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") {
            return String(node[..<colon])
        }
        return node
    }

    static func scheme(_ value: String) -> String? {
        let v = value.lowercased()
        return v == "http" || v == "https" ? v : nil
    }

    static func plausibleHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: ":")
                    || b == UInt8(ascii: "[") || b == UInt8(ascii: "]") || b == UInt8(ascii: "_")
            }
    }
}
