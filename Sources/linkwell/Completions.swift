// Shell completions, the top-level help and the man page, all generated from the command tree
// the parser dispatches on, so they cannot drift from the options (a test compares the shipped
// man/linkwell.1 with `linkwell help --man`).

import Foundation
import LinkRouting

/// The whole command line as a value: the tree of commands and what is generated from it.
struct CLIReference: Sendable {
    /// The top-level overview paragraph.
    var overview: String
    /// Every subcommand, in the order the top-level help lists them.
    var commands: [Command]

    var specs: [CommandSpec] { commands.map(\.spec) }

    var names: [String] { specs.map(\.name) + ["help"] }

    static func isFileValue(_ o: OptionSpec) -> Bool { o.isPath }

    /// Fixed choices for a command's first argument (`generate aasa|assetlinks|…`) or its subcommands.
    static func choices(_ command: Command) -> [String] {
        command.subcommandWords + command.spec.arguments.flatMap(\.choices)
    }

    /// A command's options; a group's are its own and every subcommand's.
    static func options(_ command: Command) -> [OptionSpec] {
        var seen = Set<String>()
        return (command.spec.allOptions + command.flattened.flatMap(\.spec.options)).filter { seen.insert($0.name).inserted }
    }

    var topHelp: String {
        var s = "OVERVIEW: \(overview)\n\nUSAGE: linkwell <subcommand> [options]\n\nOPTIONS:\n"
        s += CommandSpec.row("--version", "Show the version.") + CommandSpec.row("--help", "Show help information.")
        s += "\nSUBCOMMANDS:\n"
        for spec in specs { s += CommandSpec.row(spec.name, spec.abstract ?? spec.overview) }
        s += CommandSpec.row("help", "Show help for a subcommand; 'linkwell help --man' prints the man page.")
        return s + "\n  See 'linkwell <subcommand> --help' for detailed help."
    }

    /// The command a path of words names (`links add`), if any.
    func command(_ words: [String]) -> Command? {
        guard let first = words.first, var c = commands.first(where: { $0.spec.name == first }) else { return nil }
        for w in words.dropFirst() {
            guard let sub = c.subcommand(w) else { return nil }
            c = sub
        }
        return c
    }

    /// `linkwell <argv>`: help, the version, or the subcommand argv names.
    func main(_ argv: [String]) -> Int32 {
        if argv.isEmpty || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help" {
            let words = Array(argv.dropFirst())
            if words.first == "--man" {
                Output.out(man)
            } else if let c = command(words) {
                Output.out(c.helpText)
            } else if !words.isEmpty {
                // The deepest group the words name, and the word it does not know.
                let depth = (1..<words.count).reversed().first { command(Array(words.prefix($0))) != nil } ?? 0
                let known = depth > 0 ? command(Array(words.prefix(depth))) : nil
                let candidates = known.map { g in g.subcommandWords.map { "\(g.spec.name) \($0)" } } ?? specs.map(\.name)
                let hint = DidYouMean.closest(words.prefix(depth + 1).joined(separator: " "), in: candidates).map { " Did you mean '\($0)'?" } ?? ""
                Output.err("Error: no subcommand '\(words.joined(separator: " "))'.\(hint) Run 'linkwell --help' for the list.")
                return ExitCode.usage
            } else {
                Output.out(topHelp)
            }
            return 0
        }
        if argv[0] == "--version" {
            Output.out("linkwell \(LinkwellVersion.string)")
            return 0
        }
        guard let command = commands.first(where: { $0.spec.name == argv[0] }) else {
            let hint = DidYouMean.closest(argv[0], in: names).map { " Did you mean '\($0)'?" } ?? ""
            Output.err("Error: unknown subcommand '\(argv[0])'.\(hint) Run 'linkwell --help' for the list.")
            return ExitCode.usage
        }
        return command.main(Array(argv.dropFirst()), reference: self)
    }

    // MARK: bash

    /// The bash `case` arm of one command: its words, and no word after an option that takes a value.
    static func bashArm(_ command: Command, indent: String) -> String {
        let options = command.spec.allOptions
        let words = (choices(command) + options.map(\.name)).joined(separator: " ")
        let files = options.filter(isFileValue).map(\.name).joined(separator: "|")
        let valued = options.filter { $0.valueName != nil && !isFileValue($0) }.map(\.name).joined(separator: "|")
        var arm = "\(indent)\(command.spec.name.split(separator: " ").last!))\n"
        arm += "\(indent)    words=\"\(words)\"\n"
        if !files.isEmpty { arm += "\(indent)    case \"$prev\" in \(files)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac\n" }
        if !valued.isEmpty { arm += "\(indent)    case \"$prev\" in \(valued)) return ;; esac\n" }
        if !command.subcommands.isEmpty {
            arm += "\(indent)    if [ \"$COMP_CWORD\" -gt 2 ]; then\n\(indent)        case \"${COMP_WORDS[2]}\" in\n"
            for sub in command.subcommands { arm += bashArm(sub, indent: indent + "            ") }
            arm += "\(indent)        esac\n\(indent)    fi\n"
        }
        return arm + "\(indent)    ;;\n"
    }

    var bash: String {
        let cases = commands.map { CLIReference.bashArm($0, indent: "        ") }.joined()
        return """
            # bash completion for linkwell — generated by `linkwell completions bash`.
            # Install: linkwell completions bash > /etc/bash_completion.d/linkwell (or source it from ~/.bashrc).
            _linkwell() {
                local cur prev words
                COMPREPLY=()
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(names.joined(separator: " ")) --help --version" -- "$cur"))
                    return
                fi
                case "${COMP_WORDS[1]}" in
            \(cases)        help) words="\(specs.map(\.name).joined(separator: " ")) --man" ;;
                    *) return ;;
                esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -F _linkwell linkwell

            """
    }

    // MARK: zsh

    static func zshEscape(_ s: String) -> String {
        s.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
            .replacingOccurrences(of: ":", with: "\\:")
    }

    var zsh: String {
        var described = specs.map { "        '\($0.name):\(CLIReference.zshEscape($0.overview))'" }
        described += ["        'help:Show help for a subcommand, or the man page (--man).'"]
        var cases = ""
        for command in commands {
            let spec = command.spec
            var args = CLIReference.options(command).map { o -> String in
                let help = CLIReference.zshEscape(o.help)
                if o.valueName == nil { return "'\(o.name)[\(help)]'" }
                let action = o.isPath ? "_files" : o.choices.isEmpty ? " " : "(\(o.choices.joined(separator: " ")))"
                return "'\(o.repeatable ? "*" : "")\(o.name)[\(help)]:\(CLIReference.zshEscape(o.valueName!)):\(action)'"
            }
            let c = CLIReference.choices(command)
            if !c.isEmpty { args.append("'1:what:(\(c.joined(separator: " ")))'") }
            cases += "        \(spec.name)) _arguments \(args.joined(separator: " \\\n            ")) ;;\n"
        }
        return """
            #compdef linkwell
            # zsh completion for linkwell — generated by `linkwell completions zsh`.
            # Install: linkwell completions zsh > "${fpath[1]}/_linkwell", then restart zsh.
            _linkwell() {
                local -a subcommands
                subcommands=(
            \(described.joined(separator: "\n"))
                )
                if (( CURRENT == 2 )); then
                    _describe 'subcommand' subcommands
                    return
                fi
                case $words[2] in
            \(cases)        help) _arguments '1:subcommand:(\(specs.map(\.name).joined(separator: " ")))' '--man[Print the man page]' ;;
                esac
            }
            _linkwell "$@"

            """
    }

    // MARK: fish

    static func fishEscape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    var fish: String {
        var lines = [
            "# fish completion for linkwell — generated by `linkwell completions fish`.",
            "# Install: linkwell completions fish > ~/.config/fish/completions/linkwell.fish",
            "complete -c linkwell -f",
        ]
        for spec in specs {
            lines.append("complete -c linkwell -n __fish_use_subcommand -a \(spec.name) -d '\(CLIReference.fishEscape(spec.overview))'")
        }
        lines.append("complete -c linkwell -n __fish_use_subcommand -a help -d 'Show help for a subcommand, or the man page'")
        for command in commands {
            let when = "-n '__fish_seen_subcommand_from \(command.spec.name)'"
            let c = CLIReference.choices(command)
            if !c.isEmpty { lines.append("complete -c linkwell \(when) -a '\(c.joined(separator: " "))'") }
            for o in CLIReference.options(command) {
                var line = "complete -c linkwell \(when) -l \(o.name.dropFirst(2))"
                if o.valueName != nil { line += o.isPath ? " -r -F" : o.choices.isEmpty ? " -r" : " -r -a '\(o.choices.joined(separator: " "))'" }
                lines.append(line + " -d '\(CLIReference.fishEscape(o.help))'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: man page

    static func roff(_ s: String) -> String {
        var out = s.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    /// A command's `.SS` section, then its subcommands'.
    static func manSection(_ command: Command) -> String {
        let spec = command.spec
        let usage = command.subcommands.isEmpty ? spec.usage : "linkwell \(spec.name) <subcommand> [options]"
        var o = ".SS \"linkwell \(spec.name)\"\n\(roff(spec.overview))\n.PP\n.nf\n\(roff(usage))\n.fi\n"
        for r in spec.arguments.flatMap(\.rows) {
            o += ".TP\n.I \(roff(r.name))\n\(roff(r.help))\n"
        }
        for opt in spec.allOptions {
            let value = opt.valueName.map { " \\fI\(roff($0))\\fR" } ?? ""
            o += ".TP\n\\fB\(roff(opt.name))\\fR\(value)\n\(roff(opt.help))\(opt.repeatable ? " (repeatable)" : "")\n"
        }
        if let d = spec.discussion {
            o += ".PP\n" + d.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? ".PP" : roff(String($0)) }.joined(separator: "\n") + "\n"
        }
        return o + command.subcommands.map(manSection).joined()
    }

    var man: String {
        var o = """
            .\\" Generated by `linkwell help --man` from the same help text as --help. Do not edit:
            .\\" regenerate with `linkwell help --man > man/linkwell.1` (a test fails on drift).
            .TH LINKWELL 1 "" "linkwell \(LinkwellVersion.string)" "User Commands"
            .SH NAME
            linkwell \\- a self\\-hosted link\\-association server
            .SH SYNOPSIS
            .B linkwell
            .I subcommand
            [\\fIoptions\\fR]
            .SH DESCRIPTION

            """
        o += overview.split(separator: "\n").map { CLIReference.roff($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "\n") + "\n"
        o += ".SH COMMANDS\n"
        for command in commands { o += CLIReference.manSection(command) }
        o += """
            .SS "linkwell help [subcommand] [\\-\\-man]"
            Show help for a subcommand, or print this page.
            .SH EXIT STATUS
            .TP
            .B 0
            Success: no errors (warnings allowed).
            .TP
            .B 1
            Findings or errors: an invalid config, a failed check, a link that cannot be built.
            .TP
            .B 64
            Usage error: an unknown subcommand or option, a missing or bad argument.
            .TP
            .B 69
            Unavailable: a tool or service the command needs is missing (curl for doctor).
            .TP
            .B 74
            I/O error: an output file could not be written.
            .SH ENVIRONMENT
            .TP
            .B LINKWELL_CONFIG
            The config file when \\fB\\-\\-config\\fR is not given (default: config/linkwell.json5).
            .TP
            .B NO_COLOR
            When set and not empty, no colour even on a terminal.
            .SH SEE ALSO
            .BR nginx (8),
            .BR caddy (1),
            .BR certbot (1).
            The README and docs/ of the Linkwell repository.

            """
        return o
    }
}

enum CompletionsCommand: LinkwellCommand {
    enum Shell: String, ChoiceValue { case bash, zsh, fish }

    static let spec = CommandSpec(
        name: "completions",
        overview: "Print a shell completion script for bash, zsh or fish.",
        abstract: "Print a shell completion script (bash, zsh, fish).",
        arguments: [ArgumentSpec(name: "bash|zsh|fish", help: "The shell.")],
        options: [],
        discussion: """
            bash: linkwell completions bash > /etc/bash_completion.d/linkwell
            zsh:  linkwell completions zsh > "${fpath[1]}/_linkwell"
            fish: linkwell completions fish > ~/.config/fish/completions/linkwell.fish
            """
    )

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError(message: "name the shell: bash, zsh or fish") }
        let shell: Shell
        do { shell = try Shell(argument: args.positional[0]) } catch {
            let hint = DidYouMean.closest(args.positional[0], in: Shell.choices).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError(message: "no completions for '\(args.positional[0])'\(hint); choose bash, zsh or fish")
        }
        switch shell {
        case .bash: Output.out(args.reference.bash)
        case .zsh: Output.out(args.reference.zsh)
        case .fish: Output.out(args.reference.fish)
        }
        return 0
    }
}
