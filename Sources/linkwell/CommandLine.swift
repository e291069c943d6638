// A small hand-written argument parser in the swift-argument-parser manner (no outside package
// can be fetched): OVERVIEW/USAGE/OPTIONS help, `Error: …` on stderr, exit 64 on usage errors.

import Foundation

struct UsageError: Error {
    var message: String
}

/// Exit with a status after printing (so commands can stop from deep inside).
struct ExitStatus: Error {
    var code: Int32
}

/// Parsed arguments of one subcommand.
struct Arguments {
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var positional: [String] = []

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}

struct OptionSpec {
    var name: String  // "--config"
    var valueName: String?  // nil for flags
    var help: String
    var repeatable = false
}

struct CommandSpec {
    var name: String
    var overview: String
    var usage: String
    var arguments: [(String, String)] = []
    var options: [OptionSpec]
    var discussion: String? = nil

    var helpText: String {
        var s = "OVERVIEW: \(overview)\n\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            s += "\nARGUMENTS:\n"
            for (name, help) in arguments { s += "  " + name.padding(toLength: 26, withPad: " ", startingAt: 0) + help + "\n" }
        }
        s += "\nOPTIONS:\n"
        for o in options + [OptionSpec(name: "--help", valueName: nil, help: "Show help information.")] {
            let left = o.valueName.map { "\(o.name) <\($0)>" } ?? o.name
            let pad = left.count >= 26 ? left + "\n" + String(repeating: " ", count: 28) : left.padding(toLength: 26, withPad: " ", startingAt: 0)
            s += "  " + pad + o.help + (o.repeatable ? " (repeatable)" : "") + "\n"
        }
        if let discussion { s += "\n" + discussion + "\n" }
        return s
    }

    func parse(_ argv: [String]) throws -> Arguments {
        var args = Arguments()
        var i = 0
        while i < argv.count {
            let a = argv[i]
            if a == "--" {
                args.positional += argv[(i + 1)...]
                break
            }
            if a.hasPrefix("--") {
                var name = a
                var inline: String? = nil
                if let eq = a.firstIndex(of: "=") {
                    name = String(a[..<eq])
                    inline = String(a[a.index(after: eq)...])
                }
                guard let spec = options.first(where: { $0.name == name }) else {
                    throw UsageError(message: "unknown option '\(name)' for '\(self.name)'. See 'linkwell \(self.name) --help'.")
                }
                if spec.valueName == nil {
                    if inline != nil { throw UsageError(message: "'\(name)' takes no value") }
                    args.flags.insert(name)
                } else {
                    let v: String
                    if let inline {
                        v = inline
                    } else {
                        guard i + 1 < argv.count else { throw UsageError(message: "'\(name)' needs a value: \(name) <\(spec.valueName!)>") }
                        i += 1
                        v = argv[i]
                    }
                    if !spec.repeatable, args.options[name] != nil {
                        throw UsageError(message: "'\(name)' was given twice")
                    }
                    args.options[name, default: []].append(v)
                }
            } else if a.hasPrefix("-"), a.count > 1, options.contains(where: { $0.name == a }) == false, Double(a) == nil {
                throw UsageError(message: "unknown option '\(a)' for '\(self.name)'. See 'linkwell \(self.name) --help'.")
            } else {
                args.positional.append(a)
            }
            i += 1
        }
        return args
    }
}

enum Output {
    static func out(_ s: String) {
        FileHandle.standardOutput.write(Data((s.hasSuffix("\n") ? s : s + "\n").utf8))
    }

    static func err(_ s: String) {
        FileHandle.standardError.write(Data((s.hasSuffix("\n") ? s : s + "\n").utf8))
    }

    static func json(_ value: Any) {
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}
