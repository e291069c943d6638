// Firebase Dynamic Links parameters → a ShortLink: shared by the Takeout importer (one CSV row)
// and the server's legacy long links (`/?link=…&apn=…`). Checks each value (an error names the
// parameter, the value and the fix) and, for long links, that every URL a browser could be sent
// to stays on the site's own domains or `shortLinks.allowedHosts` (no open redirect).

import Foundation
import LinkRouting

/// Why an FDL parameter cannot be used, naming it.
public struct FDLProblem: Error, Equatable, CustomStringConvertible {
    /// The parameter (`link`, `afl`, …) or Takeout column.
    public var parameter: String
    public var message: String
    public var fix: String
    /// A host outside the allowed ones (the 400 page says how to allow it).
    public var host: String?
    public var description: String { "\(parameter): \(message); \(fix)" }

    public init(parameter: String, message: String, fix: String, host: String? = nil) {
        self.parameter = parameter
        self.message = message
        self.fix = fix
        self.host = host
    }
}

public enum FDLLink {
    /// The long-link parameters FDL documented, in the Takeout's column order.
    public static let parameters = [
        "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd", "si",
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt", "pt",
    ]
    /// Parameters holding URLs a browser may be redirected to.
    public static let redirectParameters = ["link", "afl", "ifl", "ipfl", "ofl"]
    /// Longest value accepted for one parameter (a long link's whole URL stays under 8 KB).
    public static let maximumValueLength = 2048

    /// A link from FDL parameters (values already percent-decoded; empty values count as
    /// absent). `strictHosts`: every redirect URL must be on the site's domains or allowed hosts
    /// (long links, which anyone can write); the importer checks only the target that way
    /// (the ShortLinkValidator), since the fallbacks in a Takeout are the owner's own.
    public static func link(
        code: String, site: CompiledSite, table: RouteTable, parameters p: [String: String], strictHosts: Bool,
        createdAt: Date = Date(), linkName: String? = nil, archived: Bool = false
    ) -> Result<ShortLink, FDLProblem> {
        func value(_ name: String) -> String? {
            guard let v = p[name], !v.isEmpty else { return nil }
            return v
        }
        for name in parameters {
            guard let v = value(name) else { continue }
            if v.utf8.count > maximumValueLength {
                return .failure(FDLProblem(parameter: name, message: "the value is \(v.utf8.count) bytes long, more than \(maximumValueLength)",
                                           fix: "shorten it (a link this long does not survive e-mail clients and QR codes either)"))
            }
            // Line breaks and tabs are text in a title or description (escaped on the page, never in a header).
            let text = name == "st" || name == "sd"
            if let bad = v.unicodeScalars.first(where: { ($0.value < 0x20 && !(text && ($0 == "\n" || $0 == "\r" || $0 == "\t"))) || $0.value == 0x7F }) {
                return .failure(FDLProblem(parameter: name, message: "the value contains the control character U+\(String(format: "%04X", bad.value))",
                                           fix: "remove line breaks and control characters from it"))
            }
        }
        guard let target = value("link") else {
            return .failure(FDLProblem(parameter: "link", message: "there is no deep link", fix: "give the URL the app opens, e.g. link=https%3A%2F%2Fexample.com%2Fpost%2F42"))
        }
        for name in ["link", "afl", "ifl", "ipfl", "ofl", "si"] {
            guard let v = value(name) else { continue }
            guard WebURL.hasHTTPScheme(v), let url = WebURL(v) else {
                return .failure(FDLProblem(parameter: name, message: "'\(v)' is not an http(s) URL", fix: "write an absolute https:// URL"))
            }
            if strictHosts, redirectParameters.contains(name) {
                if case let .failure(refusal) = RedirectPolicy.check(v, site: site, table: table) {
                    return .failure(FDLProblem(parameter: name, message: "'\(v)' \(refusal.message)", fix: refusal.fix, host: refusal.host))
                }
            } else if strictHosts, name == "si", !RedirectPolicy.allows(host: url.host, site: site, table: table) {
                return .failure(FDLProblem(
                    parameter: name, message: "'\(v)' is an image on '\(url.host)', which is neither a domain of site '\(site.name)' nor one of its shortLinks.allowedHosts",
                    fix: "serve the image from the site's domains, or add its host to the config: sites[\(site.index)].shortLinks.allowedHosts: [\"\(url.host)\"]",
                    host: url.host))
            } else if !url.isReadAsWritten(v) {
                return .failure(FDLProblem(parameter: name, message: "'\(v)' is read by browsers as a URL on '\(url.host)' (a '\\' or an '@' in the address)",
                                           fix: "write the URL plainly, as https://host/path", host: url.host))
            }
        }
        var forced = false
        if let efr = value("efr") {
            guard efr == "1" || efr == "0" else {
                return .failure(FDLProblem(parameter: "efr", message: "'\(efr)' is not 1 or 0", fix: "write efr=1 to skip the page, efr=0 (or nothing) to show it"))
            }
            forced = efr == "1"
        }
        if let isi = value("isi"), !isi.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return .failure(FDLProblem(parameter: "isi", message: "'\(isi)' is not a numeric App Store ID", fix: "write the digits of the app's App Store URL (apps.apple.com/app/id123456789 → 123456789)"))
        }
        let fdl = FDLParameters(
            apn: value("apn"), amv: value("amv"), ibi: value("ibi"), ius: value("ius"), ipbi: value("ipbi"), isi: value("isi"), imv: value("imv"),
            ipadFallback: value("ipfl"), utmSource: value("utm_source"), utmMedium: value("utm_medium"), utmCampaign: value("utm_campaign"),
            utmTerm: value("utm_term"), utmContent: value("utm_content"), at: value("at"), ct: value("ct"), mt: value("mt"), pt: value("pt"),
            linkName: linkName.flatMap { $0.isEmpty ? nil : $0 }, archived: archived)
        return .success(ShortLink(
            code: code, site: site.name, target: target, previewTitle: value("st"), previewDescription: value("sd"), previewImage: value("si"),
            iosFallback: value("ifl"), androidFallback: value("afl"), desktopFallback: value("ofl"), forcedRedirect: forced,
            createdAt: createdAt, updatedAt: createdAt, fdl: fdl))
    }

    /// True when a browser may be sent to `host` from `site`: one of its domains (wildcards as
    /// configured) or of its `shortLinks.allowedHosts` (`*.example.com` covers subdomains).
    public static func allows(host: String, site: CompiledSite, table: RouteTable) -> Bool {
        let host = host.lowercased()
        if table.site(forHost: host, fallbackToDefault: false)?.name == site.name { return true }
        for allowed in site.config.shortLinks?.allowedHosts ?? [] {
            let a = allowed.lowercased()
            if a == host { return true }
            if a.hasPrefix("*."), host.hasSuffix(a.dropFirst(1)) { return true }
        }
        return false
    }
}
