// RouteTable.resolve on arbitrary URL bytes, over every shipped config (config/linkwell.json5
// and config/examples/). Property, the round-trip law on whatever matched: building the link
// from the match and resolving it again gives the same route and parameters.
import Foundation
import FuzzSupport
import LinkRouting

let tables: [RouteTable] = {
    let examples = repositoryRoot.appendingPathComponent("config/examples")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? [])
        .filter { $0.hasSuffix(".json5") }.sorted().map { examples.appendingPathComponent($0).path }
    return [loadShippedTable()] + files.compactMap { path in
        (try? ConfigLoader.load(path: path)).flatMap { try? RouteTable(config: $0.config) }
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResolve(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 4096 else { return -1 }
    let url = text(bytes)
    for table in tables {
        guard case let .matched(match) = table.resolve(url) else { continue }
        let built: String
        do {
            built = try table.build(site: match.site, route: match.route, parameters: match.parameters)
        } catch {
            fuzzFail("\(url.debugDescription) matched \(match.site)/\(match.route) \(match.parameters), but build says: \(error)")
        }
        guard case let .matched(again) = table.resolve(built) else {
            fuzzFail("\(url.debugDescription) → \(match.route) \(match.parameters) → built \(built.debugDescription), which does not resolve")
        }
        fuzzCheck(again.route == match.route && again.parameters == match.parameters,
                  "\(url.debugDescription) → \(match.route) \(match.parameters) → \(built.debugDescription) → \(again.route) \(again.parameters)")
    }
    return 0
}
