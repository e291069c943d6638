// Codes: the base62 arithmetic, lengths and alphabet of generated codes, and the refusals of
// codes that would shadow a route, an exclusion or a path the server answers itself.

import Foundation
import LinkRouting
import Testing

@testable import LinkStore

/// A generator that replays fixed words (for exact base62 results).
struct ReplayRNG: RandomNumberGenerator {
    var words: [UInt64]
    var i = 0
    mutating func next() -> UInt64 {
        defer { i += 1 }
        return words[i % words.count]
    }
}

@Suite struct ShortCodeTests {
    static let table: RouteTable = {
        let config = LinkwellConfig(sites: [
            SiteConfig(
                name: "fit", domains: ["fitconnect.app"],
                ios: [IOSAppConfig(teamID: "ABCDE12345", bundleID: "app.fit")],
                routes: [
                    .route(RouteConfig(name: "signup", path: "/signup")),
                    .route(RouteConfig(name: "workout", path: "/w/{id}")),
                    .route(RouteConfig(name: "pricing", path: "/pricing", query: ["plan": QueryParamConfig(required: true)])),
                    .exclusion(ExclusionConfig(exclude: "/admin/*")),
                ])
        ])
        return try! RouteTable(config: config)
    }()
    static var site: CompiledSite { table.site(named: "fit")! }

    @Test(arguments: [
        (UInt32(0), UInt64(0), "00000000000000000"),
        (0, 61, "0000000000000000z"),
        (0, 62, "00000000000000010"),
        (UInt32.max, UInt64.max, "1f2SI9UJPXvb7vdJ1"),  // 2^96 − 1, computed with Python's integers
    ])
    func base62(high: UInt32, low: UInt64, expected: String) {
        #expect(ShortCode.base62(high: high, low: low) == expected)
    }

    @Test func largestNinetySixBitNumberFitsInSeventeenCharacters() {
        let code = ShortCode.base62(high: .max, low: .max)
        #expect(code.count == 17)
        #expect(code == Self.referenceBase62(high: .max, low: .max))
        #expect(code.first != "0")  // 62^16 < 2^96: the top digit is used
    }

    /// Base62 by another method: (high, low) as two 64-bit words, divided with dividingFullWidth.
    static func referenceBase62(high: UInt32, low: UInt64) -> String {
        var hi = UInt64(high)
        var lo = low
        var out = ""
        for _ in 0..<17 {
            // (hi·2^64 + lo) = q·62 + r, with hi < 2^32 so hi·2^64 / 62 splits cleanly.
            let qh = hi / 62
            let rh = hi % 62
            let (ql, rl) = UInt64(62).dividingFullWidth((high: rh, low: lo))
            out = String(ShortCode.alphabet[Int(rl)]) + out
            hi = qh
            lo = ql
        }
        return out
    }

    @Test(arguments: [(UInt32(7), UInt64(123_456_789_012_345)), (0xDEAD_BEEF, 0x0123_4567_89AB_CDEF), (1, 0)])
    func base62MatchesAnIndependentDivision(high: UInt32, low: UInt64) {
        #expect(ShortCode.base62(high: high, low: low) == Self.referenceBase62(high: high, low: low))
    }

    @Test func unguessableUsesNinetySixBits() {
        var rng = ReplayRNG(words: [0xFFFF_FFFF_0000_0001, 0x0123_4567_89AB_CDEF])
        // High word: the low 32 bits of the first draw (1); low word: the second draw.
        #expect(ShortCode.unguessable(using: &rng) == ShortCode.base62(high: 1, low: 0x0123_4567_89AB_CDEF))
        var system = SystemRandomNumberGenerator()
        let codes = (0..<200).map { _ in ShortCode.unguessable(using: &system) }
        #expect(codes.allSatisfy { $0.count == 17 && $0.allSatisfy(ShortCode.alphabet.contains) })
        #expect(Set(codes).count == codes.count)
    }

    @Test(arguments: [0, 3, 4, 6, 9])
    func shortCodesHaveAtLeastFourCharacters(length: Int) {
        var rng = SystemRandomNumberGenerator()
        let code = ShortCode.short(length: length, using: &rng)
        #expect(code.count == max(length, 4))
        #expect(code.allSatisfy(ShortCode.alphabet.contains))
    }

    @Test(arguments: [
        ("abc123", nil as String?),
        ("Xy-_9", nil),
        ("signupx", nil),
        ("pricing", "'/pricing' is already route 'pricing' of site 'fit'; a short link there would hide it"),  // needs ?plan=…, still its path
        ("signup", "'/signup' is already route 'signup' of site 'fit'; a short link there would hide it"),
        ("admin", "'/admin' is excluded by '/admin/*' on site 'fit'; a short link there would contradict the exclusion"),
        ("administrator", nil),
        ("apple-app-site-association", "'/apple-app-site-association' is served by linkwell itself (association files, assets)"),
        (".well-known", "the code '.well-known' contains '.'; codes use only A–Z, a–z, 0–9, '-' and '_'"),
        ("static", "'/static' is served by linkwell itself (association files, assets)"),
        ("", "the code is empty"),
        ("a/b", "the code 'a/b' contains '/'; codes use only A–Z, a–z, 0–9, '-' and '_'"),
        ("café", "the code 'café' contains 'é'; codes use only A–Z, a–z, 0–9, '-' and '_'"),
        (String(repeating: "a", count: 65), "the code '\(String(repeating: "a", count: 65))' is longer than 64 characters"),
    ])
    func conflicts(code: String, reason: String?) {
        #expect(ShortCode.conflict(code: code, site: Self.site, table: Self.table) == reason)
    }

    @Test func generateSkipsTakenCodes() {
        var asked: [String] = []
        let code = ShortCode.generate(style: .short, site: Self.site, table: Self.table) { candidate in
            asked.append(candidate)
            return asked.count < 3  // the first two are taken
        }
        #expect(asked.count == 3)
        #expect(code == asked.last)
        let unguessable = ShortCode.generate(style: .unguessable, site: Self.site, table: Self.table) { _ in false }
        #expect(unguessable.count == 17)
    }

    @Test func shortCodesGrowWhenTheSpaceIsCrowded() {
        var asked = 0
        let code = ShortCode.generate(style: .short, site: Self.site, table: Self.table) { candidate in
            asked += 1
            return candidate.count == 4  // every 4-character code is taken
        }
        #expect(code.count == 5)
        #expect(asked == 9)
    }
}
