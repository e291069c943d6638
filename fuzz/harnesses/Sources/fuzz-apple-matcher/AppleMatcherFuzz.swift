// The Apple matcher (swcutil-like AASA semantics) on arbitrary AASA bytes and an arbitrary URL.
// Input: `aasa-bytes \0 url`. Properties: a document that loads answers every URL; each app is
// decided at most once; every decision names one of the document's app IDs; `verdicts(for:)`
// agrees with `decisions(for:)` (for one input in 8, chosen by a hash of its bytes: it matches the
// URL a second time, a third of an execution, to check a map over the same decisions).
import FuzzSupport
import PlatformMatchers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleMatcher(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let (aasa, url) = splitOnce(bytes)
    guard let matcher = try? AppleMatcher(json: text(aasa)) else { return 0 }
    let target = text(url)
    let decisions = matcher.decisions(for: target)
    let apps = decisions.map(\.appID)
    fuzzCheck(Set(apps).count == apps.count, "an app decided twice for \(target.debugDescription): \(apps)")
    fuzzCheck(apps.allSatisfy(matcher.appIDs.contains), "decision for an app the document does not name: \(apps) vs \(matcher.appIDs)")
    if sampled(bytes, oneIn: 8) {
        fuzzCheck(matcher.verdicts(for: target).count == decisions.count, "verdicts disagree with decisions")
    }
    return 0
}
