// What the harnesses share: the input as bytes, splitting it into parts, failing loudly, and the
// repository's shipped config as a route table and snapshot. Thin over the public APIs on purpose.
import CFuzzerDriver
import Foundation
import LinkRouting
import Association
import LinkServer

/// The input libFuzzer hands over, copied (the harness must not keep the pointer).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Splits at the first NUL byte: two-part inputs (a document, then a URL) are `doc \0 url`.
/// Without a NUL the second part is empty.
public func splitOnce(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
    guard let nul = bytes.firstIndex(of: 0) else { return (bytes, []) }
    return (Array(bytes[..<nul]), Array(bytes[(nul + 1)...]))
}

public func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

/// True for one input in `n`, chosen by a hash (FNV-1a) of its bytes, so the same input is always
/// chosen or never and a crash file reproduces. For a check that costs several times the rest of
/// an execution: the fuzzer still reaches every input's code, and one input in `n` of the
/// millions it runs also goes through the check.
public func sampled(_ bytes: [UInt8], oneIn n: UInt32) -> Bool {
    bytes.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 } % n == 0
}

/// A violated property: print what and with which input, then abort so libFuzzer saves the input
/// as a crash file.
public func fuzzFail(_ message: String, _ file: StaticString = #fileID, _ line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("fuzz property violated (\(file):\(line)): \(message)\n".utf8))
    abort()
}

@inline(__always)
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, _ file: StaticString = #fileID, _ line: UInt = #line) {
    if !condition { fuzzFail(message(), file, line) }
}

/// The repository root (this file is fuzz/harnesses/Sources/FuzzSupport/FuzzSupport.swift).
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `config/linkwell.json5` (or `$LINKWELL_FUZZ_CONFIG`), compiled: the table the shipped server serves.
public let shippedConfigPath: String =
    ProcessInfo.processInfo.environment["LINKWELL_FUZZ_CONFIG"] ?? repositoryRoot.appendingPathComponent("config/linkwell.json5").path

public func loadShippedTable() -> RouteTable {
    do {
        return try RouteTable(config: ConfigLoader.load(path: shippedConfigPath).config)
    } catch {
        fuzzFail("\(shippedConfigPath) does not compile: \(error)")
    }
}

/// The snapshot `linkwell serve --config config/linkwell.json5` serves (landing pages from public/).
public func loadShippedSnapshot() -> Snapshot {
    let (snapshot, report) = ServerRuntime.loadSnapshot(configPath: shippedConfigPath)
    guard let snapshot else { fuzzFail("\(shippedConfigPath) does not load: \(report.diagnostics)") }
    return snapshot
}

/// Hands the process to libFuzzer with `testOneInput` as the target (a harness's main.swift).
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
