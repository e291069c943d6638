// linkwell — one route table, both association files, the landing pages.

import Foundation
import LinkRouting

let commands: [String: any LinkwellCommand.Type] = [
    "validate": ValidateCommand.self,
    "generate": GenerateCommand.self,
    "link": LinkCommand.self,
    "routes": RoutesCommand.self,
    "check": CheckCommand.self,
    "verify": VerifyCommand.self,
    "serve": ServeCommand.self,
    "doctor": DoctorCommand.self,
    "healthcheck": HealthcheckCommand.self,
    "codegen": CodegenCommand.self,
    "completions": CompletionsCommand.self,
    "links": LinksCommand.self,
    "tokens": TokensCommand.self,
    "stats": StatsCommand.self,
]

let topHelp = """
    OVERVIEW: Linkwell — a self-hosted link-association server. One route table generates
    apple-app-site-association and assetlinks.json, answers browsers that land on a link, and
    parses the same links in the apps.

    USAGE: linkwell <subcommand> [options]

    OPTIONS:
      --version                 Show the version.
      --help                    Show help information.

    SUBCOMMANDS:
      serve                     Serve the association files, landing pages and admin endpoints.
      validate                  Check a config before anything is served.
      generate                  Write apple-app-site-association / assetlinks.json for static hosting.
      check                     Explain what a URL is: route, parameters, which app claims it and why.
      link                      Build a link for a route from parameters.
      routes                    List the routes of every site.
      links                     Add, list, show, disable and delete short links (SQLite).
      tokens                    Create, list and revoke bearer tokens of the admin REST API.
      stats                     Click counts per short link, route and day (platform, outcome, referrer).
      verify                    Run the Apple or Android matcher on any association file (swcutil stand-in).
      doctor                    Check a live deployment over HTTPS the way Apple and Google fetch it.
      codegen                   Generate the apps' link router (Swift, Kotlin), intent filters and plists.
      healthcheck               GET a loopback URL and exit 0 on 2xx (container HEALTHCHECK; no curl needed).
      completions               Print a shell completion script (bash, zsh, fish).
      help                      Show help for a subcommand; 'linkwell help --man' prints the man page.

      See 'linkwell <subcommand> --help' for detailed help.
    """

// The order the top-level help lists them in, for completions and the man page.
let listed = topHelp.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
    .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { commands[$0] != nil }
CLIReference.specs = listed.map { commands[$0]!.spec } + commands.keys.filter { !listed.contains($0) }.sorted().map { commands[$0]!.spec }
CLIReference.overview = String(topHelp.split(separator: "\n\n")[0].dropFirst("OVERVIEW: ".count))

let argv = Array(CommandLine.arguments.dropFirst())
var status: Int32 = 0
if argv.isEmpty || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help" {
    if argv.count > 1, argv[1] == "--man" {
        Output.out(CLIReference.man)
    } else if argv.count > 1, let c = commands[argv[1]] {
        Output.out(c.spec.helpText)
    } else if argv.count > 1 {
        let hint = DidYouMean.closest(argv[1], in: Array(commands.keys)).map { " Did you mean '\($0)'?" } ?? ""
        Output.err("Error: no subcommand '\(argv[1])'.\(hint) Run 'linkwell --help' for the list.")
        status = ExitCode.usage
    } else {
        Output.out(topHelp)
    }
} else if argv[0] == "--version" {
    Output.out("linkwell \(LinkwellVersion.string)")
} else if let command = commands[argv[0]] {
    status = command.main(Array(argv.dropFirst()))
} else {
    let hint = DidYouMean.closest(argv[0], in: Array(commands.keys) + ["help"]).map { " Did you mean '\($0)'?" } ?? ""
    Output.err("Error: unknown subcommand '\(argv[0])'.\(hint) Run 'linkwell --help' for the list.")
    status = ExitCode.usage
}
exit(status)
