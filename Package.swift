// swift-tools-version:6.0
// Linkwell — one route table, both association files, the landing pages, and the link parser
// the apps import. See docs/ and README.md.
import PackageDescription

let package = Package(
    name: "Linkwell",
    // SwiftPM declares platforms per package; these are the lowest LinkRouting (the library the apps
    // import) needs: JSONDecoder.allowsJSON5 is macOS 12 / iOS 15, nothing newer is used. The
    // server targets run on Linux, where platforms do not apply (on macOS they would need macOS 15
    // for Synchronization's Mutex).
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        // The library the iOS/Android-side Swift code imports to parse the same links the server claims.
        .library(name: "LinkRouting", targets: ["LinkRouting"]),
        .library(name: "PlatformMatchers", targets: ["PlatformMatchers"]),
        .library(name: "Association", targets: ["Association"]),
        // For the libFuzzer harnesses in fuzz/ (their own package, which depends on this one by path).
        .library(name: "LinkwellJSON", targets: ["LinkwellJSON"]),
        .library(name: "LandingPages", targets: ["LandingPages"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "LinkServer", targets: ["LinkServer"]),
        .executable(name: "linkwell", targets: ["linkwell"]),
    ],
    // Each target's dependencies are exactly the modules its sources import
    // (scripts/check-module-walls.sh checks both directions).
    targets: [
        // The library the apps import: config model, pattern compiler, parser, builder. Nothing else.
        .target(name: "LinkRouting"),
        // Emulators of the platforms (Apple AASA semantics, Android assetlinks + dynamic components).
        .target(name: "PlatformMatchers", dependencies: ["LinkwellJSON"]),
        // Strict JSON reader/writer with positions, shared by the matchers, templates and logs.
        .target(name: "LinkwellJSON"),
        .target(name: "Association", dependencies: ["LinkRouting", "PlatformMatchers", "LinkwellJSON"]),
        // Route table → the apps' router source (Swift, Kotlin) and platform files (manifest, plists).
        .target(name: "Codegen", dependencies: ["LinkRouting"]),
        .target(name: "LandingPages", dependencies: ["LinkRouting", "LinkwellJSON", "CQRencode", "CRsvg"]),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // Preview cards: SVG → PNG (librsvg draws, cairo encodes; Pango and fontconfig pick the fonts).
        // librsvg2-2 is loaded at the first card (dlopen), not linked (Sources/CRsvg/shim.h).
        .systemLibrary(
            name: "CRsvg",
            providers: [.apt(["librsvg2-dev"])]
        ),
        // Short links: Debian libsqlite3-dev.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Short links with several instances on one database: Debian libpq-dev's header; libpq5 is
        // loaded at the first PostgreSQL connection (dlopen), not linked (Sources/CPostgres/shim.h).
        .systemLibrary(
            name: "CPostgres",
            providers: [.apt(["libpq-dev"])]
        ),
        // Short links: the model, the SQLite and PostgreSQL stores, code generation and collision checks. No server code.
        .target(name: "LinkStore", dependencies: ["LinkRouting", "LinkwellJSON", "CSQLite", "CPostgres"]),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // The generic HTTP layer over libmicrohttpd. Imports no Linkwell module (scripts/check-module-walls.sh).
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"]),
        .target(
            name: "LinkServer",
            dependencies: ["LinkRouting", "LinkwellJSON", "PlatformMatchers", "Association", "LandingPages", "MicroHTTP", "LinkStore"]
        ),
        .executableTarget(
            name: "linkwell",
            dependencies: ["LinkRouting", "LinkwellJSON", "PlatformMatchers", "Association", "LandingPages", "LinkServer", "MicroHTTP", "Codegen", "LinkStore"]
        ),
        // The reference side of tests/live/test_codegen.py: LinkRouting's answers for a URL corpus.
        .executableTarget(name: "codegen-reference", dependencies: ["LinkRouting", "Association"], path: "Tests/CodegenReference"),
        // Route-resolution / load / reload benchmark (bench/run, BENCHMARKS.md). Run in release mode.
        .executableTarget(
            name: "linkwell-bench",
            dependencies: ["LinkRouting", "Association", "LinkServer", "LinkStore"],
            path: "bench/Sources/linkwell-bench"
        ),
        // Short-link index load time and memory at 1 M links (bench/links-load). Release mode.
        .executableTarget(
            name: "linkwell-links-bench",
            dependencies: ["LinkRouting", "LinkServer", "LinkStore"],
            path: "bench/Sources/linkwell-links-bench"
        ),
        .testTarget(name: "LinkRoutingTests", dependencies: ["LinkRouting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PlatformMatchersTests", dependencies: ["PlatformMatchers", "LinkwellJSON"], resources: [.copy("Fixtures")]),
        .testTarget(name: "AssociationTests", dependencies: ["Association", "LinkRouting", "PlatformMatchers", "LinkwellJSON"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LandingPagesTests", dependencies: ["LandingPages", "LinkRouting", "LinkwellJSON"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CodegenTests", dependencies: ["Codegen", "LinkRouting", "PlatformMatchers"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LinkStoreTests", dependencies: ["LinkStore", "LinkRouting"]),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP"]),
        .testTarget(name: "LinkServerTests", dependencies: ["LinkServer", "LinkStore", "LinkRouting", "Association", "LandingPages", "MicroHTTP", "LinkwellJSON"]),
    ],
    swiftLanguageModes: [.v6]
)
