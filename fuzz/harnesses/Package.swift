// swift-tools-version:6.0
// libFuzzer harnesses for Linkwell (docs/dev/fuzzing.md). Their own package (in a folder whose name
// no checkout has, since SwiftPM names a path dependency after its folder), so `swift build` and
// `swift test` of the main package never build them: each harness defines
// LLVMFuzzerTestOneInput and its main.swift hands it to libFuzzer's driver, which links only
// with -sanitize=fuzzer. Build and run with `make fuzz`.
import PackageDescription

let targets: [(name: String, deps: [String])] = [
    ("fuzz-path-pattern", ["LinkRouting", "Association", "PlatformMatchers"]),
    ("fuzz-resolve", ["LinkRouting"]),
    ("fuzz-apple-matcher", ["PlatformMatchers"]),
    ("fuzz-assetlinks", ["PlatformMatchers"]),
    ("fuzz-config", ["LinkRouting", "Association"]),
    ("fuzz-mustache", ["LandingPages", "LinkwellJSON"]),
    ("fuzz-responder", ["LinkServer", "LinkRouting", "MicroHTTP"]),
    ("fuzz-daemon", ["LinkServer", "LinkRouting", "MicroHTTP"]),
]

let package = Package(
    name: "LinkwellFuzz",
    dependencies: [.package(name: "Linkwell", path: "../..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzerDriver"] + ["LinkServer", "LinkRouting", "Association", "MicroHTTP"].map { .product(name: $0, package: "Linkwell") }),
    ] + targets.map { t in
        .executableTarget(
            name: t.name,
            dependencies: ["FuzzSupport"] + t.deps.map { .product(name: $0, package: "Linkwell") })
    },
    swiftLanguageModes: [.v6]
)
