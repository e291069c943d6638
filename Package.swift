// swift-tools-version:6.0
// Linkwell — one route table, both association files, the landing pages, and the link parser
// the apps import. See docs/ and README.md.
import PackageDescription

let package = Package(
    name: "Linkwell",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // The library the iOS/Android-side Swift code imports to parse the same links the server claims.
        .library(name: "LinkRouting", targets: ["LinkRouting"]),
        .library(name: "Association", targets: ["Association"]),
        .executable(name: "linkwell", targets: ["linkwell"]),
    ],
    targets: [
        .target(name: "LinkRouting"),
        .target(name: "Association", dependencies: ["LinkRouting"]),
        .target(name: "LandingPages", dependencies: ["LinkRouting", "CQRencode"]),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .target(
            name: "LinkServer",
            dependencies: ["LinkRouting", "Association", "LandingPages", "CMicroHTTPD"]
        ),
        .executableTarget(
            name: "linkwell",
            dependencies: ["LinkRouting", "Association", "LandingPages", "LinkServer"]
        ),
        // Route-resolution / load / reload benchmark (bench/run, BENCHMARKS.md). Run in release mode.
        .executableTarget(
            name: "linkwell-bench",
            dependencies: ["LinkRouting", "Association", "LinkServer"],
            path: "bench/Sources/linkwell-bench"
        ),
        .testTarget(name: "LinkRoutingTests", dependencies: ["LinkRouting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "AssociationTests", dependencies: ["Association", "LinkRouting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LandingPagesTests", dependencies: ["LandingPages", "LinkRouting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LinkServerTests", dependencies: ["LinkServer", "LinkRouting", "Association", "LandingPages"]),
    ],
    swiftLanguageModes: [.v6]
)
