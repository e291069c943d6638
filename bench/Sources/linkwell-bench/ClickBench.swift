// `linkwell-bench --clicks N`: the click counter and its flush (docs/reference/stats.md, BENCHMARKS.md).
// N clicks spread over 1,000 / 10,000 / 100,000 short links (CLICK_LINKS=… for others) of one day are counted into a
// ClickRecorder (the request path's call, one thread), then flushed into a fresh SQLite file
// (one transaction of upserts), then the same again into the same file (every row an update).

import Foundation
import LinkRouting
import LinkServer
import LinkStore

func clickBenchmark(clicks: Int, keySizes: [Int]) -> [String: Any] {
    let hosts = ["", "", "", "mail.google.com", "t.co", "l.instagram.com", "www.facebook.com", "news.ycombinator.com", "com.google.android.gm"]
    var runs: [[String: Any]] = []
    for keys in keySizes {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-clickbench-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ClickRecorder.Settings(databasePath: dir.appendingPathComponent("linkwell.db").path, clicks: nil)
        settings.maxKeys = max(keys * 2, 100)
        let recorder = ClickRecorder(settings: settings, log: nil, clock: { 1_796_126_400 })
        // The events first, so the timed loop is the counter alone.
        var rng = SplitMix(state: UInt64(keys))
        let codes = (0..<keys).map { "c\($0)" }
        let events: [(ClickEvent, String)] = (0..<min(clicks, 1_000_000)).map { i in
            let p = ClickPlatform(rawValue: rng.below(4))!
            let outcome: ClickOutcome = rng.below(20) == 0 ? .notFound : [.appPage, .store, .web, .appPage][p.rawValue]
            let e = ClickEvent(site: "shop", code: codes[i % keys], route: "item", platform: p, outcome: outcome,
                               inAppBrowser: rng.below(10) == 0, crawler: rng.below(20) == 0)
            return (e, hosts[rng.below(hosts.count)])
        }
        // The first flush creates the file and its schema and runs the hourly maintenance: not timed.
        recorder.counter.record(events[0].0, referrer: "", unixSeconds: 1_796_126_400 - 86_400)
        _ = recorder.flush()
        var result: [String: Any] = ["keys": keys, "clicks": clicks]
        for pass in ["insert", "update"] {
            let start = ContinuousClock.now
            var counted = 0
            while counted < clicks {
                for (e, host) in events.prefix(clicks - counted) {
                    recorder.counter.record(e, referrer: host, unixSeconds: 1_796_126_400)
                }
                counted += min(events.count, clicks - counted)
            }
            let recordNs = nanoseconds(ContinuousClock.now - start) / Double(clicks)
            let flushStart = ContinuousClock.now
            let flushed = recorder.flush()
            let flushMs = nanoseconds(ContinuousClock.now - flushStart) / 1e6
            guard case let .written(n, rows) = flushed, n == clicks else {
                FileHandle.standardError.write(Data("linkwell-bench: the click flush failed: \(flushed)\n".utf8))
                exit(1)
            }
            result[pass] = ["record_ns_per_click": round3(recordNs), "flush_ms": round3(flushMs), "rows": rows]
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("linkwell.db").path)[.size] as? Int) ?? 0
        result["database_bytes"] = size
        runs.append(result)
        FileHandle.standardError.write(Data("linkwell-bench: \(clicks) clicks over \(keys) links: \(result)\n".utf8))
    }
    let worst = runs.compactMap { ($0["insert"] as? [String: Any])?["flush_ms"] as? Double }.max() ?? 0
    return ["clicks": runs, "targets": ["flush_ms_1m_clicks": ["value": worst, "target": 1000.0, "met": worst <= 1000]]]
}

