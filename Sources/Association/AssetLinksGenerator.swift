// assetlinks.json, generated from the same routes: one statement per Android app with
// handle_all_urls (+ get_login_creds where configured) and its dynamic app link components,
// plus `web` targets that share credentials.

import LinkRouting
import LinkwellJSON

public enum AssetLinksGenerator {
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
    public static let getLoginCreds = "delegate_permission/common.get_login_creds"

    /// The assetlinks.json document for a site. The load pipeline generates it once per site,
    /// in `GeneratedSite`; use that site's `assetLinks` bytes rather than calling this again.
    public static func document(for site: CompiledSite) -> JSONValue {
        document(for: site, plan: ComponentPlan(site: site))
    }

    /// The document from an already made plan of the same site: the served bytes, read back.
    public static func document(for site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        do {
            return try JSONValue.parse(bytes(for: site, plan: plan))
        } catch {
            preconditionFailure("the generated assetlinks.json is not JSON (\(error)): a Linkwell bug")
        }
    }

    /// Writes the document straight to bytes, each object's keys in the serialiser's order
    /// (sorted by their UTF-8 bytes: `JSONValue.serializedBytes(.pretty)` of the same document).
    static func write(_ site: CompiledSite, plan: ComponentPlan) -> [UInt8] {
        GenerationCounter.record(.assetLinks, site: site)
        var w = JSONPrettyWriter(capacity: 256 * site.entries.count + 1024)
        w.beginArray()
        for app in site.androidApps {
            // Keys in byte order: relation, relation_extensions, target.
            w.beginObject()
            w.key("relation")
            w.strings(app.loginCredentials == true ? [handleAllURLs, getLoginCreds] : [handleAllURLs])
            w.key("relation_extensions")
            w.beginObject()
            w.key(handleAllURLs)
            w.beginObject()
            w.key("dynamic_app_link_components")
            w.beginArray()
            let includes: (CompiledEntry) -> Bool = { $0.androidPackages.contains(app.package) }
            let components = plan.components(for: .android, appliesTo: includes)
            for c in components { c.write(to: &w, includeComment: false) }
            if components.isEmpty {
                // No route for this app: claim nothing rather than everything (no rules = all URLs).
                w.beginObject()
                w.key("/")
                w.string("*")
                w.key("exclude")
                w.bool(true)
                w.endObject()
            }
            w.endArray()
            w.endObject()
            w.endObject()
            w.key("target")
            w.beginObject()
            w.key("namespace")
            w.string("android_app")
            w.key("package_name")
            w.string(app.package)
            w.key("sha256_cert_fingerprints")
            w.strings(app.fingerprints)
            w.endObject()
            w.endObject()
            for site in app.webTargets ?? [] {
                w.beginObject()
                w.key("relation")
                w.strings([getLoginCreds])
                w.key("target")
                w.beginObject()
                w.key("namespace")
                w.string("web")
                w.key("site")
                w.string(site)
                w.endObject()
                w.endObject()
            }
        }
        w.endArray()
        return w.finish()
    }

    /// Android's verifier (AOSP StatementRetriever) reads at most 1 MiB of the body.
    public static let sizeLimit = 1024 * 1024

    /// The bytes served at `/.well-known/assetlinks.json`.
    public static func bytes(for site: CompiledSite) -> [UInt8] {
        bytes(for: site, plan: ComponentPlan(site: site))
    }

    public static func bytes(for site: CompiledSite, plan: ComponentPlan) -> [UInt8] {
        write(site, plan: plan)
    }
}
