// Locating the repository's own config files from the tests.

import Foundation
import LinkRouting

enum TestConfigs {
    /// The package root (…/Tests/LinkRoutingTests/TestConfigs.swift → …).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let examples = ["fitconnect", "diallodev", "computers", "coffeebreak"]

    static func path(_ name: String) -> String {
        name == "linkwell"
            ? root.appendingPathComponent("config/linkwell.json5").path
            : root.appendingPathComponent("config/examples/\(name).json5").path
    }

    static func table(_ name: String) throws -> RouteTable {
        let loaded = try ConfigLoader.load(path: path(name))
        return try RouteTable(config: loaded.config)
    }

    /// Every shipped config: the default and the four seed examples.
    static let all = ["linkwell"] + examples
}
