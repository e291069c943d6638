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
    public let proxyTrust: ProxyTrust
    public let renderer: any PageRenderer
    public let logQueryStrings: Bool
    /// The directory the static assets came from (nil: none).
    public let publicDirectory: String?
    public let createdAt: Date

    public static let defaultCacheControl = "public, max-age=300"

    /// - Parameter renderer: how pages are made; by default the landing pages from
    ///   `publicDirectory/templates` (`MinimalPageRenderer` when there is no such folder).
    /// - Throws: `LandingTemplateError` when a template does not compile, so a reload with a
    ///   broken template keeps the old snapshot.
    public init(
        table: RouteTable,
        publicDirectory: String?,
        renderer: ((RouteTable) throws -> any PageRenderer)? = nil
    ) throws {
        let settings = table.config.server ?? ServerSettings()
        let cacheControl = settings.associationCacheControl ?? Self.defaultCacheControl
        self.table = table
        self.sites = table.sites.map { Site($0, cacheControl: cacheControl) }
        self.assets = StaticAssets(directory: publicDirectory)
        self.proxyTrust = ProxyTrust(cidrs: settings.trustedProxies ?? ProxyTrust.defaultCIDRs)
        if let renderer {
            self.renderer = try renderer(table)
        } else if let publicDirectory, LandingPageRenderer.hasTemplates(publicDirectory) {
            self.renderer = try LandingPageRenderer(table: table, publicDirectory: publicDirectory)
        } else {
            self.renderer = MinimalPageRenderer(table: table)
        }
        self.logQueryStrings = settings.logQueryStrings ?? false
        self.publicDirectory = publicDirectory
        self.createdAt = Date()
    }

    /// The snapshot's view of a compiled site.
    public func site(_ compiled: CompiledSite) -> Site {
        sites[compiled.index]
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
