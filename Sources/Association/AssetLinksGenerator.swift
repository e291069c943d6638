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

    /// The document from an already made plan of the same site.
    public static func document(for site: CompiledSite, plan: ComponentPlan) -> JSONValue {
        GenerationCounter.record(.assetLinks, site: site)
        var statements: [JSONValue] = []
        for app in site.androidApps {
            var relations: [JSONValue] = [.string(handleAllURLs)]
            if app.loginCredentials == true { relations.append(.string(getLoginCreds)) }
            var statement: [(key: String, value: JSONValue)] = [
                ("relation", .array(relations)),
                (
                    "target",
                    .object([
                        ("namespace", "android_app"), ("package_name", .string(app.package)),
                        ("sha256_cert_fingerprints", .array(app.fingerprints.map(JSONValue.string))),
                    ])
                ),
            ]
            let includes: (CompiledEntry) -> Bool = { $0.androidPackages.contains(app.package) }
            let components = plan.components(for: .android, appliesTo: includes).map { $0.json(includeComment: false) }
            // No route for this app: claim nothing rather than everything (no rules = all URLs).
            let rules: [JSONValue] = components.isEmpty ? [["/": "*", "exclude": true]] : components
            statement.append(
                ("relation_extensions", .object([(key: handleAllURLs, value: JSONValue.object([("dynamic_app_link_components", .array(rules))]))])))
            statements.append(.object(statement))
            for site in app.webTargets ?? [] {
                statements.append(
                    .object([
                        ("relation", .array([.string(getLoginCreds)])),
                        ("target", .object([("namespace", "web"), ("site", .string(site))])),
                    ]))
            }
        }
        return .array(statements)
    }

    /// Android's verifier (AOSP StatementRetriever) reads at most 1 MiB of the body.
    public static let sizeLimit = 1024 * 1024

    /// The bytes served at `/.well-known/assetlinks.json`.
    public static func bytes(for site: CompiledSite) -> [UInt8] {
        bytes(for: site, plan: ComponentPlan(site: site))
    }

    public static func bytes(for site: CompiledSite, plan: ComponentPlan) -> [UInt8] {
        document(for: site, plan: plan).serializedBytes(.pretty)
    }
}
