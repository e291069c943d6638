import Association
import LinkRouting
import MicroHTTP

/// One site of a snapshot: its compiled routes and its association files, rendered once.
public struct Site: Sendable {
    public let compiled: CompiledSite
    /// nil when the site has no iOS app (the AASA path then answers 404).
    public let aasa: ConditionalResponse?
    /// nil when the site has no Android app.
    public let assetLinks: ConditionalResponse?

    public init(_ compiled: CompiledSite, cacheControl: String) {
        self.compiled = compiled
        aasa = compiled.iosApps.isEmpty ? nil
            : ConditionalResponse(body: AASAGenerator.bytes(for: compiled), contentType: "application/json", cacheControl: cacheControl)
        assetLinks = compiled.androidApps.isEmpty ? nil
            : ConditionalResponse(body: AssetLinksGenerator.bytes(for: compiled), contentType: "application/json", cacheControl: cacheControl)
    }

    public var name: String { compiled.name }
}
