// The configuration model: one JSON5 file describing one or more sites. Every other part of
// Linkwell — the parser, the builder, both association files and the landing pages — is derived
// from these values. The schema is documented in docs/configuration.md and shipped as
// config/linkwell.schema.json.

/// The whole configuration file.
public struct LinkwellConfig: Codable, Sendable, Equatable {
    /// Editor hint (`"$schema": "./linkwell.schema.json"`); ignored.
    public var schema: String?
    public var server: ServerSettings?
    public var sites: [SiteConfig]

    enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case server, sites
    }

    public init(server: ServerSettings? = nil, sites: [SiteConfig]) {
        self.server = server
        self.sites = sites
    }
}

/// One site: the domains it answers for, its apps and its routes.
public struct SiteConfig: Codable, Sendable, Equatable {
    /// A short name for logs and metrics; defaults to the first domain.
    public var name: String?
    /// `example.com` and `*.example.com`. The first exact domain is the canonical host.
    public var domains: [String]
    /// Serve this site for a Host no site lists (only meaningful with several sites).
    public var isDefault: Bool?
    /// The website's home page, linked from the not-found page.
    public var website: String?
    public var ios: [IOSAppConfig]?
    public var android: [AndroidAppConfig]?
    public var aasa: AASAOptions?
    /// Routes and exclusions, in priority order: the first entry that matches a URL decides.
    public var routes: [RouteEntry]
    /// Site-wide defaults for what a browser gets; a route's own `fallback` overrides them.
    public var fallback: FallbackConfig?
    /// What a browser gets for a link that matches no route.
    public var notFound: NotFoundConfig?
    /// Landing-page looks (app name, icon, colours, templates folder).
    public var landing: LandingConfig?

    enum CodingKeys: String, CodingKey {
        case name, domains, isDefault = "default", website, ios, android, aasa, routes, fallback, notFound, landing
    }

    public init(
        name: String? = nil, domains: [String], isDefault: Bool? = nil, website: String? = nil,
        ios: [IOSAppConfig]? = nil, android: [AndroidAppConfig]? = nil, aasa: AASAOptions? = nil,
        routes: [RouteEntry], fallback: FallbackConfig? = nil, notFound: NotFoundConfig? = nil,
        landing: LandingConfig? = nil
    ) {
        self.name = name
        self.domains = domains
        self.isDefault = isDefault
        self.website = website
        self.ios = ios
        self.android = android
        self.aasa = aasa
        self.routes = routes
        self.fallback = fallback
        self.notFound = notFound
        self.landing = landing
    }
}

public struct IOSAppConfig: Codable, Sendable, Equatable {
    /// How routes refer to this app (`apps: ["ios"]`); defaults to the bundle ID.
    public var id: String?
    public var name: String?
    /// 10 characters, A–Z and 0–9, from the Apple Developer membership page.
    public var teamID: String
    public var bundleID: String
    /// The numeric App Store ID (`https://apps.apple.com/app/id<this>`).
    public var appStoreID: String?
    /// Custom URL schemes from the app's Info.plist (`CFBundleURLSchemes`).
    public var schemes: [String]?
    /// Add the app to `webcredentials` (Password AutoFill).
    public var webcredentials: Bool?
    /// Add the app to `activitycontinuation` (Handoff).
    public var activityContinuation: Bool?
    /// The App Clip's bundle ID, for `appclips` and the Smart App Banner.
    public var appClipBundleID: String?

    public init(
        id: String? = nil, name: String? = nil, teamID: String, bundleID: String, appStoreID: String? = nil,
        schemes: [String]? = nil, webcredentials: Bool? = nil, activityContinuation: Bool? = nil,
        appClipBundleID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.teamID = teamID
        self.bundleID = bundleID
        self.appStoreID = appStoreID
        self.schemes = schemes
        self.webcredentials = webcredentials
        self.activityContinuation = activityContinuation
        self.appClipBundleID = appClipBundleID
    }

    /// `<team ID>.<bundle ID>`, as AASA names the app.
    public var appID: String { "\(teamID).\(bundleID)" }
    public var reference: String { id ?? bundleID }
}

public struct AndroidAppConfig: Codable, Sendable, Equatable {
    public var id: String?
    public var name: String?
    /// The application ID (`applicationId` in build.gradle).
    public var package: String
    /// SHA-256 fingerprints of the signing certificates: 32 upper-case hex pairs joined by `:`.
    /// With Play App Signing, the app-signing key's fingerprint from Play Console.
    public var fingerprints: [String]
    public var schemes: [String]?
    /// Share credentials with the site (`delegate_permission/common.get_login_creds`).
    public var loginCredentials: Bool?
    /// Extra web origins that share credentials with this app (`namespace: web` targets).
    public var webTargets: [String]?

    public init(
        id: String? = nil, name: String? = nil, package: String, fingerprints: [String], schemes: [String]? = nil,
        loginCredentials: Bool? = nil, webTargets: [String]? = nil
    ) {
        self.id = id
        self.name = name
        self.package = package
        self.fingerprints = fingerprints
        self.schemes = schemes
        self.loginCredentials = loginCredentials
        self.webTargets = webTargets
    }

    public var reference: String { id ?? package }
}

public struct AASAOptions: Codable, Sendable, Equatable {
    /// `modern` (components, iOS 13+; the default), `legacy` (`paths`, iOS 9–12 only) or `both`
    /// (two `details` entries per app group: iOS 13+ reads the components one).
    public var format: AASAFormat?

    public init(format: AASAFormat? = nil) { self.format = format }
}

public enum AASAFormat: String, Codable, Sendable, Equatable, CaseIterable {
    case modern, legacy, both
}

/// One entry of a site's `routes` list: a route, or an exclusion placed where its order matters.
public enum RouteEntry: Codable, Sendable, Equatable {
    case route(RouteConfig)
    case exclusion(ExclusionConfig)

    private enum Probe: String, CodingKey { case exclude, name, path }

    public init(from decoder: any Decoder) throws {
        let probe = try decoder.container(keyedBy: Probe.self)
        if probe.contains(.exclude) {
            self = .exclusion(try ExclusionConfig(from: decoder))
        } else {
            self = .route(try RouteConfig(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .route(r): try r.encode(to: encoder)
        case let .exclusion(e): try e.encode(to: encoder)
        }
    }
}

/// A route: a link shape the apps handle.
public struct RouteConfig: Codable, Sendable, Equatable {
    /// Unique within the site; what the app's router and `linkwell link` call it.
    public var name: String
    /// `/post/{postId}`: literal segments and `{name}` parameters (one non-empty segment each,
    /// optionally with a literal prefix/suffix in the segment, as in `/{item}.html`); a final
    /// `{name*}` takes the rest of the path (zero or more segments).
    public var path: String
    /// Query parameters the route reads, by name.
    public var query: [String: QueryParamConfig]?
    /// Name of a parameter that receives the fragment (`#…`), if the route reads it.
    public var fragment: String?
    /// Restrictions on path parameters, by name.
    public var params: [String: ParamConfig]?
    /// Which apps handle the route (their `id`, bundle ID or package); default: all of the site's apps.
    public var apps: [String]?
    public var fallback: FallbackConfig?
    public var preview: PreviewConfig?
    /// A note kept in the generated AASA component's `comment`.
    public var comment: String?

    public init(
        name: String, path: String, query: [String: QueryParamConfig]? = nil, fragment: String? = nil,
        params: [String: ParamConfig]? = nil, apps: [String]? = nil, fallback: FallbackConfig? = nil,
        preview: PreviewConfig? = nil, comment: String? = nil
    ) {
        self.name = name
        self.path = path
        self.query = query
        self.fragment = fragment
        self.params = params
        self.apps = apps
        self.fallback = fallback
        self.preview = preview
        self.comment = comment
    }
}

public struct QueryParamConfig: Codable, Sendable, Equatable {
    /// A link without this parameter (or with an empty value) is not this route.
    public var required: Bool?
    public init(required: Bool? = nil) { self.required = required }
}

public struct ParamConfig: Codable, Sendable, Equatable {
    /// The parameter takes one of these values only (AASA: a substitution variable; Android:
    /// one component per value).
    public var oneOf: [String]?
    public init(oneOf: [String]? = nil) { self.oneOf = oneOf }
}

/// Paths that must never open an app, e.g. `/post/drafts/*`.
public struct ExclusionConfig: Codable, Sendable, Equatable {
    /// A path pattern in route syntax; a final `*` stands for any rest of the path.
    public var exclude: String
    /// Exclude only links with exactly this fragment (e.g. `no_universal_links`); the path must still match.
    public var fragment: String?
    public var apps: [String]?
    public var comment: String?

    public init(exclude: String, fragment: String? = nil, apps: [String]? = nil, comment: String? = nil) {
        self.exclude = exclude
        self.fragment = fragment
        self.apps = apps
        self.comment = comment
    }
}

/// What a browser that reached a link gets, per platform.
public struct FallbackConfig: Codable, Sendable, Equatable {
    public var ios: FallbackAction?
    public var android: FallbackAction?
    public var desktop: FallbackAction?
    /// The web page for `web` actions, a template with the route's parameters:
    /// `https://example.com/items/{item}`. Only its path and query take parameter values.
    public var web: String?

    public init(ios: FallbackAction? = nil, android: FallbackAction? = nil, desktop: FallbackAction? = nil, web: String? = nil) {
        self.ios = ios
        self.android = android
        self.desktop = desktop
        self.web = web
    }
}

public enum FallbackAction: String, Codable, Sendable, Equatable, CaseIterable {
    /// The landing page: open-in-app button, store buttons, preview tags.
    case landing
    /// A redirect to the platform's store page for the app.
    case store
    /// A redirect to the `web` URL template.
    case web
}

public struct PreviewConfig: Codable, Sendable, Equatable {
    /// Templated with the route's parameters: `Post {postId}`.
    public var title: String?
    public var description: String?
    /// An absolute `https` URL or a path under the site (`/static/og.png`).
    public var image: String?

    public init(title: String? = nil, description: String? = nil, image: String? = nil) {
        self.title = title
        self.description = description
        self.image = image
    }
}

public struct NotFoundConfig: Codable, Sendable, Equatable {
    /// Send unknown paths here (302) instead of the not-found page.
    public var redirect: String?
    public init(redirect: String? = nil) { self.redirect = redirect }
}

public struct LandingConfig: Codable, Sendable, Equatable {
    public var appName: String?
    /// Path under `public/` or absolute https URL of the app icon.
    public var icon: String?
    public var themeColor: String?
    /// A folder of templates that override the shipped ones for this site.
    public var templatesDir: String?

    public init(appName: String? = nil, icon: String? = nil, themeColor: String? = nil, templatesDir: String? = nil) {
        self.appName = appName
        self.icon = icon
        self.themeColor = themeColor
        self.templatesDir = templatesDir
    }
}

/// Settings of the running server (`linkwell serve`); all optional with sane defaults.
public struct ServerSettings: Codable, Sendable, Equatable {
    public var listen: [String]?
    public var admin: String?
    public var threads: Int?
    /// CIDRs whose `Forwarded` / `X-Forwarded-*` headers are believed. Default: loopback only.
    public var trustedProxies: [String]?
    /// `Cache-Control` for the association files. Default `public, max-age=300`.
    public var associationCacheControl: String?
    public var connectionLimit: Int?
    public var perIPConnectionLimit: Int?
    public var connectionTimeoutSeconds: Int?
    public var requestHeaderMemoryBytes: Int?
    public var shutdownDeadlineSeconds: Double?
    /// Log the query string of page requests (off by default: it can carry personal data).
    public var logQueryStrings: Bool?
    /// Where `public/` (templates, CSS, images) is; default `public` next to the config folder.
    public var publicDir: String?

    public init() {}
}
