import LinkRouting

/// Every URL a landing page or a redirect can point to for one matched link, derived from the
/// route table and the apps' config (never from anything else in the request).
public struct LandingLinks: Sendable, Equatable {
    /// `https://<canonical host>/…` — the link as the builder writes it.
    public var canonical: String
    /// The iOS app that opens the link (the first of the site's iOS apps the route lists).
    public var iosApp: IOSAppConfig?
    /// The Android app that opens the link.
    public var androidApp: AndroidAppConfig?
    /// The iOS custom-scheme link (Safari does not open the app for a same-domain link, so the
    /// iOS "Open in app" button needs a scheme); nil when the iOS app registers none.
    public var iosSchemeLink: String?
    /// The Android custom-scheme link (for `al:android:url`).
    public var androidSchemeLink: String?
    /// `intent://HOST/PATH#Intent;scheme=https;package=PKG;S.browser_fallback_url=<Play URL>;end`.
    public var androidIntent: String?
    /// `https://apps.apple.com/app/id<appStoreID>`.
    public var appStore: String?
    /// `https://play.google.com/store/apps/details?id=<package>&referrer=…`.
    public var playStore: String?

    public init(table: RouteTable, site: CompiledSite, match: LinkMatch) {
        canonical = (try? table.build(site: site.name, route: match.route, parameters: match.parameters, form: .https))
            ?? "https://\(site.canonicalHost)/"
        iosApp = site.iosApps.first { match.iosAppIDs.contains($0.appID) }
        androidApp = site.androidApps.first { match.androidPackages.contains($0.package) }
        if let scheme = iosApp?.schemes?.first {
            iosSchemeLink = try? table.build(site: site.name, route: match.route, parameters: match.parameters, form: .customScheme(scheme))
        }
        if let scheme = androidApp?.schemes?.first {
            androidSchemeLink = try? table.build(site: site.name, route: match.route, parameters: match.parameters, form: .customScheme(scheme))
        }
        if let app = androidApp {
            let play = Self.playStore(package: app.package, canonical: canonical)
            playStore = play
            // Chrome goes to browser_fallback_url when no installed app takes the intent
            // (developer.chrome.com/docs/android/intents): the Play page, referrer included, so
            // the install still ends in the link.
            androidIntent = Self.intent(canonical: canonical, package: app.package, fallback: play)
        }
        if let id = iosApp?.appStoreID {
            appStore = Self.appStore(id: id)
        }
    }

    /// The App Store page, only for a numeric id.
    public static func appStore(id: String) -> String? {
        guard !id.isEmpty, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return "https://apps.apple.com/app/id\(id)"
    }

    /// The Play Store page. `referrer` carries `linkwell_link=<percent-encoded canonical URL>`
    /// (itself percent-encoded once more as the query value), which the app reads back through
    /// the Install Referrer API for a deferred deep link (docs/reference/landing-pages.md).
    public static func playStore(package: String, canonical: String) -> String {
        let referrer = "linkwell_link=" + PercentEncoding.encodeComponent(canonical)
        return "https://play.google.com/store/apps/details?id=\(PercentEncoding.encodeComponent(package))&referrer=\(PercentEncoding.encodeComponent(referrer))"
    }

    /// Chrome's intent URL for the https link: opens the app on a tap when installed, else the
    /// browser goes to the (percent-encoded) `fallback` URL, which must be http(s).
    public static func intent(canonical: String, package: String, fallback: String) -> String? {
        guard canonical.hasPrefix("https://"), fallback.hasPrefix("https://") || fallback.hasPrefix("http://") else { return nil }
        var rest = canonical.dropFirst("https://".count)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        return "intent://\(rest)#Intent;scheme=https;package=\(PercentEncoding.encodeComponent(package));S.browser_fallback_url=\(PercentEncoding.encodeComponent(fallback));end"
    }

    /// `<meta name="apple-itunes-app">` content; nil without a numeric App Store id.
    public var smartAppBanner: String? {
        guard let app = iosApp, let id = app.appStoreID, Self.appStore(id: id) != nil else { return nil }
        var s = "app-id=\(id), app-argument=\(canonical)"
        if let clip = app.appClipBundleID, !clip.isEmpty {
            s += ", app-clip-bundle-id=\(clip), app-clip-display=card"
        }
        return s
    }
}
