import Association
import Foundation
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP
import Synchronization

/// Everything a request needs, compiled once from a validated route table and `public/`, and
/// never changed afterwards. A reload builds a new one beside it and swaps the reference.
public final class Snapshot: Sendable {
    /// The last `serial` given.
    private static let nextSerial = Atomic<UInt64>(0)

    public let table: RouteTable
    /// Parallel to `table.sites`.
    public let sites: [Site]
    public let assets: StaticAssets
    /// The server settings this snapshot was loaded with (a reload can change them).
    public let server: ServerConfiguration
    public let proxyTrust: ProxyTrust
    public let renderer: any PageRenderer
    /// What a matched link's visitor gets (LandingAnswerer.swift), over `renderer`.
    let answerer: LandingAnswerer
    /// The short links being served, bound to this snapshot's route table: the index the link
    /// refresher swapped in last (`liveLinks`, shared by the snapshots of one server, so a new
    /// link needs no reload). The request path never touches the database.
    public var links: LinkIndex { liveLinks.index.bound(to: tableRef) }
    /// Where the served link index lives (LinkRefresher swaps it).
    public let liveLinks: LinkIndexCell
    /// The short links looked up so far, resolved against `table` (ResolvedLinkCache.swift).
    let resolvedLinks = ResolvedLinkCache()
    private let tableRef: LinkIndex.TableRef
    public var logQueryStrings: Bool { server.logQueryStrings }
    /// The folder laid over the shipped `public/` tree (nil: the shipped tree alone).
    public let publicDirectory: String?
    public let createdAt: Date
    /// This snapshot's number, unique in the process (a memo made under one snapshot is never
    /// taken for another, even one at the same address).
    let serial: UInt64

    public static let defaultCacheControl = ServerConfiguration.defaultCacheControl

    /// The last stage of the load pipeline: serves the bytes `loaded` generated, nothing is
    /// generated again.
    /// - Parameters:
    ///   - publicDirectory: a folder laid over the shipped `public/` tree compiled into the
    ///     binary, file by file (`server.publicDir`); nil: the shipped tree alone. A folder that
    ///     does not exist is an error.
    ///   - configDirectory: where a `landing.templatesDir` that is not under `publicDirectory` is
    ///     looked for (the config file's folder).
    ///   - renderer: how pages are made; by default the landing pages.
    ///   - links: the short links, when there is no `liveLinks` (tests).
    ///   - liveLinks: the server's link index (a reload passes the running one on).
    /// - Throws: `LandingTemplateError` when a folder is missing or a template does not compile,
    ///   so a reload with a broken template keeps the old snapshot.
    public init(
        loaded: LoadedConfig,
        publicDirectory: String?,
        configDirectory: String? = nil,
        renderer: ((RouteTable) throws -> any PageRenderer)? = nil,
        links: [ShortLink] = [],
        liveLinks: LinkIndexCell? = nil
    ) throws {
        let table = loaded.validated.table
        self.tableRef = LinkIndex.TableRef(table)
        self.liveLinks = liveLinks ?? LinkIndexCell(LinkIndexCell.State(index: LinkIndex(links: links, table: table)))
        var files = AssetFiles.embedded
        if let publicDirectory { files = try files.overlaid(directory: publicDirectory, setting: "server.publicDir") }
        for site in table.sites {
            guard let dir = LandingRenderer.templatesFolder(site), !files.hasFolder(dir), let configDirectory,
                  !dir.split(separator: "/").contains(".."), !dir.hasPrefix("/") else { continue }
            files = try files.overlaid(directory: configDirectory + "/" + dir, under: dir,
                                       setting: "sites[\(site.index)].landing.templatesDir")
        }
        self.table = table
        self.server = loaded.server
        self.sites = loaded.validated.sites.map { Site($0, cacheControl: loaded.server.associationCacheControl) }
        self.proxyTrust = ProxyTrust(networks: loaded.server.trustedProxies)
        var generated: [String: [UInt8]] = [:]
        if let renderer {
            self.renderer = try renderer(table)
        } else {
            let landing = try LandingPageRenderer(table: table, files: files)
            for style in landing.landing.brandStyles.compactMap({ $0 }) { generated[style.path] = Array(style.css.utf8) }
            self.renderer = landing
        }
        self.answerer = LandingAnswerer(table: table, renderer: self.renderer)
        self.assets = StaticAssets(files: files, generated: generated)
        self.publicDirectory = publicDirectory
        self.createdAt = Date()
        self.serial = Self.nextSerial.add(1, ordering: .relaxed).newValue
    }

    /// A snapshot of a compiled table (tests, benchmarks): generates its sites once and reads
    /// `server` over the defaults.
    public convenience init(
        table: RouteTable,
        publicDirectory: String?,
        configDirectory: String? = nil,
        renderer: ((RouteTable) throws -> any PageRenderer)? = nil,
        links: [ShortLink] = []
    ) throws {
        let loaded = LoadedConfig(validated: ValidatedConfig(file: "", table: table), server: ServerConfiguration(table.config.server))
        try self.init(loaded: loaded, publicDirectory: publicDirectory, configDirectory: configDirectory, renderer: renderer, links: links)
    }

    /// The snapshot's view of a compiled site.
    public func site(_ compiled: CompiledSite) -> Site {
        sites[compiled.index]
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// `server.publicDir` resolved against the config file's folder; nil when unset (the shipped
    /// tree compiled into the binary serves alone).
    public static func publicDirectory(settings: ServerSettings?, configPath: String) -> String? {
        guard let explicit = settings?.publicDir, !explicit.isEmpty else { return nil }
        let configDir = URL(fileURLWithPath: configPath).deletingLastPathComponent()
        let url = explicit.hasPrefix("/") ? URL(fileURLWithPath: explicit) : configDir.appendingPathComponent(explicit)
        return url.standardizedFileURL.path
    }

    /// The folder of a config file.
    public static func configDirectory(_ configPath: String) -> String {
        URL(fileURLWithPath: configPath).deletingLastPathComponent().standardizedFileURL.path
    }
}
