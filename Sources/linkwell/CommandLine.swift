// A small hand-written argument parser in the swift-argument-parser manner (no outside package
// can be fetched): OVERVIEW/USAGE/OPTIONS help, `Error: …` on stderr, exit 64 on usage errors.

import Foundation
import LinkRouting

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
        for o in options + CommandSpec.globalOptions {
            let left = o.valueName.map { "\(o.name) <\($0)>" } ?? o.name
            let pad = left.count >= 26 ? left + "\n" + String(repeating: " ", count: 28) : left.padding(toLength: 26, withPad: " ", startingAt: 0)
            s += "  " + pad + o.help + (o.repeatable ? " (repeatable)" : "") + "\n"
        }
        if let discussion { s += "\n" + discussion + "\n" }
        return s
    }

    /// Options every subcommand takes.
    static let globalOptions = [
        OptionSpec(name: "--quiet", valueName: nil, help: "Print only results and errors: no warnings, notes or progress (also -q)."),
        OptionSpec(name: "--help", valueName: nil, help: "Show help information."),
    ]

    /// `unknown option '--confg' for 'validate'; did you mean '--config'?`
    func unknownOption(_ name: String) -> UsageError {
        let names = (options + CommandSpec.globalOptions).map(\.name)
        let hint = DidYouMean.closest(name, in: names).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError(message: "unknown option '\(name)' for '\(self.name)'\(hint)")
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
                guard let spec = options.first(where: { $0.name == name }) else { throw unknownOption(name) }
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
                throw unknownOption(a)
            } else {
                args.positional.append(a)
            }
            i += 1
        }
        return args
    }
}

/// Where output goes: results on stdout, every diagnostic on stderr. `--quiet` keeps only results
/// and errors; colour only on a terminal, never with `NO_COLOR` set or `TERM=dumb`.
enum Output {
    nonisolated(unsafe) static var quiet = false

    static let environment = ProcessInfo.processInfo.environment

    static func colours(_ fd: Int32) -> Bool {
        isatty(fd) == 1 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    static let colourOut = colours(STDOUT_FILENO)
    static let colourErr = colours(STDERR_FILENO)

    /// A result, on stdout.
    static func out(_ s: String) {
        write(s, to: FileHandle.standardOutput, colour: colourOut)
    }

    /// An error (or a diagnostic the caller decided is essential), on stderr.
    static func err(_ s: String) {
        write(s, to: FileHandle.standardError, colour: colourErr)
    }

    /// A warning, note or progress line, on stderr; dropped with --quiet.
    static func note(_ s: String) {
        if !quiet { err(s) }
    }

    static func write(_ s: String, to handle: FileHandle, colour: Bool) {
        let text = colour ? paint(s) : s
        handle.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// ANSI colours on the words that matter: error/FAIL red, warning/WARN yellow, PASS green, fix cyan.
    static func paint(_ s: String) -> String {
        let red = "\u{1B}[1;31m", yellow = "\u{1B}[1;33m", green = "\u{1B}[32m", cyan = "\u{1B}[36m", reset = "\u{1B}[0m"
        return s.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var l = String(line)
            for (word, colour) in [("FAIL ", red), ("WARN ", yellow), ("PASS ", green), ("Error: ", red)] where l.hasPrefix(word) {
                l = colour + word.dropLast() + reset + " " + l.dropFirst(word.count)
            }
            for (word, colour) in [(": error: ", red), (": warning: ", yellow)] {
                if let r = l.range(of: word) { l.replaceSubrange(r, with: ": " + colour + word.dropFirst(2).dropLast(2) + reset + ": ") }
            }
            if let r = l.range(of: " — fix: ") { l.replaceSubrange(r, with: " — " + cyan + "fix:" + reset + " ") }
            if l.hasPrefix("    fix: ") { l = "    " + cyan + "fix:" + reset + String(l.dropFirst(8)) }
            return l
        }.joined(separator: "\n")
    }

    static func json(_ value: Any) {
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}

/// Exit statuses (sysexits.h where one applies), as the README's table lists them.
enum ExitCode {
    static let ok: Int32 = 0
    /// Findings or errors: a config error, a failed check, a link that cannot be built.
    static let failure: Int32 = 1
    /// The command line is wrong.
    static let usage: Int32 = 64
    /// A service or tool the command needs is not there (curl, a server that does not answer).
    static let unavailable: Int32 = 69
    /// Reading or writing a file failed.
    static let io: Int32 = 74
}

/// Reading or writing a file failed (exit 74).
struct IOFailure: Error, CustomStringConvertible {
    var description: String
}
