import LinkRouting

/// What `linkwell validate` says about the landing pages a config makes: a platform whose
/// visitors get no store button, a `website` that would loop back to the not-found page, an
/// accent colour that text cannot be read on.
public enum LandingDiagnostics {
    public static func check(_ table: RouteTable) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for site in table.sites {
            let at = "sites[\(site.index)]"
            let name = site.name
            let way = webWayOn(site, table: table)
            for (j, app) in site.iosApps.enumerated() where app.appStoreID.flatMap(LandingLinks.appStore(id:)) == nil {
                out.append(Diagnostic(
                    .warning, at: "\(at).ios[\(j)].appStoreID", value: app.appStoreID,
                    "site '\(name)': iOS app '\(app.reference)' has no numeric appStoreID, so iPhone visitors without the app get no App Store button (and no Smart App Banner)\(way.isEmpty ? " and nothing else to tap" : "; they get \(way)")",
                    fix: "add \"appStoreID\": \"<digits from the app's App Store URL, apps.apple.com/app/id…>\" once the app is published"))
            }
            if site.androidApps.isEmpty && !site.iosApps.isEmpty {
                out.append(Diagnostic(
                    .warning, at: "\(at).android",
                    "site '\(name)' has no Android app, so Android visitors get no Google Play button, only 'available for iPhone'\(way.isEmpty ? " and nothing to tap" : " and \(way)")",
                    fix: "add the Android app under \"android\": [{ package, fingerprints }]; until there is one, give the routes a fallback.web page (or the site a website) to read the content on"))
            }
            if site.iosApps.isEmpty && !site.androidApps.isEmpty {
                out.append(Diagnostic(
                    .warning, at: "\(at).ios",
                    "site '\(name)' has no iOS app, so iPhone visitors get no App Store button, only 'available for Android'\(way.isEmpty ? " and nothing to tap" : " and \(way)")",
                    fix: "add the iOS app under \"ios\": [{ teamID, bundleID, appStoreID }]; until there is one, give the routes a fallback.web page (or the site a website)"))
            }
            if let website = site.config.website, SafeURL(website) != nil, website.lowercased().hasPrefix("http"),
               !NextSteps.reachable(website, table: table) {
                out.append(Diagnostic(
                    .warning, at: "\(at).website", value: website,
                    "site '\(name)': website \(website) is on a link domain this server answers, and no route matches its path, so Linkwell would answer it with its own not-found page; the landing and not-found pages leave it out",
                    fix: "point website at a host Linkwell does not answer, where your web site runs (e.g. https://www.example.com); even when a proxy sends this domain's other paths to a website upstream (docs/guide/deploy.md), Linkwell cannot see that, so it leaves the link out rather than risk a loop"))
            }
            if let color = site.config.landing?.themeColor, !color.isEmpty {
                if RGBColor(hex: color) == nil {
                    out.append(Diagnostic(
                        .warning, at: "\(at).landing.themeColor", value: color,
                        "site '\(name)': themeColor '\(color)' is not a #RRGGBB colour, so the pages keep the default accent",
                        fix: "write it as \"#RRGGBB\", e.g. \"#3B4CCA\""))
                } else if let problem = BrandStylesheet.contrastProblem(themeColor: color) {
                    let ratio = (problem.ratio * 100).rounded() / 100
                    out.append(Diagnostic(
                        .warning, at: "\(at).landing.themeColor", value: color,
                        "site '\(name)': \(problem.text == .white ? "white" : "black") text on the accent \(color) has a contrast of \(ratio):1, below WCAG AA's 4.5:1, so the buttons are hard to read",
                        fix: "use \"\(problem.suggestion.description.uppercased())\", the nearest colour that reaches 4.5:1 with \(problem.text == .white ? "white" : "black") text"))
                }
            }
        }
        return out
    }

    /// What web step every link of the site has ("the route's web page", "the website"), or
    /// "" when some route has neither.
    static func webWayOn(_ site: CompiledSite, table: RouteTable) -> String {
        let home = NextSteps.home(table: table, site: site) != nil
        let routes = site.routes.compactMap(\.route)
        let allWeb = !routes.isEmpty && routes.allSatisfy { r in
            let web = FallbackDecision.effectiveFallback(site: site, route: r.name).web
            return web.flatMap { WebTemplate.fillURL($0, parameters: [:]) }.map { NextSteps.reachable($0, table: table) } ?? false
        }
        if allWeb { return "the route's web page" }
        return home ? "the website" : ""
    }
}
