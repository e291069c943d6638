// codegen-reference: LinkRouting's answers for tests/live/test_codegen.py, in the line protocol
// the generated-code drivers speak. Arguments: KEY=CONFIG_PATH…; `--corpus` prints the invariant
// test's sample URLs (InvariantCheck.sampleURLs) of every site as `KEY<TAB>URL` and exits;
// `--sites` prints `KEY<TAB>site<TAB>domains<TAB>schemes` (comma-separated); `--build-cases`
// `--android-apps` prints `KEY<TAB>site<TAB>package<TAB>schemes`; `--build-cases`
// prints build requests for every route (the invariant test's hostile values, optional query and
// fragment values, and values the builder must refuse) in the input format below.
// Input lines: `KEY<TAB>P<TAB>url` (parse) or `KEY<TAB>B<TAB>site<TAB>route<TAB>params` (build;
// params `hex(name):hex(value),…`). Output, one JSON value per line:
//   P → {"site", "route", "parameters"} or null
//   B → {"url", "schemeURL", "parsed", "schemeParsed"} or null when the builder refuses

import Association
import Foundation
import LinkRouting

func hexDecode(_ s: Substring) -> String {
    var bytes: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex, let j = s.index(i, offsetBy: 2, limitedBy: s.endIndex) {
        bytes.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return String(decoding: bytes, as: UTF8.self)
}

func parameters(_ s: Substring) -> [String: String] {
    var out: [String: String] = [:]
    for pair in s.split(separator: ",") {
        let kv = pair.split(separator: ":", omittingEmptySubsequences: false)
        out[hexDecode(kv[0])] = hexDecode(kv[1])
    }
    return out
}

func parsed(_ table: RouteTable, _ url: String) -> Any {
    guard let m = table.resolve(url).match else { return NSNull() }
    return ["site": m.site, "route": m.route, "parameters": m.parameters]
}

func json(_ v: Any) -> String {
    if v is NSNull { return "null" }
    let data = try! JSONSerialization.data(withJSONObject: v, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

var tables: [String: RouteTable] = [:]
var order: [String] = []
var mode = ""
for arg in CommandLine.arguments.dropFirst() {
    if arg.hasPrefix("--") { mode = arg; continue }
    let kv = arg.split(separator: "=", maxSplits: 1)
    let report = ConfigValidator.validate(path: String(kv[1]), platformCheck: false)
    guard let table = report.table else {
        FileHandle.standardError.write(Data("codegen-reference: \(kv[1]): \(report.errors)\n".utf8))
        exit(1)
    }
    tables[String(kv[0])] = table
    order.append(String(kv[0]))
}

func hex(_ s: String) -> String { s.utf8.map { String(format: "%02x", $0) }.joined() }

func buildCases(_ entry: CompiledEntry) -> [[String: String]] {
    guard let route = entry.route else { return [] }
    var cases: [[String: String]] = []
    let hostile = ["a1", "caf\u{E9} au lait", "50% off & more", "a?b#c=d+e", "日本語", "..", ".", "p/q", "", "%zz", "K\u{212A}e\u{301}", "😀"]
    for v in 0..<9 {
        var p = entry.sampleParameters(variant: v)
        cases.append(p)
        for (k, name) in entry.optionalQuery.enumerated() { p[name] = hostile[(v + k) % hostile.count] }
        if let f = route.fragment { p[f] = hostile[(v + 3) % hostile.count] }
        cases.append(p)
    }
    let base = entry.sampleParameters()
    for name in entry.pattern.parameterNames + entry.requiredQuery {
        for bad in ["", "a//b", "/a", "notlisted"] {
            var p = base
            p[name] = bad
            cases.append(p)
        }
        // An absent rest parameter is the empty rest, not a missing value: no refusal to test.
        if entry.pattern.segments.contains(.rest(name: name)) { continue }
        var missing = base
        missing[name] = nil
        cases.append(missing)
    }
    var unknown = base
    unknown["notAParameter"] = "x"
    cases.append(unknown)
    return cases
}

switch mode {
case "--corpus":
    for key in order {
        for site in tables[key]!.sites {
            for (url, _) in InvariantCheck.sampleURLs(site: site) { print("\(key)\t\(url)") }
        }
    }
    exit(0)
case "--sites":
    for key in order {
        for site in tables[key]!.sites {
            print("\(key)\t\(site.name)\t\(site.config.domains.joined(separator: ","))\t\(site.schemes.keys.sorted().joined(separator: ","))")
        }
    }
    exit(0)
case "--android-apps":
    for key in order {
        for site in tables[key]!.sites {
            for app in site.androidApps { print("\(key)\t\(site.name)\t\(app.package)\t\((app.schemes ?? []).joined(separator: ","))") }
        }
    }
    exit(0)
case "--build-cases":
    for key in order {
        for site in tables[key]!.sites {
            for entry in site.routes {
                for p in buildCases(entry) {
                    let params = p.keys.sorted().map { "\(hex($0)):\(hex(p[$0]!))" }.joined(separator: ",")
                    print("\(key)\tB\t\(site.name)\t\(entry.route!.name)\t\(params)")
                }
            }
            print("\(key)\tB\t\(site.name)\tnoSuchRoute\t")
        }
    }
    exit(0)
default:
    break
}

while let line = readLine(strippingNewline: true) {
    let f = line.split(separator: "\t", omittingEmptySubsequences: false)
    guard let table = tables[String(f[0])] else { print("null"); continue }
    if f[1] == "P" {
        print(json(parsed(table, String(f[2]))))
        continue
    }
    let site = String(f[2])
    let route = String(f[3])
    let p = parameters(f[4])
    guard let url = try? table.build(site: site, route: route, parameters: p) else {
        print("null")
        continue
    }
    let scheme = try? table.build(site: site, route: route, parameters: p, form: .customScheme(nil))
    print(json([
        "url": url, "schemeURL": scheme ?? NSNull(), "parsed": parsed(table, url),
        "schemeParsed": scheme.map { parsed(table, $0) } ?? NSNull(),
    ] as [String: Any]))
}
