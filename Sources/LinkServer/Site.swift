import Association
import LinkStore
import LinkRouting
import MicroHTTP

/// One site of a snapshot: its compiled routes and its association files, as generated once by
/// the load pipeline (`GeneratedSite`). A class: a request holds a reference, never a copy.
public final class Site: Sendable {
    public let generated: GeneratedSite
    /// `generated.compiled`, stored: read in place by every request.
    public let compiled: CompiledSite
    /// nil when the site has no iOS app (the AASA path then answers 404).
    public let aasa: ConditionalResponse?
    /// nil when the site has no Android app.
    public let assetLinks: ConditionalResponse?
    /// The hosts the site's own config links to (``RedirectPolicy/configHosts(site:)``).
    public let redirectHosts: Set<String>
    /// The short-link prefix (`shortLinks.prefix`, `/` without one), read by every link request.
    public let shortLinkPrefix: String
    /// `shortLinkPrefix`'s bytes.
    let shortLinkPrefixBytes: [UInt8]
    /// The site's misses redirect (`notFound.redirect`) instead of showing the not-found page.
    public let redirectsMisses: Bool

    public init(_ generated: GeneratedSite, cacheControl: String) {
        self.generated = generated
        let compiled = generated.compiled
        self.compiled = compiled
        redirectHosts = RedirectPolicy.configHosts(site: compiled)
        shortLinkPrefix = compiled.config.shortLinks?.effectivePrefix ?? "/"
        shortLinkPrefixBytes = Array(shortLinkPrefix.utf8)
        redirectsMisses = compiled.config.notFound?.redirect != nil
        aasa = compiled.iosApps.isEmpty ? nil
            : ConditionalResponse(body: generated.aasa, contentType: "application/json", cacheControl: cacheControl)
        assetLinks = compiled.androidApps.isEmpty ? nil
            : ConditionalResponse(body: generated.assetLinks, contentType: "application/json", cacheControl: cacheControl)
    }

    public var name: String { compiled.name }
}
