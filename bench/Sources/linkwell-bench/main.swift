// linkwell-bench: route resolution (ns per URL at 100 … 100k routes), config load (JSON5
// decode), validate (platformCheck: false), compile, generate, and reload-equivalent (snapshot
// build) at 10k routes. Prints one JSON document on stdout. Build and run in release mode:
//
//   swift build -c release --product linkwell-bench && .build/release/linkwell-bench [--quick]
//
// Options: --quick (fewer, shorter runs), --sizes 100,1000,10000,100000, --load-routes 10000,
// --public DIR (public/ for the snapshot; default ./public when present).
//
// --count-resolution P: for each of --sizes, build the table, resolve the URL list once (warm-up),
// then P times inside `resolvePasses` and print the mix as JSON, without timing. bench/callgrind
// runs it under `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=*resolvePasses*`,
// so the instructions counted are exactly those of P × 8,192 `RouteTable.resolve(_:)` calls.
//
// --reload-once SITES: write a config of --load-routes routes in SITES sites and run one
// `ServerRuntime.loadSnapshot` (what SIGHUP runs) inside `reloadOnce`, for profiling the load
// with `--toggle-collect=*reloadOnce*`; prints its time as JSON.

import Association
import Foundation
import LinkRouting
import LinkServer

// MARK: Options

var quick = false
var sizes = [100, 1_000, 10_000, 100_000]
var loadRoutes = 10_000
var runLoad = true
var publicDir: String? = FileManager.default.fileExists(atPath: "public") ? "public" : nil
var countPasses: Int? = nil
var reloadOnceSites: Int? = nil
var reloadReuse: String? = nil
var clickCount: Int? = nil
do {
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        switch a {
        case "--quick": quick = true
        case "--sizes": sizes = (args.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        case "--load-routes": loadRoutes = Int(args.popFirst() ?? "") ?? loadRoutes
        case "--public": publicDir = args.popFirst()
        case "--no-load": runLoad = false
        case "--count-resolution":
            guard let p = Int(args.popFirst() ?? ""), p >= 1 else {
                FileHandle.standardError.write(Data("linkwell-bench: --count-resolution needs a number of passes (at least 1), e.g. --count-resolution 2\n".utf8))
                exit(2)
            }
            countPasses = p
        case "--reload-once":
            guard let n = Int(args.popFirst() ?? ""), n >= 1 else {
                FileHandle.standardError.write(Data("linkwell-bench: --reload-once needs a number of sites (at least 1), e.g. --reload-once 20\n".utf8))
                exit(2)
            }
            reloadOnceSites = n
        case "--reload-reuse":
            guard let mode = args.popFirst(), ["unchanged", "one-site"].contains(mode) else {
                FileHandle.standardError.write(Data("linkwell-bench: --reload-reuse needs 'unchanged' or 'one-site', e.g. --reload-once 20 --reload-reuse one-site\n".utf8))
                exit(2)
            }
            reloadReuse = mode
        case "--clicks":
            guard let n = Int(args.popFirst() ?? ""), n >= 1 else {
                FileHandle.standardError.write(Data("linkwell-bench: --clicks needs a number of clicks, e.g. --clicks 1000000\n".utf8))
                exit(2)
            }
            clickCount = n
        case "-h", "--help":
            print("usage: linkwell-bench [--quick] [--sizes 100,1000,10000,100000] [--load-routes 10000] [--public DIR] [--no-load] [--count-resolution PASSES] [--reload-once SITES [--reload-reuse unchanged|one-site]] [--clicks N (CLICK_LINKS=1000,10000,100000)]")
            exit(0)
        default:
            FileHandle.standardError.write(Data("linkwell-bench: unknown option \(a)\n".utf8))
            exit(2)
        }
    }
}

// MARK: Helpers

func nanoseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
}

/// Deterministic generator (SplitMix64), so every run benchmarks the same table and URLs.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    if s.isEmpty { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func summary(_ xs: [Double], scale: Double = 1) -> [String: Any] {
    let v = xs.map { $0 * scale }
    return ["median": round3(median(v)), "min": round3(v.min() ?? .nan), "max": round3(v.max() ?? .nan), "runs": v.count]
}

func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

/// Times `body` `runs` times (after one warm-up unless `warmup` is false), in milliseconds.
/// `before` runs ahead of each run, outside the measured time.
func timeMS(_ label: String, runs: Int, warmup: Bool = true, before: () -> Void = {}, _ body: () -> Void) -> [Double] {
    var out: [Double] = []
    for i in 0..<(runs + (warmup ? 1 : 0)) {
        before()
        let t0 = ContinuousClock.now
        body()
        let ms = nanoseconds(ContinuousClock.now - t0) / 1e6
        if !(warmup && i == 0) { out.append(ms) }
        FileHandle.standardError.write(Data("  \(label): \(round3(ms)) ms\n".utf8))
        // One slow run is enough to tell.
        if ms > 5_000 { if out.isEmpty { out.append(ms) }; break }
    }
    return out
}

// MARK: Config generation

/// The shapes a generated route takes, cycling every 10 entries under one literal base.
/// Half of the bases share a first segment (`/shop/c<g>`), half are top-level (`/s<g>`).
let shapeCount = 10

func base(_ g: Int) -> String { g % 2 == 0 ? "/s\(g)" : "/shop/c\(g)" }

/// JSON5 text of one site with `n` entries (routes and exclusions).
func siteJSON5(name: String, domain: String, routes n: Int, into out: inout String) {
    out += """
        {
          name: "\(name)",
          domains: ["\(domain)"],
          ios: [{ id: "ios", teamID: "TEAMID1234", bundleID: "example.\(name).app", schemes: ["\(name)app"] }],
          android: [{ id: "android", package: "example.\(name).app", fingerprints: ["38:17:17:3B:E6:4C:38:8E:0B:4F:AD:88:1E:C7:E6:B3:CF:6E:96:26:BF:19:A2:8E:1D:AA:40:34:C2:CB:D7:20"] }],
          routes: [
            // two routes every URL's first segment is checked against
            { name: "handle", path: "/@{handle}" },
            { name: "help", path: "/{lang}/help", params: { lang: { oneOf: ["en", "fr", "de", "es"] } } },

        """
    for i in 0..<max(0, n - 2) {
        let g = i / shapeCount
        let b = base(g)
        switch i % shapeCount {
        case 0: out += "      { exclude: \"\(b)/private/*\" },\n"
        case 1: out += "      { name: \"r\(i)\", path: \"\(b)/items/{id}\", preview: { title: \"Item {id}\" } },\n"
        case 2: out += "      { name: \"r\(i)\", path: \"\(b)/about\" },\n"
        case 3: out += "      { name: \"r\(i)\", path: \"\(b)/{slug}.html\" },\n"
        case 4: out += "      { name: \"r\(i)\", path: \"\(b)/search\", query: { q: { required: true }, page: {} } },\n"
        case 5: out += "      { name: \"r\(i)\", path: \"\(b)/{lang}/docs/{page}\", params: { lang: { oneOf: [\"en\", \"fr\", \"de\"] } } },\n"
        case 6: out += "      { name: \"r\(i)\", path: \"\(b)/u/{user}/posts/{post}\", apps: [\"ios\"] },\n"
        case 7: out += "      { name: \"r\(i)\", path: \"\(b)/files/{path*}\" },\n"
        case 8: out += "      { name: \"r\(i)\", path: \"\(b)/p/{id}\", query: { ref: {} }, fragment: \"section\" },\n"
        default: out += "      { name: \"r\(i)\", path: \"\(b)/settings/profile\", apps: [\"android\"] },\n"
        }
    }
    out += "    ],\n  },\n"
}

func configJSON5(sites: Int, routesPerSite: Int) -> String {
    var out = "// generated by linkwell-bench\n{\n  server: { listen: [\"127.0.0.1:0\"] },\n  sites: [\n"
    for s in 0..<sites { siteJSON5(name: "bench\(s)", domain: "bench\(s).example", routes: routesPerSite, into: &out) }
    out += "  ],\n}\n"
    return out
}

/// URLs for a table of `n` entries on `bench0.example`: about 70% hits across every shape, 30%
/// misses (unknown section, unknown path under a known section, oneOf value not allowed,
/// required query missing) and a few excluded paths.
func urls(routes n: Int, count: Int, seed: UInt64) -> [String] {
    var rng = SplitMix(state: seed)
    let groups = max(1, (n - 2) / shapeCount)
    var out: [String] = []
    out.reserveCapacity(count)
    while out.count < count {
        let g = rng.below(groups)
        let b = base(g)
        let v = rng.below(100_000)
        let host = "https://bench0.example"
        if rng.below(100) < 70 {
            switch rng.below(12) {
            case 0: out.append("\(host)\(b)/items/\(v)")
            case 1: out.append("\(host)\(b)/about")
            case 2: out.append("\(host)\(b)/post-\(v).html")
            case 3: out.append("\(host)\(b)/search?q=shoes%20\(v)&page=2")
            case 4: out.append("\(host)\(b)/fr/docs/page\(v)")
            case 5: out.append("\(host)\(b)/u/user\(v)/posts/\(v)")
            case 6: out.append("\(host)\(b)/files/a/b/c\(v).pdf")
            case 7: out.append("\(host)\(b)/p/\(v)?ref=mail&utm_source=x#intro")
            case 8: out.append("\(host)\(b)/settings/profile/")
            case 9: out.append("\(host)/@user\(v)")
            case 10: out.append("\(host)/de/help")
            default: out.append("\(host)\(b)/private/\(v)")  // excluded
            }
        } else {
            switch rng.below(5) {
            case 0: out.append("\(host)/nope\(v)/items/\(v)")
            case 1: out.append("\(host)\(b)/unknown/\(v)")
            case 2: out.append("\(host)\(b)/xx/docs/page\(v)")
            case 3: out.append("\(host)\(b)/search?page=2")
            default: out.append("\(host)/it/help")
            }
        }
    }
    return out
}

// MARK: Resolution

struct Tally {
    var matched = 0, excluded = 0, noRoute = 0, other = 0
    mutating func add(_ r: LinkResolution) {
        switch r {
        case .matched: matched += 1
        case .excluded: excluded += 1
        case .noRoute: noRoute += 1
        default: other += 1
        }
    }
}

/// The table of `n` routes and its URL list, the same for the timed and the counted runs.
func resolutionInput(routes n: Int) -> (RouteTable, [String]) {
    let text = configJSON5(sites: 1, routesPerSite: n)
    let config: LinkwellConfig
    do { config = try ConfigLoader.decode(Data(text.utf8), file: "bench-\(n).json5").config } catch {
        fatalError("generated config does not decode: \(error)")
    }
    let table: RouteTable
    do { table = try RouteTable(config: config) } catch { fatalError("generated config does not compile: \(error)") }
    return (table, urls(routes: n, count: 8_192, seed: 0x5EED_0000 &+ UInt64(n)))
}

/// `passes` × every URL of `list` through `RouteTable.resolve(_:)`: the only code callgrind counts
/// in `--count-resolution` runs (its name is the `--toggle-collect` pattern; never inlined).
@inline(never) func resolvePasses(_ table: RouteTable, _ list: [String], passes: Int) -> Int {
    var matched = 0
    for _ in 0..<passes {
        for u in list {
            if case .matched = table.resolve(u) { matched &+= 1 }
        }
    }
    return matched
}

@MainActor func resolutionBenchmark(routes n: Int) -> [String: Any] {
    let (table, list) = resolutionInput(routes: n)
    var tally = Tally()
    for u in list { tally.add(table.resolve(u)) }

    // Each run resolves the whole list enough times to last ≥ minRunNS.
    let minRunNS: Double = quick ? 50e6 : 250e6
    let runs = quick ? 3 : 7
    var perURL: [Double] = []
    var sink = 0
    for _ in 0..<runs {
        var resolved = 0
        let t0 = ContinuousClock.now
        var elapsed: Double = 0
        repeat {
            for u in list {
                if case .matched = table.resolve(u) { sink &+= 1 }
            }
            resolved += list.count
            elapsed = nanoseconds(ContinuousClock.now - t0)
        } while elapsed < minRunNS
        perURL.append(elapsed / Double(resolved))
    }
    if sink == -1 { print("") }  // keep the loop observable
    return [
        "routes": n,
        "urls": list.count,
        "ns_per_url": summary(perURL),
        "mix": ["matched": tally.matched, "excluded": tally.excluded, "no_route": tally.noRoute, "other": tally.other],
    ]
}

// MARK: Load / validate / compile / generate / reload

@MainActor func loadBenchmark(routes n: Int, sites: Int) -> [String: Any] {
    let text = configJSON5(sites: sites, routesPerSite: n / sites)
    let data = Data(text.utf8)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("bench.json5").path
    FileManager.default.createFile(atPath: path, contents: data)
    let runs = quick ? 2 : 5
    let file = "bench.json5"

    var config: LinkwellConfig!
    let decode = timeMS("decode", runs: runs) { config = try! ConfigLoader.decode(data, file: file).config }
    var report: ValidationReport!
    let validate = timeMS("validate", runs: runs) { report = ConfigValidator.validate(config, file: file, platformCheck: false) }
    var table: RouteTable!
    let compile = timeMS("compile", runs: runs) { table = try! RouteTable(config: config) }
    var aasaBytes = 0
    var assetBytes = 0
    let generate = timeMS("generate", runs: runs) {
        aasaBytes = 0
        assetBytes = 0
        for site in table.sites {
            let generated = GeneratedSite(site)
            aasaBytes += generated.aasa.count
            assetBytes += generated.assetLinks.count
        }
    }
    let snapshot = timeMS("snapshot", runs: runs) { _ = try! Snapshot(table: table, publicDirectory: publicDir) }
    // Load: bytes → decoded, validated, compiled, both files generated (what `validate` does
    // without the platform check: `ValidatedConfig` holds both files of every site).
    let load = timeMS("load", runs: runs) {
        let c = try! ConfigLoader.decode(data, file: file).config
        _ = ConfigValidator.validate(c, file: file, platformCheck: false)
    }
    // Reload-equivalent: read the file, decode, validate, build the snapshot (what SIGHUP does;
    // `ServerRuntime.loadSnapshot` when the config is valid).
    var reloadValid = false
    let reload = timeMS("reload", runs: runs) {
        let (snap, r) = ServerRuntime.loadSnapshot(configPath: path)
        reloadValid = snap != nil
        if snap == nil, r.table == nil {
            // An invalid config (a single site over the AASA size limit) stops before the
            // snapshot; build it anyway so the number includes the same work.
            let c = try! ConfigLoader.decode(Data(contentsOf: URL(fileURLWithPath: path)), file: path).config
            _ = try! Snapshot(table: try! RouteTable(config: c), publicDirectory: publicDir)
        }
    }
    // What SIGHUP runs now: `loadSnapshot` with the serving snapshot as `previous`, so a site
    // whose part of the file did not change is reused as compiled and generated. Two cases: the
    // same file again, and a file in which one site (the last) changed; each run alternates
    // between the two spellings of that site, so every run regenerates it.
    var sighupUnchanged: [Double] = []
    var sighupOneSite: [Double] = []
    if var serving = ServerRuntime.loadSnapshot(configPath: path).0 {
        sighupUnchanged = timeMS("reload (SIGHUP, unchanged)", runs: runs) {
            serving = ServerRuntime.loadSnapshot(configPath: path, previous: serving).0!
        }
        let last = "\"bench\(sites - 1).example\""
        let variants = [text.replacingOccurrences(of: "domains: [\(last)]", with: "domains: [\(last), \"www.bench\(sites - 1).example\"]"), text]
        var turn = 0
        sighupOneSite = timeMS("reload (SIGHUP, one site changed)", runs: runs, before: {
            FileManager.default.createFile(atPath: path, contents: Data(variants[turn % 2].utf8))
            turn += 1
        }) {
            serving = ServerRuntime.loadSnapshot(configPath: path, previous: serving).0!
        }
        FileManager.default.createFile(atPath: path, contents: data)
    }
    return [
        "routes": n,
        "sites": sites,
        "config_bytes": data.count,
        "aasa_bytes": aasaBytes,
        "assetlinks_bytes": assetBytes,
        "valid": report.isValid,
        "errors": report.errors.map(\.description).prefix(3).map { String($0.prefix(300)) },
        "reload_snapshot_built": reloadValid,
        "ms": [
            "decode": summary(decode),
            "validate_no_platform_check": summary(validate),
            "compile": summary(compile),
            "generate_aasa_and_assetlinks": summary(generate),
            "snapshot": summary(snapshot),
            "load_total": summary(load),
            "reload_equivalent": summary(reload),
        ].merging(sighupUnchanged.isEmpty ? [:] : [
            "reload_sighup_unchanged": summary(sighupUnchanged),
            "reload_sighup_one_site_changed": summary(sighupOneSite),
        ]) { a, _ in a },
    ]
}

// MARK: Run

if let sites = reloadOnceSites {
    // One `ServerRuntime.loadSnapshot` of --load-routes routes in SITES sites, inside
    // `reloadOnce` (for `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=*reloadOnce*`).
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("bench.json5").path
    FileManager.default.createFile(atPath: path, contents: Data(configJSON5(sites: sites, routesPerSite: loadRoutes / sites).utf8))
    // --reload-reuse: the reload SIGHUP runs, with the serving snapshot (loaded before the
    // measured call) as `previous`; "unchanged" reloads the same file, "one-site" a file whose
    // last site has one more domain.
    let previous = reloadReuse == nil ? nil : ServerRuntime.loadSnapshot(configPath: path).0
    if reloadReuse == "one-site" {
        let last = "\"bench\(sites - 1).example\""
        let text = configJSON5(sites: sites, routesPerSite: loadRoutes / sites)
        FileManager.default.createFile(atPath: path, contents: Data(text.replacingOccurrences(of: "domains: [\(last)]", with: "domains: [\(last), \"www.bench\(sites - 1).example\"]").utf8))
    }
    @inline(never) func reloadOnce() -> Bool { ServerRuntime.loadSnapshot(configPath: path, previous: previous).0 != nil }
    let t0 = ContinuousClock.now
    let built = reloadOnce()
    let ms = nanoseconds(ContinuousClock.now - t0) / 1e6
    print("{\"reload_once\": {\"routes\": \(loadRoutes), \"sites\": \(sites), \"reuse\": \"\(reloadReuse ?? "none")\", \"snapshot_built\": \(built), \"ms\": \(round3(ms))}}")
    exit(0)
}

if let clickCount {
    let sizes = ProcessInfo.processInfo.environment["CLICK_LINKS"].map { $0.split(separator: ",").compactMap { Int($0) } }
        ?? (quick ? [1_000] : [1_000, 10_000, 100_000])
    let json = try! JSONSerialization.data(withJSONObject: clickBenchmark(clicks: clickCount, keySizes: sizes), options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(json)
    FileHandle.standardOutput.write(Data("\n".utf8))
    exit(0)
}
if let passes = countPasses {
    var counted: [[String: Any]] = []
    for n in sizes {
        FileHandle.standardError.write(Data("linkwell-bench: counting \(passes) pass(es) of resolution at \(n) routes\n".utf8))
        let (table, list) = resolutionInput(routes: n)
        var tally = Tally()
        for u in list { tally.add(table.resolve(u)) }  // warm-up: first-use costs stay outside the count
        let matched = resolvePasses(table, list, passes: passes)
        counted.append([
            "routes": n, "urls": list.count, "passes": passes, "matched_per_pass": matched / passes,
            "mix": ["matched": tally.matched, "excluded": tally.excluded, "no_route": tally.noRoute, "other": tally.other],
        ])
    }
    let json = try! JSONSerialization.data(withJSONObject: ["count_resolution": counted], options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(json)
    FileHandle.standardOutput.write(Data("\n".utf8))
    exit(0)
}

var resolution: [[String: Any]] = []
for n in sizes {
    FileHandle.standardError.write(Data("linkwell-bench: resolution at \(n) routes\n".utf8))
    resolution.append(resolutionBenchmark(routes: n))
}
if !runLoad {
    let json = try! JSONSerialization.data(withJSONObject: ["resolution": resolution], options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(json)
    exit(0)
}
FileHandle.standardError.write(Data("linkwell-bench: load at \(loadRoutes) routes (1 site)\n".utf8))
let loadOne = loadBenchmark(routes: loadRoutes, sites: 1)
let siteCount = max(1, loadRoutes / 500)
FileHandle.standardError.write(Data("linkwell-bench: load at \(loadRoutes) routes (\(siteCount) sites)\n".utf8))
let loadMany = loadBenchmark(routes: loadRoutes, sites: siteCount)

func ns(_ r: [String: Any]) -> Double { ((r["ns_per_url"] as! [String: Any])["median"] as! Double) }
func ms(_ r: [String: Any], _ k: String) -> Double { (((r["ms"] as! [String: Any])[k] as! [String: Any])["median"] as! Double) }

var targets: [String: Any] = [:]
if let r10k = resolution.first(where: { $0["routes"] as? Int == 10_000 }) {
    targets["ns_per_url_at_10k"] = ["value": ns(r10k), "target": 1000.0, "met": ns(r10k) <= 1000]
}
if let lo = resolution.first(where: { $0["routes"] as? Int == 100 }), let hi = resolution.first(where: { $0["routes"] as? Int == 100_000 }) {
    let ratio = round3(ns(hi) / ns(lo))
    targets["ratio_100k_over_100"] = ["value": ratio, "target": 2.0, "met": ratio <= 2]
}
let worstLoad = max(ms(loadOne, "load_total"), ms(loadMany, "load_total"))
let worstReload = max(ms(loadOne, "reload_equivalent"), ms(loadMany, "reload_equivalent"))
targets["load_ms_at_10k"] = ["value": worstLoad, "target": 300.0, "met": worstLoad <= 300]
targets["reload_ms_at_10k"] = ["value": worstReload, "target": 100.0, "met": worstReload <= 100]
// SIGHUP reuses unchanged sites; only the valid config (sites of 500 routes) builds a snapshot.
if (loadMany["ms"] as! [String: Any])["reload_sighup_one_site_changed"] != nil {
    let oneSite = ms(loadMany, "reload_sighup_one_site_changed"), unchanged = ms(loadMany, "reload_sighup_unchanged")
    targets["reload_ms_at_10k_sighup_one_site_changed"] = ["value": oneSite, "target": 100.0, "met": oneSite <= 100]
    targets["reload_ms_at_10k_sighup_unchanged"] = ["value": unchanged, "target": 100.0, "met": unchanged <= 100]
}

let result: [String: Any] = [
    "benchmark": "linkwell-bench",
    "quick": quick,
    "resolution": resolution,
    "load": [loadOne, loadMany],
    "targets": targets,
]
let json = try! JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
FileHandle.standardOutput.write(json)
FileHandle.standardOutput.write(Data("\n".utf8))
