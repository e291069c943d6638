// The Apple matcher (swcutil-like AASA semantics) on arbitrary AASA bytes and an arbitrary URL.
// Input: `aasa-bytes \0 url`. Properties: a document that loads answers every URL; each app is
// decided at most once; every decision names one of the document's app IDs.
import FuzzSupport
import PlatformMatchers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleMatcher(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (aasa, url) = splitOnce(fuzzBytes(data, size))
    guard let matcher = try? AppleMatcher(json: text(aasa)) else { return 0 }
    let target = text(url)
    let decisions = matcher.decisions(for: target)
    let apps = decisions.map(\.appID)
    fuzzCheck(Set(apps).count == apps.count, "an app decided twice for \(target.debugDescription): \(apps)")
    fuzzCheck(apps.allSatisfy(matcher.appIDs.contains), "decision for an app the document does not name: \(apps) vs \(matcher.appIDs)")
    fuzzCheck(matcher.verdicts(for: target).count == decisions.count, "verdicts disagree with decisions")
    return 0
}
