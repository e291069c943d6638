import Association
import Foundation
import LinkRouting
import MicroHTTP

/// Everything a request needs, compiled once from a validated route table and `public/`, and
/// never changed afterwards. A reload builds a new one beside it and swaps the reference.
public final class Snapshot: Sendable {
    public let table: RouteTable
    /// Parallel to `table.sites`.
    public let sites: [Site]
    public let assets: StaticAssets
    /// The server settings this snapshot was loaded with (a reload can change them).
    public let server: ServerConfiguration
    public let proxyTrust: ProxyTrust
    public let renderer: any PageRenderer
    public var logQueryStrings: Bool { server.logQueryStrings }
    /// The directory the static assets came from (nil: none).
    public let publicDirectory: String?
    public let createdAt: Date

    public static let defaultCacheControl = ServerConfiguration.defaultCacheControl

    /// The last stage of the load pipeline: serves the bytes `loaded` generated, nothing is
    /// generated again.
    /// - Parameter renderer: how pages are made; by default the landing pages from
    ///   `publicDirectory/templates` (`MinimalPageRenderer` when there is no such folder).
    /// - Throws: `LandingTemplateError` when a template does not compile, so a reload with a
    ///   broken template keeps the old snapshot.
    public init(
        loaded: LoadedConfig,
        publicDirectory: String?,
        renderer: ((RouteTable) throws -> any PageRenderer)? = nil
    ) throws {
        let table = loaded.validated.table
        self.table = table
        self.server = loaded.server
        self.sites = loaded.validated.sites.map { Site($0, cacheControl: loaded.server.associationCacheControl) }
        self.assets = StaticAssets(directory: publicDirectory)
        self.proxyTrust = ProxyTrust(networks: loaded.server.trustedProxies)
        if let renderer {
            self.renderer = try renderer(table)
        } else if let publicDirectory, LandingPageRenderer.hasTemplates(publicDirectory) {
            self.renderer = try LandingPageRenderer(table: table, publicDirectory: publicDirectory)
        } else {
            self.renderer = MinimalPageRenderer(table: table)
        }
        self.publicDirectory = publicDirectory
        self.createdAt = Date()
    }

    /// A snapshot of a compiled table (tests, benchmarks): generates its sites once and reads
    /// `server` over the defaults.
    public convenience init(
        table: RouteTable,
        publicDirectory: String?,
        renderer: ((RouteTable) throws -> any PageRenderer)? = nil
    ) throws {
        let loaded = LoadedConfig(validated: ValidatedConfig(file: "", table: table), server: ServerConfiguration(table.config.server))
        try self.init(loaded: loaded, publicDirectory: publicDirectory, renderer: renderer)
    }

    /// The snapshot's view of a compiled site.
    public func site(_ compiled: CompiledSite) -> Site {
        sites[compiled.index]
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// Where `public/` is for a config file: `server.publicDir` (relative to the config file's
    /// folder), else `public` beside the config folder (the repository's `public/`), else
    /// `./public`. Nil when none exists.
    public static func publicDirectory(settings: ServerSettings?, configPath: String) -> String? {
        let configDir = URL(fileURLWithPath: configPath).deletingLastPathComponent()
        var isDir: ObjCBool = false
        if let explicit = settings?.publicDir {
            let url = explicit.hasPrefix("/") ? URL(fileURLWithPath: explicit) : configDir.appendingPathComponent(explicit)
            return url.standardizedFileURL.path
        }
        let candidates = [
            configDir.deletingLastPathComponent().appendingPathComponent("public"),
            configDir.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("public"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("public"),
        ]
        for c in candidates where FileManager.default.fileExists(atPath: c.standardizedFileURL.path, isDirectory: &isDir) && isDir.boolValue {
            return c.standardizedFileURL.path
        }
        return nil
    }
}
