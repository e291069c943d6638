// A small hand-written argument parser in the swift-argument-parser manner (no outside package
// can be fetched): typed option values checked before a command runs, nested subcommands, and
// OVERVIEW/USAGE/OPTIONS help generated from the command tree; `Error: …` on stderr, exit 64 on
// usage errors.

import Foundation
import LinkRouting

struct UsageError: Error {
    var message: String
}

/// Exit with a status after printing (so commands can stop from deep inside).
struct ExitStatus: Error {
    var code: Int32
}

/// What a command-line value should have been, for `--name is 'value'; <expected>`.
struct ExpectedValue: Error {
    var expected: String
}

/// A type an option's value is parsed into before the command runs.
protocol ArgumentValue: Sendable {
    init(argument: String) throws(ExpectedValue)
    /// Fixed choices, offered by the shell completions.
    static var choices: [String] { get }
    /// True when the value names a file or directory (completed as a path).
    static var isPath: Bool { get }
}

extension ArgumentValue {
    static var choices: [String] { [] }
    static var isPath: Bool { false }
}

extension String: ArgumentValue {
    init(argument: String) throws(ExpectedValue) { self = argument }
}

/// A file or directory path (completed as a path by the shells).
struct Path: ArgumentValue {
    var path: String
    init(argument: String) throws(ExpectedValue) {
        guard !argument.isEmpty else { throw ExpectedValue(expected: "give a path") }
        path = argument
    }
    init(_ path: String) { self.path = path }
    static var isPath: Bool { true }
}

/// A whole number of at least one (threads, a timeout in seconds).
struct Count: ArgumentValue {
    var value: Int
    init(argument: String) throws(ExpectedValue) {
        guard let n = Int(argument), n >= 1 else { throw ExpectedValue(expected: "give a number of at least 1") }
        value = n
    }
}

/// An enum of fixed words (`json|text`, `csv|json`, …) read from its raw value.
protocol ChoiceValue: ArgumentValue, CaseIterable, RawRepresentable<String> {}

extension ChoiceValue {
    init(argument: String) throws(ExpectedValue) {
        guard let v = Self(rawValue: argument) else {
            let all = Self.allCases.map(\.rawValue)
            let hint = DidYouMean.closest(argument, in: all).map { "did you mean '\($0)'? " } ?? ""
            throw ExpectedValue(expected: "\(hint)use \(all.dropLast().joined(separator: ", ")) or \(all.last!)")
        }
        self = v
    }
    static var choices: [String] { allCases.map(\.rawValue) }
}

/// One option of a command, as help, completions and the parser see it.
struct OptionSpec: Sendable {
    var name: String  // "--config"
    var valueName: String?  // nil for flags
    var help: String
    var repeatable = false
    /// Parses and checks the value (nil for flags).
    var parse: (@Sendable (String) throws(ExpectedValue) -> any Sendable)? = nil
    var choices: [String] = []
    var isPath = false
}

/// A typed option: `args[Options.config]` is a `Path?`, checked when the command line is parsed.
struct Option<Value: ArgumentValue>: Sendable {
    var spec: OptionSpec

    init(_ name: String, _ valueName: String, help: String, repeatable: Bool = false) {
        spec = OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable,
                          parse: { (text: String) throws(ExpectedValue) -> any Sendable in try Value(argument: text) },
                          choices: Value.choices, isPath: Value.isPath)
    }
}

/// An option without a value.
struct Flag: Sendable {
    var spec: OptionSpec

    init(_ name: String, help: String) {
        spec = OptionSpec(name: name, valueName: nil, help: help)
    }
}

/// One positional argument, for help, usage and completions.
struct ArgumentSpec: Sendable {
    enum Arity: Sendable { case one, optional, repeating }
    var name: String  // "<url>", "bash|zsh|fish"
    var help: String
    var arity: Arity = .one
    /// The values (or groups of them, `aasa|assetlinks|all`) each with its own help row.
    var values: [(name: String, help: String)] = []

    /// Fixed choices (`bash|zsh|fish`), none for a placeholder like `<url>`.
    var choices: [String] {
        let words = values.isEmpty ? [name] : values.map(\.name)
        return words.flatMap { $0.contains("|") || !values.isEmpty ? $0.split(separator: "|").map(String.init) : [] }.filter { !$0.contains("<") }
    }

    /// The help rows: one per value when they have their own help.
    var rows: [(name: String, help: String)] { values.isEmpty ? [(name, help)] : values }

    var synopsis: String {
        switch arity {
        case .one: name
        case .optional: "[\(name)]"
        case .repeating: "[\(name) ...]"
        }
    }
}

/// Parsed arguments of one subcommand: every value already checked and typed.
struct Arguments {
    var values: [String: [any Sendable]] = [:]
    var flags: Set<String> = []
    var positional: [String] = []
    /// The whole command tree (for `completions` and `help`).
    var reference: CLIReference

    subscript<V>(_ option: Option<V>) -> V? { values[option.spec.name]?.last as? V }
    func all<V>(_ option: Option<V>) -> [V] { (values[option.spec.name] ?? []).compactMap { $0 as? V } }
    func has(_ flag: Flag) -> Bool { flags.contains(flag.spec.name) }
    mutating func set<V>(_ option: Option<V>, _ value: V) { values[option.spec.name] = [value] }
    /// True when the option was given (whatever its value).
    func given<V>(_ option: Option<V>) -> Bool { values[option.spec.name] != nil }
}

/// A command's description: its name (`links add`), help, arguments and options.
struct CommandSpec: Sendable {
    var name: String
    var overview: String
    /// The one line the parent's SUBCOMMANDS list shows (default: the overview).
    var abstract: String? = nil
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec]
    var discussion: String? = nil

    /// Options every subcommand takes.
    static let globalOptions = [
        OptionSpec(name: "--quiet", valueName: nil, help: "Print only results and errors: no warnings, notes or progress (also -q)."),
        OptionSpec(name: "--help", valueName: nil, help: "Show help information."),
    ]

    var allOptions: [OptionSpec] { options + CommandSpec.globalOptions }

    /// `linkwell check <url> [--config <file>] [--json]`, from the arguments and options.
    var usage: String {
        let words = arguments.map(\.synopsis) + options.map { o in
            let value = o.valueName.map { " <\($0)>" } ?? ""
            return "[\(o.name)\(value)\(o.repeatable ? " ..." : "")]"
        }
        return (["linkwell \(name)"] + words).joined(separator: " ")
    }

    static func row(_ left: String, _ help: String) -> String {
        let pad = left.count >= 26 ? left + "\n" + String(repeating: " ", count: 28) : left.padding(toLength: 26, withPad: " ", startingAt: 0)
        return "  " + pad + help + "\n"
    }

    func helpText(subcommands: [CommandSpec] = []) -> String {
        var s = "OVERVIEW: \(overview)\n\nUSAGE: \(subcommands.isEmpty ? usage : "linkwell \(name) <subcommand> [options]")\n"
        if !arguments.isEmpty {
            s += "\nARGUMENTS:\n"
            for a in arguments { for r in a.rows { s += CommandSpec.row(r.name, r.help) } }
        }
        s += "\nOPTIONS:\n"
        for o in allOptions {
            s += CommandSpec.row(o.valueName.map { "\(o.name) <\($0)>" } ?? o.name, o.help + (o.repeatable ? " (repeatable)" : ""))
        }
        if !subcommands.isEmpty {
            s += "\nSUBCOMMANDS:\n"
            for c in subcommands { s += CommandSpec.row(String(c.name.split(separator: " ").last!), c.abstract ?? c.overview) }
            s += "\n  See 'linkwell \(name) <subcommand> --help' for detailed help.\n"
        }
        if let discussion { s += "\n" + discussion + "\n" }
        return s
    }

    /// `unknown option '--confg' for 'validate'; did you mean '--config'?`
    func unknownOption(_ name: String) -> UsageError {
        let hint = DidYouMean.closest(name, in: allOptions.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError(message: "unknown option '\(name)' for '\(self.name)'\(hint)")
    }

    /// Splits argv into options and positional arguments, parsing every value with its type.
    func parse(_ argv: [String], reference: CLIReference) throws -> Arguments {
        var args = Arguments(reference: reference)
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
                guard let parse = spec.parse, let valueName = spec.valueName else {
                    if inline != nil { throw UsageError(message: "'\(name)' takes no value") }
                    args.flags.insert(name)
                    i += 1
                    continue
                }
                let text: String
                if let inline {
                    text = inline
                } else {
                    guard i + 1 < argv.count else { throw UsageError(message: "'\(name)' needs a value: \(name) <\(valueName)>") }
                    i += 1
                    text = argv[i]
                }
                if !spec.repeatable, args.values[name] != nil {
                    throw UsageError(message: "'\(name)' was given twice")
                }
                do {
                    args.values[name, default: []].append(try parse(text))
                } catch {
                    throw UsageError(message: "\(name) is '\(text)'; \(error.expected)")
                }
            } else if a.hasPrefix("-"), a.count > 1, Double(a) == nil {
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
    /// `--quiet` (or `-q`) before any `--` on the command line.
    static let quiet: Bool = {
        let argv = CommandLine.arguments.dropFirst()
        return argv.prefix(while: { $0 != "--" }).contains { $0 == "--quiet" || $0 == "-q" }
    }()

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

    /// A result as pretty-printed JSON with sorted keys on stdout.
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            FileHandle.standardOutput.write(try encoder.encode(value))
            FileHandle.standardOutput.write(Data("\n".utf8))
        } catch {
            err("Error: cannot write the result as JSON: \(error)")
        }
    }
}

/// An optional value written as JSON `null` when absent (instead of leaving the key out).
struct Nullable<Wrapped: Encodable>: Encodable {
    var value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value { try c.encode(value) } else { try c.encodeNil() }
    }
}

/// Exit statuses (sysexits.h where one applies), as the table of docs/reference/cli.md lists them.
enum ExitCode {
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

/// A time limit in whole seconds, at least one.
struct Seconds: ArgumentValue {
    var value: Int
    init(argument: String) throws(ExpectedValue) {
        guard let n = Int(argument), n > 0 else { throw ExpectedValue(expected: "give a positive number of seconds") }
        value = n
    }
}
