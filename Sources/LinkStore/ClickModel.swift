// What a click is, as counted: the dimensions of one request for a link (no IP address, no
// User-Agent, no cookie, no URL beyond the referrer's host), UTC days as yyyymmdd numbers, and the
// referrer reduced to its host.

/// The platform a click came from, from the User-Agent.
public enum ClickPlatform: Int, Sendable, CaseIterable, Codable {
    case ios, android, desktop
    /// No User-Agent at all (scripts, some link checkers).
    case other

    public var name: String { ["ios", "android", "desktop", "other"][rawValue] }
    public init?(name: String) {
        guard let i = ["ios", "android", "desktop", "other"].firstIndex(of: name) else { return nil }
        self.init(rawValue: i)
    }
}

/// How a click was answered.
public enum ClickOutcome: Int, Sendable, CaseIterable, Codable {
    /// The landing page (open-in-app button, store buttons, preview tags).
    case appPage
    /// A 302 to the App Store or the Play Store (the route's `fallback` is `store`).
    case store
    /// A 302 to the route's web page (`fallback` is `web`).
    case web
    /// A short link's own redirect: a forced redirect (FDL `efr`) or a web-page target.
    case redirect
    /// No route and no live short link (the not-found page, or `notFound.redirect`).
    case notFound

    public var name: String { ["app_page", "store", "web", "redirect", "not_found"][rawValue] }
    public init?(name: String) {
        guard let i = ["app_page", "store", "web", "redirect", "not_found"].firstIndex(of: name) else { return nil }
        self.init(rawValue: i)
    }
}

/// One click as the server saw it, before it is counted.
public struct ClickEvent: Sendable, Equatable {
    public var site: String
    /// The short link's code; "" for a route page or a not-found.
    public var code: String
    /// The route the link resolved to; "" for a not-found or a short link to a web page.
    public var route: String
    public var platform: ClickPlatform
    public var outcome: ClickOutcome
    public var inAppBrowser: Bool
    public var crawler: Bool

    public init(site: String, code: String = "", route: String = "", platform: ClickPlatform, outcome: ClickOutcome,
                inAppBrowser: Bool = false, crawler: Bool = false) {
        self.site = site
        self.code = code
        self.route = route
        self.platform = platform
        self.outcome = outcome
        self.inAppBrowser = inAppBrowser
        self.crawler = crawler
    }

    /// The combination's index among the 4 × 5 × 2 × 2 counted ones.
    public var slot: Int {
        ((platform.rawValue * Self.outcomeCount + outcome.rawValue) * 2 + (inAppBrowser ? 1 : 0)) * 2 + (crawler ? 1 : 0)
    }

    /// `allCases.count`, computed once (`allCases` builds a new array at every use, and the flush
    /// asks for every slot of every key).
    public static let platformCount = ClickPlatform.allCases.count
    public static let outcomeCount = ClickOutcome.allCases.count
    public static let slotCount = platformCount * outcomeCount * 4

    /// The dimensions of a slot.
    public static func dimensions(_ slot: Int) -> (platform: ClickPlatform, outcome: ClickOutcome, inApp: Bool, crawler: Bool) {
        let crawler = slot & 1 == 1
        let inApp = (slot >> 1) & 1 == 1
        let po = slot >> 2
        return (ClickPlatform(rawValue: po / outcomeCount)!, ClickOutcome(rawValue: po % outcomeCount)!, inApp, crawler)
    }

    /// A slot's platform × outcome index (`platform * outcomeCount + outcome`), 0..<20.
    @inline(__always) public static func platformOutcome(_ slot: Int) -> Int { slot >> 2 }
}

/// UTC days as yyyymmdd (20261201): readable in the database, ordered like the days, and the
/// month is `day / 100` in any SQL.
public enum ClickDay {
    /// The UTC day of a Unix time.
    public static func of(unixSeconds: Int) -> Int {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        return fromEpochDays(days)
    }

    /// yyyymmdd of the day `days` after 1970-01-01.
    public static func fromEpochDays(_ days: Int) -> Int {
        let (y, m, d) = RFC3339.civilFromDays(days)
        return y * 10_000 + m * 100 + d
    }

    /// Days from 1970-01-01 to yyyymmdd.
    public static func epochDays(_ day: Int) -> Int {
        RFC3339.daysFromCivil(year: day / 10_000, month: day / 100 % 100, day: day % 100)
    }

    /// yyyymmdd `n` days after (negative: before) `day`.
    public static func adding(_ n: Int, to day: Int) -> Int { fromEpochDays(epochDays(day) + n) }

    /// Parses `2026-12-01` (or `20261201`); nil when it is not a real date.
    public static func parse(_ text: String) -> Int? {
        let digits = text.filter { $0 != "-" }
        guard digits.count == 8, digits.allSatisfy(\.isASCII), let n = Int(digits),
              text.count == 8 || (text.count == 10 && Array(text)[4] == "-" && Array(text)[7] == "-") else { return nil }
        return fromEpochDays(epochDays(n)) == n ? n : nil
    }

    /// `2026-12-01`.
    public static func text(_ day: Int) -> String {
        let y = String(day / 10_000), m = day / 100 % 100, d = day % 100
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-\(m < 10 ? "0" : "")\(m)-\(d < 10 ? "0" : "")\(d)"
    }

    /// `2026-12` of a yyyymm month.
    public static func monthText(_ month: Int) -> String {
        let m = month % 100
        return "\(month / 100)-\(m < 10 ? "0" : "")\(m)"
    }
}

/// The referrer as counted: its host only, lowercased, without port or user info.
public enum ReferrerHost {
    /// No `Referer` header (typed, bookmarked, from an app that sends none, or stripped by
    /// `Referrer-Policy: no-referrer`).
    public static let none = ""
    /// The hosts beyond the ones kept per link and day.
    public static let other = "(other)"
    /// A referrer that is an IP address (kept out: an address is not a site name).
    public static let address = "(ip)"
    /// A header that is no URL with a host.
    public static let invalid = "(invalid)"

    /// The host of a `Referer` value: `https://Mail.Google.com:443/x?y` → `mail.google.com`,
    /// `android-app://com.google.android.gm/` → `com.google.android.gm`.
    public static func of(_ referer: String?) -> String {
        guard let referer, !referer.isEmpty else { return none }
        var u = Substring(referer).utf8
        guard let colon = u.firstIndex(of: UInt8(ascii: ":")), u[u.startIndex..<colon].allSatisfy(isSchemeByte),
              u[colon...].starts(with: "://".utf8) else { return invalid }
        u = u[u.index(colon, offsetBy: 3)...]
        // The authority: up to the first / ? #; user info dropped, then the port.
        let end = u.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? u.endIndex
        var authority = u[u.startIndex..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        if authority.first == UInt8(ascii: "[") { return address }
        if let port = authority.firstIndex(of: UInt8(ascii: ":")) { authority = authority[authority.startIndex..<port] }
        guard !authority.isEmpty, authority.count <= 253 else { return invalid }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(authority.count)
        var digitsAndDots = true
        for b in authority {
            let lower = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
            let ok = (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (lower >= UInt8(ascii: "0") && lower <= UInt8(ascii: "9"))
                || lower == UInt8(ascii: "-") || lower == UInt8(ascii: ".") || lower == UInt8(ascii: "_")
            guard ok else { return invalid }
            if !((lower >= UInt8(ascii: "0") && lower <= UInt8(ascii: "9")) || lower == UInt8(ascii: ".")) { digitsAndDots = false }
            bytes.append(lower)
        }
        if digitsAndDots { return address }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }
}
