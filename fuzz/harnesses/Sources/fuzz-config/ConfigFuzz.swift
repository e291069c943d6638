// The JSON5 config decoder (ConfigLoader.decode) on arbitrary bytes, then, for what decodes, the
// validator and the route-table compiler (`linkwell validate` without the platform check).
// Properties: every failure carries at least one diagnostic; a config the validator accepts has a
// table, and its association files generate.
import Association
import Foundation
import FuzzSupport
import LinkRouting

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard bytes.count <= 64 * 1024 else { return -1 }
    let loaded: (config: LinkwellConfig, warnings: [Diagnostic])
    do {
        loaded = try ConfigLoader.decode(Data(bytes), file: "fuzz.json5")
    } catch {
        fuzzCheck(!error.diagnostics.isEmpty, "decode failed without a diagnostic")
        _ = error.description
        return 0
    }
    let report = ConfigValidator.validate(loaded.config, file: "fuzz.json5", loadWarnings: loaded.warnings, platformCheck: false)
    _ = report.diagnostics.map(\.description)
    if report.errors.isEmpty {
        guard let table = report.table else { fuzzFail("no errors but no table") }
        for site in table.sites {
            _ = AASAGenerator.bytes(for: site)
            _ = AssetLinksGenerator.bytes(for: site)
        }
    }
    return 0
}
