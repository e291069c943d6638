// The configuration model: one JSON5 file describing one or more sites. Every other part of
// Linkwell — the parser, the builder, both association files and the landing pages — is derived
// from these values. The schema is documented in docs/reference/configuration.md and shipped as
// config/linkwell.schema.json.

/// The whole configuration file: one or more sites, each with its domains, apps and routes.
///
/// Read it with ``ConfigLoader``, or build it in code; either way ``RouteTable`` compiles it.
///
/// ```swift
/// let config = LinkwellConfig(sites: [
///     SiteConfig(
///         domains: ["ioscoffeebreak.com"],
///         ios: [IOSAppConfig(teamID: "CB45NEWS77", bundleID: "com.ioscoffeebreak.app", schemes: ["ioscoffeebreakapp"])],
///         routes: [.route(RouteConfig(name: "issue", path: "/issue", query: ["id": QueryParamConfig(required: true)]))])
/// ])
/// config.validate().errors      // [] — nothing to fix
/// let table = try RouteTable(config: config)
/// table.resolve("ioscoffeebreakapp://issue?id=45").match?.parameters   // ["id": "45"]
/// ```
public struct LinkwellConfig: Codable, Sendable, Equatable {
    /// Editor hint (`"$schema": "./linkwell.schema.json"`); ignored.
    public var schema: String?
    /// Settings of `linkwell serve` (listen addresses, limits); the library and the apps ignore them.
    public var server: ServerSettings?
    /// Where the short links are stored (`storage: { sqlite: "links.db" }`); nil: `linkwell.db`
    /// beside the config file. The library and the apps ignore it.
    public var storage: StorageSettings?
    /// The sites, each with its domains, apps and routes. A URL belongs to the site that lists its host.
    public var sites: [SiteConfig]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case schema = "$schema"
        case server, storage, sites
    }

    /// Builds a config in code instead of reading a file (tests, previews, generated configs).
    public init(server: ServerSettings? = nil, storage: StorageSettings? = nil, sites: [SiteConfig]) {
        self.server = server
        self.storage = storage
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
    /// The iOS apps that open this site's links; the apple-app-site-association file lists them by ``IOSAppConfig/appID``.
    public var ios: [IOSAppConfig]?
    /// The Android apps that open this site's links; `assetlinks.json` names each by package and fingerprints.
    public var android: [AndroidAppConfig]?
    /// How the apple-app-site-association file is written (modern components, legacy paths, or both).
    public var aasa: AASAOptions?
    /// Routes and exclusions, in priority order: the first entry that matches a URL decides.
    public var routes: [RouteEntry]
    /// Site-wide defaults for what a browser gets; a route's own `fallback` overrides them.
    public var fallback: FallbackConfig?
    /// What a browser gets for a link that matches no route.
    public var notFound: NotFoundConfig?
    /// Landing-page looks (app name, icon, colours, templates folder).
    public var landing: LandingConfig?
    /// Short links and FDL long links: the path prefix of the codes and the hosts links may lead to.
    public var shortLinks: ShortLinksConfig?
    /// Deferred deep links: how a link reaches the app after an install (opt-in, per platform).
    public var deferredLinks: DeferredLinksConfig?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, domains, isDefault = "default", website, ios, android, aasa, routes, fallback, notFound, landing, shortLinks, deferredLinks
    }

    /// Creates a site; only `domains` and `routes` are required, as in the file.
    public init(
        name: String? = nil, domains: [String], isDefault: Bool? = nil, website: String? = nil,
        ios: [IOSAppConfig]? = nil, android: [AndroidAppConfig]? = nil, aasa: AASAOptions? = nil,
        routes: [RouteEntry], fallback: FallbackConfig? = nil, notFound: NotFoundConfig? = nil,
        landing: LandingConfig? = nil, shortLinks: ShortLinksConfig? = nil, deferredLinks: DeferredLinksConfig? = nil
    ) {
        self.shortLinks = shortLinks
        self.deferredLinks = deferredLinks
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

/// Deferred deep links of a site: how a link tapped before the app was installed reaches the app
/// at its first launch. Off unless set.
public struct DeferredLinksConfig: Codable, Sendable, Equatable {
    /// `clipboard`: on an iPhone or iPad landing page, the App Store button copies the link to
    /// the clipboard when tapped (a small same-origin script; the page says so), and the app's
    /// first launch reads it from the pasteboard.
    public var ios: String?

    /// The one `ios` method.
    public static let clipboard = "clipboard"

    enum CodingKeys: String, CodingKey, CaseIterable {
        case ios
    }

    /// Deferred deep links in code (tests, generated configs); `ios: "clipboard"` turns them on for iOS.
    public init(ios: String? = nil) {
        self.ios = ios
    }

    /// True when the App Store button hands the link over through the clipboard.
    public var iosClipboard: Bool { ios == Self.clipboard }
}

/// An iOS app that opens the site's links: its Team ID and bundle ID, as Apple identifies it.
///
/// The apple-app-site-association (AASA) file that Linkwell serves at
/// `/.well-known/apple-app-site-association` names the app as ``appID`` (`TEAMID.bundle.id`);
/// iOS opens a link in the app only when that file, fetched from the link's domain, lists it.
public struct IOSAppConfig: Codable, Sendable, Equatable {
    /// How routes refer to this app (`apps: ["ios"]`); defaults to the bundle ID.
    public var id: String?
    /// The app's name on landing pages (App Links `al:ios:app_name`); when absent, the landing page's app name.
    public var name: String?
    /// 10 characters, A–Z and 0–9, from the Apple Developer membership page.
    public var teamID: String
    /// The app's bundle identifier, as in Xcode (`com.example.app`).
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
    /// The app's icon on the landing page and preview card: a path under `public/` or an
    /// absolute https URL (default: `landing.icon`).
    public var icon: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, teamID, bundleID, appStoreID, schemes, webcredentials, activityContinuation, appClipBundleID, icon
    }

    /// Creates an iOS app entry; `teamID` and `bundleID` are required.
    public init(
        id: String? = nil, name: String? = nil, teamID: String, bundleID: String, appStoreID: String? = nil,
        schemes: [String]? = nil, webcredentials: Bool? = nil, activityContinuation: Bool? = nil,
        appClipBundleID: String? = nil, icon: String? = nil
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
        self.icon = icon
    }

    /// `<team ID>.<bundle ID>`, as AASA names the app.
    public var appID: String { "\(teamID).\(bundleID)" }
    /// What a route's `apps` list calls this app: ``id``, or the bundle ID when there is none.
    public var reference: String { id ?? bundleID }
}

/// An Android app that opens the site's links (App Links), identified by package and signing certificate.
///
/// Android verifies a link domain by fetching `/.well-known/assetlinks.json` from it and
/// looking for a statement that names the app's package with the SHA-256 fingerprint of the
/// certificate the installed app was signed with.
public struct AndroidAppConfig: Codable, Sendable, Equatable {
    /// How routes refer to this app (`apps: ["android"]`); defaults to the package name.
    public var id: String?
    /// The app's name on landing pages (App Links `al:android:app_name`); when absent, the landing page's app name.
    public var name: String?
    /// The application ID (`applicationId` in build.gradle).
    public var package: String
    /// SHA-256 fingerprints of the signing certificates: 32 upper-case hex pairs joined by `:`.
    /// With Play App Signing, the app-signing key's fingerprint from Play Console.
    public var fingerprints: [String]
    /// Custom URL schemes from the app's intent filters (`fitconnect` for `fitconnect://…`), without `://`.
    public var schemes: [String]?
    /// Share credentials with the site (`delegate_permission/common.get_login_creds`).
    public var loginCredentials: Bool?
    /// Extra web origins that share credentials with this app (`namespace: web` targets).
    public var webTargets: [String]?
    /// The app's icon (as for iOS apps; default: `landing.icon`).
    public var icon: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, package, fingerprints, schemes, loginCredentials, webTargets, icon
    }

    /// Creates an Android app entry; `package` and `fingerprints` are required.
    public init(
        id: String? = nil, name: String? = nil, package: String, fingerprints: [String], schemes: [String]? = nil,
        loginCredentials: Bool? = nil, webTargets: [String]? = nil, icon: String? = nil
    ) {
        self.id = id
        self.name = name
        self.package = package
        self.fingerprints = fingerprints
        self.schemes = schemes
        self.loginCredentials = loginCredentials
        self.webTargets = webTargets
        self.icon = icon
    }

    /// What a route's `apps` list calls this app: ``id``, or the package name when there is none.
    public var reference: String { id ?? package }
}

/// Options of the generated apple-app-site-association file (the `aasa` key of a site).
public struct AASAOptions: Codable, Sendable, Equatable {
    /// `modern` (components, iOS 13+; the default), `legacy` (`paths`, iOS 9–12 only) or `both`
    /// (two `details` entries per app group: iOS 13+ reads the components one).
    public var format: AASAFormat?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case format
    }

    /// Creates the options; `nil` means ``AASAFormat/modern``.
    public init(format: AASAFormat? = nil) { self.format = format }
}

/// Which AASA dialect to write: the `components` form iOS 13+ reads, the older `paths` form, or both.
public enum AASAFormat: String, Codable, Sendable, Equatable, CaseIterable {
    /// `applinks.details[].components` (iOS 13 and later). The default.
    case modern
    /// `applinks.details[].paths` only (iOS 9–12); iOS 13+ reads it too, with fewer features
    /// (no query or fragment rules).
    case legacy
    /// Two `details` entries per app group, one of each form; iOS 13+ reads the components one.
    case both
}

/// One entry of a site's `routes` list: a route, or an exclusion placed where its order matters.
public enum RouteEntry: Codable, Sendable, Equatable {
    /// A route (an entry without `exclude`).
    case route(RouteConfig)
    /// An exclusion (an entry with an `exclude` key).
    case exclusion(ExclusionConfig)

    /// Decodes an entry: one with an `exclude` key is an exclusion, any other a route.
    public init(from decoder: any Decoder) throws {
        if try decoder.container(keyedBy: ExclusionConfig.CodingKeys.self).contains(.exclude) {
            self = .exclusion(try ExclusionConfig(from: decoder))
        } else {
            self = .route(try RouteConfig(from: decoder))
        }
    }

    /// Encodes the route or exclusion as the plain object it was read from.
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
    /// What a browser gets for this route, per platform; overrides the site's ``SiteConfig/fallback``.
    public var fallback: FallbackConfig?
    /// Link-preview tags (title, description, image) of the route's landing page.
    public var preview: PreviewConfig?
    /// A note kept in the generated AASA component's `comment`.
    public var comment: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, path, query, fragment, params, apps, fallback, preview, comment
    }

    /// Creates a route; only `name` and `path` are required.
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

/// A query parameter a route reads (`query: { id: { required: true } }` for `/issue?id=45`).
public struct QueryParamConfig: Codable, Sendable, Equatable {
    /// A link without this parameter (or with an empty value) is not this route.
    public var required: Bool?
    /// The longest value a landing page shows in its text; see ``ParamConfig/maxLength``.
    public var maxLength: Int?
    /// A regular expression a value must match to be shown in page text; see ``ParamConfig/pattern``.
    public var pattern: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case required, maxLength, pattern
    }

    /// Creates the parameter; `nil` means optional.
    public init(required: Bool? = nil, maxLength: Int? = nil, pattern: String? = nil) {
        self.required = required
        self.maxLength = maxLength
        self.pattern = pattern
    }
}

/// Restrictions on one path parameter of a route (the `params` key).
public struct ParamConfig: Codable, Sendable, Equatable {
    /// The parameter takes one of these values only (AASA: a substitution variable; Android:
    /// one component per value).
    public var oneOf: [String]?
    /// The longest value a landing page shows in its text (title, description, card), in
    /// characters; a longer value still matches the route, but the page shows the app's name
    /// and no description instead. Default 64.
    public var maxLength: Int?
    /// A regular expression (ICU syntax, matched against the whole decoded value) a value must
    /// match to be shown in page text, e.g. `[A-Z0-9]{4,12}`; otherwise as for `maxLength`.
    /// It does not change which URLs match: the platforms cannot express it.
    public var pattern: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case oneOf, maxLength, pattern
    }

    /// The longest value shown in page text when `maxLength` is not set.
    public static let defaultMaxLength = 64

    /// Creates the restriction; `nil` means any non-empty segment.
    public init(oneOf: [String]? = nil, maxLength: Int? = nil, pattern: String? = nil) {
        self.oneOf = oneOf
        self.maxLength = maxLength
        self.pattern = pattern
    }
}

/// Paths that must never open an app, e.g. `/post/drafts/*`.
public struct ExclusionConfig: Codable, Sendable, Equatable {
    /// A path pattern in route syntax; a final `*` stands for any rest of the path.
    public var exclude: String
    /// Exclude only links with exactly this fragment (e.g. `no_universal_links`); the path must still match.
    public var fragment: String?
    /// Which apps the exclusion applies to (their `id`, bundle ID or package); default: all of the site's apps.
    public var apps: [String]?
    /// A note kept in the generated AASA component's `comment`.
    public var comment: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case exclude, fragment, apps, comment
    }

    /// Creates an exclusion; only `exclude` is required.
    public init(exclude: String, fragment: String? = nil, apps: [String]? = nil, comment: String? = nil) {
        self.exclude = exclude
        self.fragment = fragment
        self.apps = apps
        self.comment = comment
    }
}

/// What a browser that reached a link gets, per platform.
public struct FallbackConfig: Codable, Sendable, Equatable {
    /// What Safari (or another iOS browser) gets when the app did not open the link.
    public var ios: FallbackAction?
    /// What an Android browser gets when the app did not open the link.
    public var android: FallbackAction?
    /// What a desktop browser gets.
    public var desktop: FallbackAction?
    /// The web page for `web` actions, a template with the route's parameters:
    /// `https://example.com/items/{item}`. Only its path and query take parameter values.
    public var web: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case ios, android, desktop, web
    }

    /// Creates the fallback; every platform left `nil` takes the site's setting, then the landing page.
    public init(ios: FallbackAction? = nil, android: FallbackAction? = nil, desktop: FallbackAction? = nil, web: String? = nil) {
        self.ios = ios
        self.android = android
        self.desktop = desktop
        self.web = web
    }
}

/// What a browser that reached a route's link is given.
public enum FallbackAction: String, Codable, Sendable, Equatable, CaseIterable {
    /// The landing page: open-in-app button, store buttons, preview tags.
    case landing
    /// A redirect to the platform's store page for the app.
    case store
    /// A redirect to the `web` URL template.
    case web
}

/// The link-preview (Open Graph) tags of a route's landing page, templated with its parameters.
public struct PreviewConfig: Codable, Sendable, Equatable {
    /// Templated with the route's parameters: `Post {postId}`.
    public var title: String?
    /// Templated like ``title``: `Read issue #{id} in the app.`
    public var description: String?
    /// An absolute `https` URL or a path under the site (`/static/og.png`).
    public var image: String?
    /// Title and description in other languages, by BCP 47 tag (`pt-BR`, `it`); the plain
    /// `title`/`description` are in the site's `defaultLocale`.
    public var locales: [String: PreviewText]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, description, image, locales
    }

    /// Creates the preview; every field is optional.
    public init(title: String? = nil, description: String? = nil, image: String? = nil, locales: [String: PreviewText]? = nil) {
        self.title = title
        self.description = description
        self.image = image
        self.locales = locales
    }
}

/// A route's preview text in one language.
public struct PreviewText: Codable, Sendable, Equatable {
    /// The title in this language, templated like `PreviewConfig.title`.
    public var title: String?
    /// The description in this language.
    public var description: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, description
    }

    /// Creates the texts; both are optional (a missing one falls back to the plain text).
    public init(title: String? = nil, description: String? = nil) {
        self.title = title
        self.description = description
    }
}

/// What a browser gets for a link on the site that matches no route (the `notFound` key).
public struct NotFoundConfig: Codable, Sendable, Equatable {
    /// Send unknown paths here (302) instead of the not-found page.
    public var redirect: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case redirect
    }

    /// Creates the setting; `nil` serves the not-found page.
    public init(redirect: String? = nil) { self.redirect = redirect }
}

/// The look of a site's landing pages (the `landing` key).
public struct LandingConfig: Codable, Sendable, Equatable {
    /// The app name shown on the landing page; defaults to the first iOS app's `name`, then the first Android app's, then the site name.
    public var appName: String?
    /// Path under `public/` or absolute https URL of the app icon.
    public var icon: String?
    /// The accent colour, a CSS colour (`#0E7C66`).
    public var themeColor: String?
    /// A folder of templates that override the shipped ones for this site.
    public var templatesDir: String?
    /// The language of the site's texts and of pages for crawlers and visitors whose
    /// `Accept-Language` names none of the shipped ones (default `en`).
    public var defaultLocale: String?
    /// The preview image of every route without its own `preview.image` (default: a card
    /// generated from the icon, app name, title and theme colour).
    public var image: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case appName, icon, themeColor, templatesDir, defaultLocale, image
    }

    /// Creates the look; every field is optional.
    public init(appName: String? = nil, icon: String? = nil, themeColor: String? = nil, templatesDir: String? = nil,
                defaultLocale: String? = nil, image: String? = nil) {
        self.appName = appName
        self.icon = icon
        self.themeColor = themeColor
        self.templatesDir = templatesDir
        self.defaultLocale = defaultLocale
        self.image = image
    }
}

/// A site's short links (the `shortLinks` key): where their codes live and which other hosts
/// a short link, an FDL long link (`/?link=…`) or their fallbacks may lead to.
public struct ShortLinksConfig: Codable, Sendable, Equatable {
    /// The path before the codes, starting and ending with `/` (`/l/`: `https://example.com/l/abc1`).
    /// Default `/`: codes right after the domain, as FDL custom domains had them.
    public var prefix: String?
    /// Hosts other than the site's domains that targets, `link=` and the fallbacks (`afl`, `ifl`,
    /// `ipfl`, `ofl`) may point at (`www.example.com`); everything else is refused (no open redirect).
    public var allowedHosts: [String]?
    /// Whether a long link's `st`, `sd` and `si` (its own preview title, description and image)
    /// are shown. Default true, as FDL did; false: anyone writing a long link on this domain
    /// gets the route's own preview, whatever text and image the link carries.
    public var longLinkPreviews: Bool?
    /// Whether the association files claim the short links, so that a tap opens the app (which
    /// resolves the code with `/.well-known/linkwell/resolve`). Default false. Under a prefix the
    /// prefix is claimed; on a ``linkDomain`` every path but the association files and static
    /// assets; at the root of a domain shared with a website, `validate` refuses it.
    public var openApp: Bool?
    /// True: every path of this domain is a link and no website shares it (as FDL's `page.link`
    /// domains were), so ``openApp`` may claim the whole domain. Default false.
    public var linkDomain: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case prefix, allowedHosts, longLinkPreviews, openApp, linkDomain
    }

    /// Settings with this prefix and these extra hosts.
    public init(
        prefix: String? = nil, allowedHosts: [String]? = nil, longLinkPreviews: Bool? = nil, openApp: Bool? = nil,
        linkDomain: Bool? = nil
    ) {
        self.prefix = prefix
        self.allowedHosts = allowedHosts
        self.longLinkPreviews = longLinkPreviews
        self.openApp = openApp
        self.linkDomain = linkDomain
    }

    /// `prefix`, or `/` when unset or empty.
    public var effectivePrefix: String {
        guard let prefix, !prefix.isEmpty else { return "/" }
        return prefix
    }
}

/// Where short links live: a SQLite file (the default; relative paths from the config file's
/// directory) or, for several instances behind one load balancer, a PostgreSQL database.
public struct StorageSettings: Codable, Sendable, Equatable {
    /// Path of the SQLite database file; relative to the config file's directory. Default `linkwell.db`.
    public var sqlite: String?
    /// A libpq connection string (`postgresql://linkwell@127.0.0.1:5432/linkwell`), without the
    /// password; set instead of ``sqlite``.
    public var postgres: String?
    /// A file whose first line is the PostgreSQL password (relative to the config file's
    /// directory). Else `LINKWELL_POSTGRES_PASSWORD`, libpq's `PGPASSWORD` or `~/.pgpass`.
    public var passwordFile: String?
    /// Click counting (`storage.clicks`); nil: the defaults.
    public var clicks: ClickSettings?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sqlite, postgres, passwordFile, clicks
    }

    /// Settings with the SQLite file at `sqlite` (nil: the default `linkwell.db`), or a
    /// PostgreSQL database.
    public init(sqlite: String? = nil, postgres: String? = nil, passwordFile: String? = nil, clicks: ClickSettings? = nil) {
        self.sqlite = sqlite
        self.postgres = postgres
        self.passwordFile = passwordFile
        self.clicks = clicks
    }
}

/// Settings of the running server (`linkwell serve`); all optional with sane defaults.
public struct ServerSettings: Codable, Sendable, Equatable {
    /// Addresses to serve on: numeric `IPv4:port` or `[IPv6]:port` (`127.0.0.1:8080`).
    public var listen: [String]?
    /// Address of the admin listener (metrics, health), same form as ``listen``; keep it private.
    public var admin: String?
    /// Polling threads per listen address; default: the number of CPU cores.
    public var threads: Int?
    /// CIDRs whose `Forwarded` / `X-Forwarded-*` headers are believed. Default: loopback only.
    public var trustedProxies: [String]?
    /// `Cache-Control` for the association files. Default `public, max-age=300`.
    public var associationCacheControl: String?
    /// Open connections per listen address (default 4096); beyond it new ones are closed at once.
    public var connectionLimit: Int?
    /// Open connections from one client IP (default 128; `0` = no limit); `trustedProxies` are exempt.
    public var perIPConnectionLimit: Int?
    /// Seconds before a connection that sends nothing is closed (default 30; `0` = never).
    public var connectionTimeoutSeconds: Int?
    /// Advanced: libmicrohttpd's memory per connection (default ``requestHeadBytes`` + 12288).
    public var requestHeaderMemoryBytes: Int?
    /// Seconds a client has to send a whole request head (default 10; `0` = no deadline).
    public var requestHeadTimeoutSeconds: Double?
    /// Request line plus headers, in bytes, answered normally (default 16384; 431 beyond).
    public var requestHeadBytes: Int?
    /// How long a stopping server waits for open requests, in seconds.
    public var shutdownDeadlineSeconds: Double?
    /// Log the query string of page requests (off by default: it can carry personal data).
    public var logQueryStrings: Bool?
    /// Where `public/` (templates, CSS, images) is; default `public` next to the config folder.
    public var publicDir: String?
    /// Open connections on the admin listener (default 128); beyond it new ones are closed at once.
    public var adminConnectionLimit: Int?
    /// Open admin connections from one client IP (default 16; `0` = no limit).
    public var adminPerIPConnectionLimit: Int?
    /// The largest admin API request body, in bytes (default 1 MiB; 413 beyond).
    public var adminBodyBytes: Int?
    /// The largest body of a bulk admin endpoint (`POST /api/v1/links`), in bytes (default 16 MiB).
    public var adminBulkBodyBytes: Int?
    /// The header an authenticating proxy names the console user in (single sign-on); unset: none.
    public var consoleUserHeader: String?
    /// The header that proxy names the user's role in (`read`, `write`, `admin`); unset: `read`.
    public var consoleRoleHeader: String?
    /// Addresses of the proxies whose ``consoleUserHeader`` is believed (CIDRs); no default.
    public var consoleSSOProxies: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, admin, threads, trustedProxies, associationCacheControl, connectionLimit, perIPConnectionLimit,
            connectionTimeoutSeconds, requestHeaderMemoryBytes, requestHeadTimeoutSeconds, requestHeadBytes,
            shutdownDeadlineSeconds, logQueryStrings, publicDir, adminConnectionLimit, adminPerIPConnectionLimit, adminBodyBytes,
            adminBulkBodyBytes, consoleUserHeader, consoleRoleHeader, consoleSSOProxies
    }

    /// Creates settings with every key unset (all defaults).
    public init() {}
}
