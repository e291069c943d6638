// `storage.clicks`: how the server counts clicks (in memory, flushed in batches to the link
// database) and how long the daily rows are kept. Every key is optional.

/// Click counting of `linkwell serve` (see docs/reference/stats.md); the library and the apps ignore it.
public struct ClickSettings: Codable, Sendable, Equatable {
    /// Count clicks at all (default true).
    public var enabled: Bool?
    /// Seconds between two flushes of the in-memory counts to the database (default 10); what a
    /// crash can lose at most.
    public var flushSeconds: Double?
    /// Days a daily row is kept before it is folded into its month (default 400).
    public var retentionDays: Int?
    /// Referrer hosts kept per link (or route) and day; the rest count as `(other)` (default 10).
    public var referrersPerDay: Int?
    /// Distinct link/route/day keys held in memory between two flushes (default 100000); clicks
    /// beyond it count under the link `(other)` of their route.
    public var maxKeys: Int?
    /// Short links with their own `/metrics` series (the most clicked, default 20; 0: none).
    public var metricsTopLinks: Int?
    /// App-open beacons (`POST /.well-known/linkwell/opens`) counted per client address and
    /// minute (default 60; an IPv6 client counts by its /64); more are answered 429, not counted.
    public var appOpensPerMinute: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, flushSeconds, retentionDays, referrersPerDay, maxKeys, metricsTopLinks, appOpensPerMinute
    }

    /// The default of ``appOpensPerMinute``.
    public static let defaultAppOpensPerMinute = 60
    /// ``appOpensPerMinute`` or its default.
    public var resolvedAppOpensPerMinute: Int { appOpensPerMinute ?? Self.defaultAppOpensPerMinute }

    /// The default of ``flushSeconds``.
    public static let defaultFlushSeconds = 10.0
    /// The default of ``retentionDays``.
    public static let defaultRetentionDays = 400
    /// The default of ``referrersPerDay``.
    public static let defaultReferrersPerDay = 10
    /// The default of ``maxKeys``.
    public static let defaultMaxKeys = 100_000
    /// The default of ``metricsTopLinks``.
    public static let defaultMetricsTopLinks = 20

    /// Settings in code (tests, generated configs); every key is optional.
    public init(enabled: Bool? = nil, flushSeconds: Double? = nil, retentionDays: Int? = nil, referrersPerDay: Int? = nil,
                maxKeys: Int? = nil, metricsTopLinks: Int? = nil) {
        self.enabled = enabled
        self.flushSeconds = flushSeconds
        self.retentionDays = retentionDays
        self.referrersPerDay = referrersPerDay
        self.maxKeys = maxKeys
        self.metricsTopLinks = metricsTopLinks
    }

    /// The settings with every default filled in.
    public var resolved: (enabled: Bool, flushSeconds: Double, retentionDays: Int, referrersPerDay: Int, maxKeys: Int, metricsTopLinks: Int) {
        (enabled ?? true, flushSeconds ?? Self.defaultFlushSeconds, retentionDays ?? Self.defaultRetentionDays,
         referrersPerDay ?? Self.defaultReferrersPerDay, maxKeys ?? Self.defaultMaxKeys, metricsTopLinks ?? Self.defaultMetricsTopLinks)
    }
}

extension LinkwellConfig {
    /// The `storage.clicks` checks (called from `validate()`).
    func validateClicks(_ clicks: ClickSettings, into out: inout [Diagnostic]) {
        if let f = clicks.flushSeconds, !f.isFinite || f < 0.1 || f > 3600 {
            out.append(Diagnostic(.error, at: "storage.clicks.flushSeconds", value: String(f), "storage.clicks.flushSeconds must be between 0.1 and 3600",
                                  fix: "use a number of seconds, e.g. 10 (the default); a crash loses at most this much counting"))
        }
        let ranges: [(String, Int?, ClosedRange<Int>, String)] = [
            ("retentionDays", clicks.retentionDays, 1...36_500, "e.g. 400 (the default): older days are folded into months"),
            ("referrersPerDay", clicks.referrersPerDay, 1...1000, "e.g. 10 (the default)"),
            ("maxKeys", clicks.maxKeys, 100...100_000_000, "e.g. 100000 (the default, about 20 MB at most)"),
            ("metricsTopLinks", clicks.metricsTopLinks, 0...1000, "e.g. 20 (the default); 0 leaves per-link series out of /metrics"),
            ("appOpensPerMinute", clicks.appOpensPerMinute, 1...100_000, "e.g. 60 (the default): app-open beacons counted per client address and minute; behind a carrier NAT many phones share one address"),
        ]
        for (name, value, range, fix) in ranges {
            if let value, !range.contains(value) {
                out.append(Diagnostic(.error, at: "storage.clicks.\(name)", value: String(value),
                                      "storage.clicks.\(name) must be between \(range.lowerBound) and \(range.upperBound)", fix: fix))
            }
        }
    }
}
