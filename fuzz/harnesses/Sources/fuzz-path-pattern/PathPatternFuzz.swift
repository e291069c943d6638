// The path-pattern compiler on arbitrary text. Each input is compiled as a route path and as an
// exclusion (trailing `*` allowed). Properties: an error names a column inside the text; a
// pattern covers and overlaps itself; a route that compiles goes through the whole generator
// (route table, AASA, assetlinks) and both generated files are accepted by the platforms'
// readers (Apple's, Android 15's and 16's): a rejected file would break every link of the site.
// Every input is compiled; the generator and the readers run for one input in 64, and the
// invariant check (parser vs both matchers on sample URLs) for one in 8 of those of at most 128
// bytes; its differences are `linkwell validate` warnings, not crashes (docs/dev/fuzzing.md,
// "Findings"). The inputs are chosen by a hash of their bytes, so a run reproduces.
import Association
import FuzzSupport
import LinkRouting
import PlatformMatchers

let ios = IOSAppConfig(id: "ios", teamID: "ABCDE12345", bundleID: "com.example.app")
let android = AndroidAppConfig(
    id: "android", package: "com.example.app",
    fingerprints: ["AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"])

func compile(_ source: String, allowTrailingStar: Bool) -> PathPattern? {
    do {
        let p = try PathPattern(parsing: source, allowTrailingStar: allowTrailingStar)
        fuzzCheck(p.covers(p) && p.overlaps(p), "pattern '\(source)' does not cover/overlap itself")
        return p
    } catch {
        let length = Array(source).count
        fuzzCheck((1...length + 1).contains(error.column), "column \(error.column) outside '\(source)' (\(length) characters)")
        _ = error.description
        return nil
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPathPattern(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 512 else { return -1 }
    let source = text(bytes)
    _ = compile(source, allowTrailingStar: true)
    guard compile(source, allowTrailingStar: false) != nil else { return 0 }
    // The generator and the three readers cost 10-20x the compiler (2 ms for a 32-byte pattern
    // under ASan, 20 ms at 500 bytes): run on every input they held a long run at 250-350
    // executions a second, 9 hours per 10 M; for one in 16 they were still ~80 % of the time
    // (~1,150 executions a second). One in 64 keeps 156,000 generated and read sites per 10 M.
    guard sampled(bytes, oneIn: 64) else { return 0 }
    let site = SiteConfig(
        name: "s", domains: ["example.com"], ios: [ios], android: [android],
        routes: [.route(RouteConfig(name: "r", path: source))])
    guard let table = try? RouteTable(config: LinkwellConfig(sites: [site])) else { return 0 }
    for compiled in table.sites {
        let aasa = AASAGenerator.bytes(for: compiled)
        do { _ = try AppleMatcher(json: text(aasa)) } catch {
            fuzzFail("path '\(source)': the generated AASA is rejected: \(error)\n\(text(aasa))")
        }
        let assetlinks = AssetLinksGenerator.bytes(for: compiled)
        for generation in AndroidParserGeneration.allCases {
            if case let .failure(rejection) = AssetLinksFile.parse(assetlinks, generation: generation) {
                fuzzFail("path '\(source)': \(generation) rejects the generated assetlinks.json: \(rejection)\n\(text(assetlinks))")
            }
        }
        // The check runs both matchers over every sample URL, ~10x the generator: one generated
        // site in 8 (a second hash, of the reversed bytes), and only patterns of at most 128
        // bytes. Explaining a difference resolves the URL once per character with a '.' there,
        // so a 250-byte pattern took 0.4 s per execution: in a long run the corpus filled with
        // such inputs and the rate fell from 1,900 to 340 executions a second.
        if bytes.count <= 128, sampled(Array(bytes.reversed()), oneIn: 8) {
            let differences = try? InvariantCheck.rawDifferences(site: compiled, aasa: aasa, assetLinks: assetlinks, table: table)
            _ = differences?.map { $0.diagnostic(file: nil).description }
        }
    }
    return 0
}
