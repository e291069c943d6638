// The Firebase Dynamic Links parameters of a link that have no column of their own in v1/v2 of
// the schema (migration v5): the app identifiers FDL carried per link, the iPad fallback, the
// campaign tags, the App Store tokens, the console's link name and its archived flag.

/// FDL parameters stored with a short link (imported from a Takeout CSV, or a long link's).
public struct FDLParameters: Sendable, Equatable, Codable {
    /// `apn`, `amv`: Android package, minimum version code.
    public var apn: String?
    public var amv: String?
    /// `ibi`, `ius`, `ipbi`, `isi`, `imv`: iOS bundle ID, custom scheme, iPad bundle ID, App Store ID, minimum version.
    public var ibi: String?
    public var ius: String?
    public var ipbi: String?
    public var isi: String?
    public var imv: String?
    /// `ipfl`: where iPads without the app go.
    public var ipadFallback: String?
    /// `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`, `utm_content`: into the Play install referrer.
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmTerm: String?
    public var utmContent: String?
    /// `at`, `ct`, `mt`, `pt`: App Store affiliate token, campaign token, media type, provider token.
    public var at: String?
    public var ct: String?
    public var mt: String?
    public var pt: String?
    /// The console's "Link name".
    public var linkName: String?
    /// The console's "Archived?" flag.
    public var archived: Bool

    public init(
        apn: String? = nil, amv: String? = nil, ibi: String? = nil, ius: String? = nil, ipbi: String? = nil, isi: String? = nil,
        imv: String? = nil, ipadFallback: String? = nil, utmSource: String? = nil, utmMedium: String? = nil,
        utmCampaign: String? = nil, utmTerm: String? = nil, utmContent: String? = nil, at: String? = nil, ct: String? = nil,
        mt: String? = nil, pt: String? = nil, linkName: String? = nil, archived: Bool = false
    ) {
        self.apn = apn
        self.amv = amv
        self.ibi = ibi
        self.ius = ius
        self.ipbi = ipbi
        self.isi = isi
        self.imv = imv
        self.ipadFallback = ipadFallback
        self.utmSource = utmSource
        self.utmMedium = utmMedium
        self.utmCampaign = utmCampaign
        self.utmTerm = utmTerm
        self.utmContent = utmContent
        self.at = at
        self.ct = ct
        self.mt = mt
        self.pt = pt
        self.linkName = linkName
        self.archived = archived
    }

    /// True when nothing is set (stored as NULLs; the link's `fdl` is nil).
    public var isEmpty: Bool { self == FDLParameters() }

    /// The `utm_*` tags that are set, in FDL's order, named as in the URL.
    public var campaign: [(name: String, value: String)] {
        [("utm_source", utmSource), ("utm_medium", utmMedium), ("utm_campaign", utmCampaign), ("utm_term", utmTerm), ("utm_content", utmContent)]
            .compactMap { name, value in value.map { (name, $0) } }
    }

    /// The App Store tokens that are set (`pt`, `ct`, `mt`, `at`), named as in the App Store URL.
    public var appStoreTokens: [(name: String, value: String)] {
        [("pt", pt), ("ct", ct), ("mt", mt), ("at", at)].compactMap { name, value in value.map { (name, $0) } }
    }

    /// Every stored value by its FDL parameter name (Takeout column), for reports and export.
    public var named: [(name: String, value: String?)] {
        [("apn", apn), ("amv", amv), ("ibi", ibi), ("ius", ius), ("ipfl", ipadFallback), ("ipbi", ipbi), ("isi", isi), ("imv", imv),
         ("utm_source", utmSource), ("utm_medium", utmMedium), ("utm_campaign", utmCampaign), ("utm_term", utmTerm),
         ("utm_content", utmContent), ("at", at), ("ct", ct), ("mt", mt), ("pt", pt), ("linkName", linkName)]
    }

    /// The v5 columns, in `LinkStore`'s column order.
    static let columns = [
        "fdl_apn", "fdl_amv", "fdl_ibi", "fdl_ius", "fdl_ipbi", "fdl_isi", "fdl_imv", "ipad_fallback", "utm_source", "utm_medium",
        "utm_campaign", "utm_term", "utm_content", "fdl_at", "fdl_ct", "fdl_mt", "fdl_pt", "link_name", "archived",
    ]

    var values: [SQLValue] {
        [apn, amv, ibi, ius, ipbi, isi, imv, ipadFallback, utmSource, utmMedium, utmCampaign, utmTerm, utmContent, at, ct, mt, pt, linkName]
            .map(SQLValue.text) + [.bool(archived)]
    }

    /// Reads the v5 columns starting at `first`; nil when none is set.
    static func read(_ r: SQLRow, from first: Int32) -> FDLParameters? {
        // Most links have none (not imported): skip building and comparing an empty value.
        if !r.bool(first + 18), (0..<Int32(18)).allSatisfy({ r.isNull(first + $0) }) { return nil }
        let t = { (i: Int32) in r.text(first + i) }
        let p = FDLParameters(
            apn: t(0), amv: t(1), ibi: t(2), ius: t(3), ipbi: t(4), isi: t(5), imv: t(6), ipadFallback: t(7), utmSource: t(8),
            utmMedium: t(9), utmCampaign: t(10), utmTerm: t(11), utmContent: t(12), at: t(13), ct: t(14), mt: t(15), pt: t(16),
            linkName: t(17), archived: r.bool(first + 18))
        return p.isEmpty ? nil : p
    }

    /// Migration v5 (reserved for these columns, docs/guide/short-links.md#storage).
    static let migration: (version: Int, name: String, sql: String) = (
        5, "fdl parameters",
        columns.dropLast().map { "ALTER TABLE links ADD COLUMN \($0) TEXT;" }.joined(separator: "\n")
            + "\nALTER TABLE links ADD COLUMN archived BIGINT NOT NULL DEFAULT 0;"
    )
}
