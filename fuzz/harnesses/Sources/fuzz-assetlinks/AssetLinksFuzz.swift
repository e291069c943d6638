// The assetlinks.json reader (Android 15 and 16 parsers) and the Dynamic App Link rules on
// arbitrary bytes and an arbitrary URL. Input: `assetlinks-bytes \0 url`. Properties: a file
// either parses or is rejected with a reason; each parsed app statement verifies its own
// package and fingerprints exactly when it grants handle_all_urls, and then decides the URL.
import FuzzSupport
import PlatformMatchers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssetLinks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (document, url) = splitOnce(fuzzBytes(data, size))
    let target = text(url)
    for generation in AndroidParserGeneration.allCases {
        switch AssetLinksFile.parse(document, generation: generation) {
        case let .failure(rejection):
            _ = rejection.description
        case let .success(file):
            _ = file.warnings
            for statement in file.statements {
                guard case let .androidApp(package, fingerprints) = statement.target else { continue }
                let verified = statement.verifies(package: package, certificates: fingerprints)
                fuzzCheck(verified == (statement.grantsHandleAllURLs && !fingerprints.isEmpty),
                          "statement \(statement.index) of \(package): verifies=\(verified), grants=\(statement.grantsHandleAllURLs)")
                if verified {
                    fuzzCheck(file.handles(url: target, package: package, certificates: fingerprints) != nil,
                              "verified \(package) but handles(url:) is nil")
                }
            }
        }
    }
    return 0
}
