// Short-link codes: generated (short base62, or unguessable — 96 random bits as 17 base62
// characters) or imported as they are, and checked so that a code never shadows one of the
// site's routes, exclusions or the association files.

import LinkRouting

/// Making and checking short-link codes.
public enum ShortCode {
    /// The 62 characters of generated codes: digits, upper case, lower case.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// The shortest generated code.
    public static let minimumShortLength = 4
    /// Length of an unguessable code: 62^17 > 2^96, so 96 random bits always fit.
    public static let unguessableLength = 17
    /// Longest code accepted (imported or chosen).
    public static let maximumLength = 64

    /// Which kind of code to generate.
    public enum Style: String, Sendable, CaseIterable {
        /// `length` base62 characters (at least 4): easy to type, guessable by scanning.
        case short
        /// 17 base62 characters from 96 random bits: for links that must not be found by guessing.
        case unguessable
    }

    /// Paths at the root the server answers itself (the legacy AASA path, assets); no code may take
    /// them (`.well-known` is already refused for its dot).
    public static let reservedCodes: Set<String> = ["apple-app-site-association", "static"]

    /// A short code of `length` (≥ 4) characters drawn uniformly from ``alphabet``.
    public static func short<R: RandomNumberGenerator>(length: Int = minimumShortLength, using rng: inout R) -> String {
        let n = max(length, minimumShortLength)
        return String((0..<n).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// An unguessable code: 96 random bits written in base62, left-padded with `0` to 17 characters.
    public static func unguessable<R: RandomNumberGenerator>(using rng: inout R) -> String {
        let high = UInt32(truncatingIfNeeded: rng.next())  // 32 bits
        let low = rng.next()  // 64 bits
        return base62(high: high, low: low)
    }

    /// The 96-bit number `high·2^64 + low` in base62, exactly ``unguessableLength`` characters.
    public static func base62(high: UInt32, low: UInt64) -> String {
        // Long division of the 96-bit number held as three 32-bit limbs.
        var limbs: [UInt64] = [UInt64(high), low >> 32, low & 0xFFFF_FFFF]
        var digits: [Character] = []
        for _ in 0..<unguessableLength {
            var remainder: UInt64 = 0
            for i in limbs.indices {
                let value = (remainder << 32) | limbs[i]
                limbs[i] = value / 62
                remainder = value % 62
            }
            digits.append(alphabet[Int(remainder)])
        }
        return String(digits.reversed())
    }

    /// A code of `style` for `site` that is free: not taken (`isTaken`) and not refused by
    /// ``conflict(code:site:table:)``. Short codes grow by one character after 8 misses in a row.
    public static func generate(
        style: Style, length: Int = minimumShortLength, site: CompiledSite, table: RouteTable, isTaken: (String) throws -> Bool
    ) rethrows -> String {
        var rng = SystemRandomNumberGenerator()
        var n = max(length, minimumShortLength)
        var misses = 0
        while true {
            let code = style == .short ? short(length: n, using: &rng) : unguessable(using: &rng)
            if conflict(code: code, site: site, table: table) == nil, try !isTaken(code) { return code }
            misses += 1
            if misses % 8 == 0 { n += 1 }
        }
    }

    /// Why `code` cannot be a short link on `site`, or nil when it can: characters outside
    /// `A–Z a–z 0–9 - _`, too long, a path the server answers itself, or a path `/{code}` that
    /// one of the site's routes or exclusions already decides (`{prefix}{code}` with a `shortLinks.prefix`).
    public static func conflict(code: String, site: CompiledSite, table: RouteTable) -> String? {
        if code.isEmpty { return "the code is empty" }
        if code.utf8.count > maximumLength { return "the code '\(code)' is longer than \(maximumLength) characters" }
        if let bad = code.unicodeScalars.first(where: { !isCodeCharacter($0) }) {
            return "the code '\(code)' contains '\(bad)'; codes use only A–Z, a–z, 0–9, '-' and '_'"
        }
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        let path = prefix + code
        if prefix == "/", reservedCodes.contains(code) { return "'/\(code)' is served by linkwell itself (association files, assets)" }
        // The path alone, then with each route's required query parameters filled in: a route
        // that needs `?plan=…` still owns `/pricing`.
        let queries: [String?] = [nil] + site.routes.map(\.requiredQuery).filter { !$0.isEmpty }.map { $0.map { "\($0)=x" }.joined(separator: "&") }
        for query in queries {
            switch table.resolve(site: site, path: path, query: query, fragment: nil) {
            case let .matched(m):
                return "'\(path)' is already route '\(m.route)' of site '\(site.name)'; a short link there would hide it"
            case let .excluded(_, _, pattern):
                return "'\(path)' is excluded by '\(pattern)' on site '\(site.name)'; a short link there would contradict the exclusion"
            case .noRoute, .unknownHost, .unsupported:
                continue
            }
        }
        return nil
    }

    public static func isCodeCharacter(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": return true
        default: return false
        }
    }
}
