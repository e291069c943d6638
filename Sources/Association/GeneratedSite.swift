// The middle stages of the load pipeline (docs/dev/architecture.md):
//
//   file → ConfigLoader.decode (model + unknown-key warnings, one parse)
//        → ValidatedConfig { table, [GeneratedSite] }   (this module: checks, compile, generate once)
//        → Snapshot                                       (LinkServer)
//
// A `GeneratedSite` holds the association bytes and the component plan of one site, made once;
// the snapshot serves those bytes, `validate` measures and checks them, `generate` writes them,
// and the invariant check runs the matchers over them. Nothing downstream generates again.

import LinkRouting
import Synchronization

/// One compiled site with its association files, generated once.
public struct GeneratedSite: Sendable {
    public let compiled: CompiledSite
    /// The site as its association files claim it: `compiled`, plus the short-link claims when
    /// `shortLinks.openApp` is set (``RouteTable/claimsSite(for:)``). The plan, both files and the
    /// invariant check are made from it; the server resolves links through `compiled`.
    public let claims: CompiledSite
    /// The components both files were generated from (`linkwell check` explains with it).
    public let plan: ComponentPlan
    /// The bytes served at `/.well-known/apple-app-site-association` (generated even when the
    /// site has no iOS app; it is then not served).
    public let aasa: [UInt8]
    /// The bytes served at `/.well-known/assetlinks.json`.
    public let assetLinks: [UInt8]
    /// The site's shadowed routes and exclusions that exclude nothing
    /// (`RouteTable.semanticDiagnostics(of:)`), without a file: a reload that reuses the site
    /// reports them again without running the checks.
    public let semanticDiagnostics: [Diagnostic]
    /// The site's own findings from the model checks (`LinkwellConfig.validateSite(_:index:)`),
    /// without a file, when it was loaded by ``ConfigValidator``: a reload that finds the site
    /// unchanged reports them again without running the checks.
    public internal(set) var siteDiagnostics: [Diagnostic] = []
    /// The site's text in the config file and its model, when it was loaded from a file: a
    /// reload that finds the same text at the same position does not decode it again.
    public internal(set) var source: ConfigLoader.SiteSource?

    public init(_ compiled: CompiledSite) {
        self.compiled = compiled
        claims = RouteTable.claimsSite(for: compiled)
        plan = ComponentPlan(site: claims)
        aasa = AASAGenerator.bytes(for: claims, plan: plan)
        assetLinks = AssetLinksGenerator.bytes(for: claims, plan: plan)
        GenerationCounter.record(.semanticChecks, site: compiled)
        semanticDiagnostics = RouteTable.semanticDiagnostics(of: compiled)
    }

    public var name: String { compiled.name }
    /// Apple ignores an AASA over `AASAGenerator.sizeLimit` bytes.
    public var aasaIsOversized: Bool { aasa.count > AASAGenerator.sizeLimit }
    /// Android's verifier reads at most `AssetLinksGenerator.sizeLimit` bytes (1 MiB).
    public var assetLinksIsOversized: Bool { assetLinks.count > AssetLinksGenerator.sizeLimit }
}

/// A config that passed every check: its compiled table and each site's generated files.
public struct ValidatedConfig: Sendable {
    public let file: String
    public let table: RouteTable
    /// Parallel to `table.sites`.
    public let sites: [GeneratedSite]

    public init(file: String, table: RouteTable, sites: [GeneratedSite]) {
        precondition(sites.map(\.compiled.index) == table.sites.map(\.index), "one generated site per compiled site, in order")
        self.file = file
        self.table = table
        self.sites = sites
    }

    /// Generates every site of `table` (once).
    public init(file: String, table: RouteTable) {
        let compiled = table.sites
        self.init(file: file, table: table, sites: ParallelMap.map(compiled.count) { GeneratedSite(compiled[$0]) })
    }

    /// Generates the sites of `table`, except those that are the same compilation as a site of
    /// `previous` (``RouteTable/init(config:reusing:)`` reused them): their files are taken as
    /// they were. What a reload that leaves most sites alone saves.
    /// `siteDiagnostics` and `sources`: each site's own model findings and its text in the
    /// file, parallel to `table.sites` (sources may be empty), kept with the site for the next reload.
    public init(
        file: String, table: RouteTable, reusing previous: [GeneratedSite], siteDiagnostics: [[Diagnostic]]? = nil,
        sources: [ConfigLoader.SiteSource] = []
    ) {
        let compiled = table.sites
        var sites = ParallelMap.map(compiled.count) { i in
            let site = compiled[i]
            if site.index < previous.count, previous[site.index].compiled.isSameCompilation(as: site) {
                return previous[site.index]
            }
            return GeneratedSite(site)
        }
        if let siteDiagnostics {
            precondition(siteDiagnostics.count == sites.count, "one list of findings per site")
            for i in sites.indices { sites[i].siteDiagnostics = siteDiagnostics[i] }
        }
        if sources.count == sites.count {
            for i in sites.indices { sites[i].source = sources[i] }
        }
        self.init(file: file, table: table, sites: sites)
    }

    public var config: LinkwellConfig { table.config }

    /// The generated files of a compiled site of this table.
    public func generated(_ site: CompiledSite) -> GeneratedSite { sites[site.index] }
}

/// Counts generator runs per site, for the tests that prove each load generates once. Set it
/// for a task with `GenerationCounter.$current.withValue(counter) { … }`; unset (the normal
/// case) nothing is counted.
package final class GenerationCounter: Sendable {
    package enum Stage: String, Sendable, CaseIterable {
        case componentPlan, aasa, assetLinks, semanticChecks
        /// The site's own model checks (`LinkwellConfig.validateSite(_:index:)`), run by `ConfigValidator`.
        case siteChecks
    }

    @TaskLocal package static var current: GenerationCounter?

    private let counts = Mutex<[String: Int]>([:])

    package init() {}

    static func record(_ stage: Stage, site: CompiledSite) { record(stage, index: site.index) }

    static func record(_ stage: Stage, index: Int) {
        guard let counter = current else { return }
        counter.counts.withLock { $0["\(index)|\(stage.rawValue)", default: 0] += 1 }
    }

    /// How often `stage` ran for site `index` since the counter was made.
    package func count(_ stage: Stage, site index: Int) -> Int {
        counts.withLock { $0["\(index)|\(stage.rawValue)"] ?? 0 }
    }

    /// Total runs of every stage over every site.
    package var total: Int { counts.withLock { $0.values.reduce(0, +) } }
}
