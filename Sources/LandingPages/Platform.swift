// What kind of browser sent a request, from its User-Agent alone: the platform, whether it is an
// app's in-app browser, and whether it is a link-preview crawler. Pure string inspection.

/// The platform a landing page is rendered for.
public enum Platform: String, Sendable, Equatable, CaseIterable {
    /// iPhone, iPad and iPod touch (iPadOS in desktop mode reports a Mac and counts as desktop).
    case ios
    case android
    /// Everything else, including a missing User-Agent.
    case desktop
}

/// Everything the fallback decision needs to know about the browser.
public struct BrowserFacts: Sendable, Equatable {
    public var platform: Platform
    /// The app whose in-app browser this is ("Instagram", "Facebook", …); universal links and
    /// App Links often do not fire there, so these get the landing page with "Open in app" first.
    public var inAppBrowser: String?
    /// The link-preview crawler ("Slackbot", "iMessage", …); crawlers always get the page with
    /// preview tags, never a store redirect.
    public var crawler: String?

    public init(platform: Platform, inAppBrowser: String? = nil, crawler: String? = nil) {
        self.platform = platform
        self.inAppBrowser = inAppBrowser
        self.crawler = crawler
    }

    /// Reads the facts from a User-Agent header (nil: a desktop browser, no in-app, no crawler).
    public init(userAgent: String?) {
        // Byte searches: Foundation's `contains` on String bridges to NSString and cost more
        // than rendering the whole page.
        let ua = Array((userAgent ?? "").utf8)
        self.init(platform: Self.platform(ua), inAppBrowser: Self.inAppBrowser(ua), crawler: Self.crawler(ua))
    }

    static func platform(_ ua: [UInt8]) -> Platform {
        if has(ua, "iPhone") || has(ua, "iPad") || has(ua, "iPod") { return .ios }
        if has(ua, "Android") { return .android }
        return .desktop
    }

    /// True when `needle` (ASCII) occurs in `haystack`.
    static func has(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard !n.isEmpty, haystack.count >= n.count else { return n.isEmpty }
        let first = n[0]
        var i = 0
        let last = haystack.count - n.count
        outer: while i <= last {
            if haystack[i] == first {
                var k = 1
                while k < n.count {
                    if haystack[i + k] != n[k] {
                        i += 1
                        continue outer
                    }
                    k += 1
                }
                return true
            }
            i += 1
        }
        return false
    }

    /// Crawler tokens, compared case-insensitively, first match wins. iMessage fetches previews
    /// with a Safari-on-Mac UA plus both "facebookexternalhit" and "Twitterbot".
    static let crawlerTokens: [(token: String, name: String)] = [
        ("telegrambot", "Telegram"), ("facebookexternalhit", "Facebook"), ("facebot", "Facebook"), ("twitterbot", "Twitter/X"),
        ("slackbot", "Slack"), ("slack-imgproxy", "Slack"), ("discordbot", "Discord"), ("whatsapp", "WhatsApp"),
        ("linkedinbot", "LinkedIn"), ("applebot", "Apple"), ("googlebot", "Google"),
        ("bingbot", "Bing"), ("skypeuripreview", "Skype"), ("pinterestbot", "Pinterest"), ("redditbot", "Reddit"),
        ("embedly", "Embedly"), ("mastodon", "Mastodon"), ("bluesky", "Bluesky"), ("viber", "Viber"),
    ]

    static func crawler(_ ua: [UInt8]) -> String? {
        let lower = ua.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        if has(lower, "facebookexternalhit"), has(lower, "twitterbot") { return "iMessage" }
        return crawlerTokens.first { has(lower, $0.token) }?.name
    }

    /// In-app browser tokens (case-sensitive; as the apps write them), first match wins.
    static let inAppTokens: [(token: String, name: String)] = [
        ("Instagram", "Instagram"),
        ("MessengerForiOS", "Messenger"), ("FB_IAB/Orca-Android", "Messenger"), ("MessengerLite", "Messenger"),
        ("FBAN/", "Facebook"), ("FBAV/", "Facebook"), ("FB_IAB", "Facebook"), ("FBIOS", "Facebook"),
        ("LinkedInApp", "LinkedIn"),
        ("MicroMessenger", "WeChat"),
        ("musical_ly", "TikTok"), ("BytedanceWebview", "TikTok"), ("TikTok", "TikTok"), ("trill_", "TikTok"),
        ("Snapchat", "Snapchat"),
        ("Twitter for iPhone", "Twitter/X"), ("Twitter for iPad", "Twitter/X"), ("TwitterAndroid", "Twitter/X"),
        ("GSA/", "Google app"),
        (" Line/", "LINE"),
    ]

    static func inAppBrowser(_ ua: [UInt8]) -> String? {
        inAppTokens.first { has(ua, $0.token) }?.name
    }
}
