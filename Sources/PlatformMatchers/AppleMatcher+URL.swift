// The URL side of AASA matching, parsed by hand: `scheme://authority/path?query#fragment`.
//
// The URL is taken as a browser sends it. Characters a browser would percent-encode (raw Unicode,
// spaces, quotes…) are encoded here the same way, with upper-case hex, per the WHATWG URL
// standard's per-component encode sets; escapes already present are kept exactly as written (so
// their hex case stays significant). Foundation's `URL` is deliberately not used: its parsing
// differs between platforms and versions, and it rejects URLs that browsers send.

extension AppleMatcher {
    /// A URL split into the texts that patterns are compared with.
    struct TargetURL {
        let path: TextVariants
        let query: TextVariants
        let fragment: TextVariants
        /// Query items by decoded name; values decoded, a missing `=` giving an empty value.
        let queryItems: [String: [QueryValue]]

        /// `nil` when the string is not an absolute `http`/`https` URL with a host.
        init?(_ string: String) {
            let bytes = Array(string.utf8)
            let n = bytes.count
            var i = 0

            // scheme "://"
            guard n > 0, PercentCoding.isAlpha(bytes[0]) else { return nil }
            while i < n, PercentCoding.isAlpha(bytes[i]) || PercentCoding.isDigit(bytes[i])
                || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: ".")
            {
                i += 1
            }
            let scheme = String(decoding: bytes[0..<i], as: UTF8.self).lowercased()
            guard scheme == "https" || scheme == "http" else { return nil }
            guard i + 3 <= n, bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/")
            else { return nil }
            i += 3

            // authority: [userinfo@]host[:port]
            let authorityStart = i
            while i < n, bytes[i] != UInt8(ascii: "/"), bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#") { i += 1 }
            guard TargetURL.isValidAuthority(bytes[authorityStart..<i]) else { return nil }

            // path, query, fragment
            let pathStart = i
            while i < n, bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#") { i += 1 }
            var rawPath = Array(bytes[pathStart..<i])
            if rawPath.isEmpty { rawPath = [UInt8(ascii: "/")] }
            var rawQuery: [UInt8] = []
            if i < n, bytes[i] == UInt8(ascii: "?") {
                i += 1
                let queryStart = i
                while i < n, bytes[i] != UInt8(ascii: "#") { i += 1 }
                rawQuery = Array(bytes[queryStart..<i])
            }
            var rawFragment: [UInt8] = []
            if i < n, bytes[i] == UInt8(ascii: "#") {
                rawFragment = Array(bytes[(i + 1)...])
            }

            let encodedQuery = PercentCoding.encode(rawQuery, component: .query)
            path = TextVariants(encoded: PercentCoding.encode(rawPath, component: .path), isPath: true)
            query = TextVariants(encoded: encodedQuery, isPath: false)
            fragment = TextVariants(encoded: PercentCoding.encode(rawFragment, component: .fragment), isPath: false)
            queryItems = TargetURL.items(of: encodedQuery)
        }

        private static func isValidAuthority(_ authority: ArraySlice<UInt8>) -> Bool {
            // Nothing a browser would send raw: no space, no control character, no backslash.
            if authority.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) { return false }
            var hostPort = authority
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) { hostPort = authority[(at + 1)...] }
            var host = hostPort
            var port: ArraySlice<UInt8> = []
            if hostPort.first == UInt8(ascii: "[") {
                guard let close = hostPort.firstIndex(of: UInt8(ascii: "]")) else { return false }
                host = hostPort[...close]
                let rest = hostPort[(close + 1)...]
                if let first = rest.first {
                    guard first == UInt8(ascii: ":") else { return false }
                    port = rest.dropFirst()
                }
            } else if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) {
                host = hostPort[..<colon]
                port = hostPort[(colon + 1)...]
            }
            return !host.isEmpty && port.allSatisfy(PercentCoding.isDigit)
        }

        private static func items(of encodedQuery: [UInt8]) -> [String: [QueryValue]] {
            var items: [String: [QueryValue]] = [:]
            guard !encodedQuery.isEmpty else { return items }
            for item in encodedQuery.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                let name: ArraySlice<UInt8>
                let value: ArraySlice<UInt8>
                if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                    name = item[..<equals]
                    value = item[(equals + 1)...]
                } else {
                    name = item
                    value = []
                }
                let decodedName = String(decoding: PercentCoding.decode(name), as: UTF8.self)
                let decodedValue = Array(String(decoding: PercentCoding.decode(value), as: UTF8.self).unicodeScalars)
                items[decodedName, default: []].append(QueryValue(decodedValue))
            }
            return items
        }
    }

    /// A URL component's text in the four forms a pattern may ask for.
    struct TextVariants {
        let encoded: [Unicode.Scalar]
        let decoded: [Unicode.Scalar]
        let encodedFolded: [Unicode.Scalar]
        let decodedFolded: [Unicode.Scalar]

        /// - Parameter isPath: drop the run of trailing `/` (not the root's): trailing slashes are
        ///   insignificant, however many (a recorded swcutil run: `/buy/` matches `/buy//`).
        init(encoded bytes: [UInt8], isPath: Bool) {
            var encoded = bytes.map { Unicode.Scalar($0) }
            var decoded = Array(String(decoding: PercentCoding.decode(bytes[...]), as: UTF8.self).unicodeScalars)
            if isPath {
                while encoded.count > 1, encoded.last == "/" { encoded.removeLast() }
                while decoded.count > 1, decoded.last == "/" { decoded.removeLast() }
            }
            self.encoded = encoded
            self.decoded = decoded
            encodedFolded = Pattern.fold(encoded)
            decodedFolded = Pattern.fold(decoded)
        }

        func text(for pattern: Pattern) -> [Unicode.Scalar] {
            switch (pattern.percentEncoded, pattern.caseSensitive) {
            case (true, true): return encoded
            case (true, false): return encodedFolded
            case (false, true): return decoded
            case (false, false): return decodedFolded
            }
        }
    }

    /// One decoded query-item value, as written and folded.
    struct QueryValue {
        let value: [Unicode.Scalar]
        let folded: [Unicode.Scalar]

        init(_ value: [Unicode.Scalar]) {
            self.value = value
            folded = Pattern.fold(value)
        }

        static let empty = QueryValue([])

        func text(for pattern: Pattern) -> [Unicode.Scalar] {
            pattern.caseSensitive ? value : folded
        }
    }

    enum PercentCoding {
        enum Component {
            case path, query, fragment
        }

        static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

        static func hexValue(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }

        /// Percent-encodes what a browser would (the WHATWG path, query and fragment encode sets,
        /// for a special scheme): controls, space, non-ASCII bytes and a few punctuation marks.
        /// `%` is kept as written.
        static func encode(_ bytes: [UInt8], component: Component) -> [UInt8] {
            func needsEncoding(_ b: UInt8) -> Bool {
                if b <= 0x20 || b >= 0x7F { return true }
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"): return true
                case UInt8(ascii: "`"): return component != .query
                case UInt8(ascii: "{"), UInt8(ascii: "}"): return component == .path
                case UInt8(ascii: "'"): return component == .query
                default: return false
                }
            }
            guard bytes.contains(where: needsEncoding) else { return bytes }
            let hex = Array("0123456789ABCDEF".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count * 3)
            for b in bytes {
                if needsEncoding(b) {
                    out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
                } else {
                    out.append(b)
                }
            }
            return out
        }

        /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays as it is.
        /// (`+` is not a space: iOS reads query items as `URLComponents` does.)
        static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            guard bytes.contains(UInt8(ascii: "%")) else { return Array(bytes) }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var i = bytes.startIndex
            while i < bytes.endIndex {
                if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.endIndex,
                    let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
                {
                    out.append(high << 4 | low)
                    i += 3
                } else {
                    out.append(bytes[i])
                    i += 1
                }
            }
            return out
        }
    }
}
