// The ios-entitlements and ios-info-plist targets: whole plist documents (so they parse on their
// own, and an app can use the entitlements file as is or merge either with PlistBuddy).

import LinkRouting

enum ApplePlistGenerator {
    static func prolog(_ header: [String], _ what: [String]) -> String {
        var o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        o += "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
        o += "<!--\n" + (header + [""] + what).map { $0.isEmpty ? "" : "  " + AndroidManifestGenerator.xmlComment($0) }.joined(separator: "\n") + "\n-->\n"
        return o + "<plist version=\"1.0\">\n<dict>\n"
    }

    static func string(_ s: String) -> String { "<string>\(AndroidManifestGenerator.xmlAttr(s))</string>" }

    /// `applinks:` for every domain, then `webcredentials:` and `appclips:` and
    /// `activitycontinuation:` when the app is configured for them.
    static func associatedDomains(_ m: SiteModel, app: IOSAppConfig) -> [String] {
        let suffix = m.options.developerMode ? "?mode=developer" : ""
        let domains = m.site.config.domains.map { $0.lowercased() }
        var services = ["applinks"]
        if app.webcredentials == true { services.append("webcredentials") }
        if app.appClipBundleID != nil { services.append("appclips") }
        if app.activityContinuation == true { services.append("activitycontinuation") }
        return services.flatMap { service in domains.map { "\(service):\($0)\(suffix)" } }
    }

    static func entitlements(_ m: SiteModel, app: IOSAppConfig, header: [String]) -> String {
        var what = [
            "Associated domains of \(app.appID) for site '\(m.site.name)': the app's .entitlements file",
            "(Xcode: Signing & Capabilities > Associated Domains). Each domain serves",
            "/.well-known/apple-app-site-association listing this app.",
        ]
        if m.options.developerMode {
            what.append("?mode=developer: development-signed builds fetch the file from the origin, not Apple's CDN.")
        }
        var o = prolog(header, what)
        o += "\t<key>com.apple.developer.associated-domains</key>\n\t<array>\n"
        for d in associatedDomains(m, app: app) { o += "\t\t\(string(d))\n" }
        o += "\t</array>\n</dict>\n</plist>\n"
        return o
    }

    static func infoPlist(_ m: SiteModel, app: IOSAppConfig, header: [String]) -> String {
        let what = [
            "The custom URL schemes of \(app.appID) for site '\(m.site.name)': merge into Info.plist",
            "(/usr/libexec/PlistBuddy -c \"Merge THIS_FILE\" Info.plist, or Xcode: Info > URL Types).",
            "Links of these schemes reach the app without verification; \(m.typeName)(url:) parses them.",
        ]
        var o = prolog(header, what)
        o += "\t<key>CFBundleURLTypes</key>\n\t<array>\n\t\t<dict>\n"
        o += "\t\t\t<key>CFBundleTypeRole</key>\n\t\t\t\(string("Editor"))\n"
        o += "\t\t\t<key>CFBundleURLName</key>\n\t\t\t\(string(app.bundleID))\n"
        o += "\t\t\t<key>CFBundleURLSchemes</key>\n\t\t\t<array>\n"
        for s in app.schemes ?? [] { o += "\t\t\t\t\(string(s))\n" }
        o += "\t\t\t</array>\n\t\t</dict>\n\t</array>\n</dict>\n</plist>\n"
        return o
    }
}
