// linkwell-links-bench: how long the server takes to load N stored short links into its
// in-memory index, and the memory it needs (issue 16: 1 M links in ≤ 2 s and ≤ 200 MB RSS).
// bench/links-load runs it on SQLite and on a throw-away PostgreSQL server. Release mode:
//
//   linkwell-links-bench fill --config C --count N      add N links to the config's storage
//   linkwell-links-bench load --config C [--rounds R]   load them as `serve` does; prints JSON
//   linkwell-links-bench patch --config C [--rounds R]  the cost of one changed link: the
//       server's refresher (LinkRefresher.check) after one link is written by another
//       connection, per round; prints JSON (median, best, worst milliseconds)
//   fill --start S adds codes S..<S+N (to grow a filled database).
//
// `load` is a fresh process, so its peak RSS (VmHWM) is the load's and the config's, not the fill's.

import Foundation
import LinkRouting
import LinkServer
import LinkStore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("linkwell-links-bench: \(message)\n".utf8))
    exit(1)
}

/// CPU seconds (user + system) this process used so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func procStatus(_ key: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }),
          let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kb / 1024
}

var args = CommandLine.arguments.dropFirst()
guard let action = args.popFirst() else { fail("usage: fill|load --config FILE [--count N] [--rounds R]") }
var configPath = ""
var count = 1_000_000
var rounds = 3
var startAt = 0
while let a = args.popFirst() {
    switch a {
    case "--config": configPath = args.popFirst() ?? ""
    case "--count": count = Int(args.popFirst() ?? "") ?? count
    case "--rounds": rounds = Int(args.popFirst() ?? "") ?? rounds
    case "--start": startAt = Int(args.popFirst() ?? "") ?? startAt
    default: fail("unknown option \(a)")
    }
}
let (loaded, report) = LoadedConfig.load(path: configPath)
guard let loaded else { fail("config \(configPath): \(report.errors.map(\.description).joined(separator: "; "))") }
let table = loaded.validated.table
let site = table.sites[0]
let location: StorageLocation
do { location = try StorageLocation.of(storage: table.config.storage, configPath: configPath) } catch { fail("\(error)") }

func code(_ i: Int) -> String {
    let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    var n = i
    var s = ""
    for _ in 0..<6 { s.append(alphabet[n % 62]); n /= 62 }
    return "k" + s
}

switch action {
case "fill":
    do {
        let store = try LinkStore(location)
        let host = site.canonicalHost
        let created = Date(timeIntervalSince1970: 1_764_000_000)
        var i = startAt
        while i < startAt + count {
            let batch = (i..<min(i + 10_000, startAt + count)).map { n in
                // Three in four deep links (the signup route with a referral code), the rest web
                // pages; one in ten with a preview title, one in fifty disabled.
                ShortLink(
                    code: code(n), site: site.name,
                    target: n % 4 == 3 ? "https://\(host)/blog/2026/\(n)" : "https://\(host)/signup?referralCode=R\(n)",
                    previewTitle: n % 10 == 0 ? "Spring offer \(n)" : nil, disabled: n % 50 == 49, createdAt: created)
            }
            try store.insertAll(batch)
            i += batch.count
        }
        print("{\"filled\": \(count), \"storage\": \"\(location.dialect.rawValue)\"}")
    } catch { fail("\(error)") }
case "load":
    let baseline = procStatus("VmRSS")
    do {
        let store = try LinkStore(location)
        var times: [Double] = []
        var cpu: [Double] = []
        var index = LinkIndex.empty
        for _ in 0..<rounds {
            index = .empty
            let start = ContinuousClock.now
            let cpuStart = cpuSeconds()
            index = try store.loadIndex(table: table).index
            cpu.append(cpuSeconds() - cpuStart)
            times.append(seconds(ContinuousClock.now - start))
        }
        let rssAfter = procStatus("VmRSS")
        let peak = procStatus("VmHWM")
        // One lookup, so the index is the real thing; then the full check of every link (what
        // `skipped` costs: not done when loading, each lookup checks its own link).
        let probe = index.lookup(site: site.name, code: Substring(code(0)))
        let checkStart = cpuSeconds()
        let skipped = index.skipped.count
        let checkSeconds = cpuSeconds() - checkStart
        let codes = (0..<100_000).map { Substring(code($0 * 7 % count)) }
        let lookupStart = cpuSeconds()
        var found = 0
        for c in codes where index.lookup(site: site.name, code: c) != nil { found += 1 }
        let lookupMicros = (cpuSeconds() - lookupStart) / 100_000 * 1e6
        // The same route's own resolution (what a request for the target itself costs here).
        let targets = (0..<100_000).map { "https://\(site.canonicalHost)/signup?referralCode=R\($0)" }
        let resolveStart = cpuSeconds()
        var matched = 0
        for t in targets where table.resolve(t).match != nil { matched += 1 }
        let resolveMicros = (cpuSeconds() - resolveStart) / 100_000 * 1e6
        let fields: [(String, String)] = [
            ("storage", "\"\(location.dialect.rawValue)\""), ("links_indexed", "\(index.count)"), ("links_not_answering", "\(skipped)"),
            ("rounds", "\(rounds)"), ("load_seconds_best", String(format: "%.3f", times.min() ?? 0)),
            ("load_seconds_all", "[" + times.map { String(format: "%.3f", $0) }.joined(separator: ", ") + "]"),
            ("load_cpu_seconds_best", String(format: "%.3f", cpu.min() ?? 0)),
            ("index_mb", String(format: "%.1f", Double(index.memoryBytes) / 1_048_576)),
            ("rss_before_mb", String(format: "%.1f", baseline)), ("rss_after_mb", String(format: "%.1f", rssAfter)),
            ("peak_rss_mb", String(format: "%.1f", peak)), ("probe_found", probe == nil ? "false" : "true"),
            ("check_all_cpu_seconds", String(format: "%.3f", checkSeconds)),
            ("lookup_cpu_microseconds", String(format: "%.2f", lookupMicros)), ("lookups_found", "\(found)"),
            ("route_resolve_cpu_microseconds", String(format: "%.2f", resolveMicros)), ("resolved", "\(matched)"),
        ]
        print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    } catch { fail("\(error)") }
case "patch":
    do {
        let writer = try LinkStore(location)
        let stored = try writer.links(site: site.name, after: nil, limit: 1).count
        guard stored > 0 else { fail("no links: fill first") }
        let cell = LinkIndexCell()
        let status = LinkStoreStatus()
        let refresher = LinkRefresher(cell: cell, log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)),
                                      configPath: configPath, status: status)
        let storage = table.config.storage
        let loadStart = ContinuousClock.now
        guard refresher.check(storage: storage, reason: "start") else { fail("the first read failed") }
        let fullRead = seconds(ContinuousClock.now - loadStart)
        let total = cell.index.count
        var times: [Double] = []
        var cpu: [Double] = []
        for round in 0..<rounds {
            // One link changed by another connection (the CLI, another instance): its target.
            let c = code(round * 7919 % max(total, 1))
            guard var link = try writer.link(site: site.name, code: c) else { fail("no link \(c)") }
            link.target = "https://\(site.canonicalHost)/signup?referralCode=P\(round)"
            link.disabled = false
            try writer.upsert(link)
            let start = ContinuousClock.now
            let cpuStart = cpuSeconds()
            guard refresher.check(storage: storage, reason: "changed") else { fail("check failed") }
            cpu.append(cpuSeconds() - cpuStart)
            times.append(seconds(ContinuousClock.now - start))
            guard cell.index.bound(to: table).lookup(site: site.name, code: Substring(c))?.link.target == link.target else {
                fail("round \(round): the changed link is not served")
            }
        }
        let counts = status.refreshCounts
        let sorted = times.sorted()
        let ms = { (v: Double) in String(format: "%.2f", v * 1000) }
        let median = { (v: [Double]) in v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2 }
        let fields: [(String, String)] = [
            ("storage", "\"\(location.dialect.rawValue)\""), ("links_indexed", "\(cell.index.count)"), ("rounds", "\(rounds)"),
            ("first_full_read_seconds", String(format: "%.3f", fullRead)),
            ("patch_ms_median", ms(median(sorted))), ("patch_ms_best", ms(sorted.first!)), ("patch_ms_worst", ms(sorted.last!)),
            ("patch_cpu_ms_median", ms(median(cpu.sorted()))),
            ("full_reads", "\(counts.fullReads.values.reduce(0, +))"), ("patches", "\(counts.patches)"),
        ]
        print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    } catch { fail("\(error)") }
default:
    fail("unknown action \(action); use fill, load or patch")
}
