// linkwell — one route table, both association files, the landing pages.

import Foundation

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
      verify                    Run the Apple or Android matcher on any association file (swcutil stand-in).
      doctor                    Check a live deployment over HTTPS the way Apple and Google fetch it.
      codegen                   Generate the apps' link router (Swift, Kotlin), intent filters and plists.
      healthcheck               GET a loopback URL and exit 0 on 2xx (container HEALTHCHECK; no curl needed).

      See 'linkwell <subcommand> --help' for detailed help.
    """

let argv = Array(CommandLine.arguments.dropFirst())
var status: Int32 = 0
if argv.isEmpty || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help" {
    if argv.count > 1, let c = commands[argv[1]] {
        Output.out(c.spec.helpText)
    } else {
        Output.out(topHelp)
    }
} else if argv[0] == "--version" {
    Output.out("linkwell \(LinkwellVersion.string)")
} else if let command = commands[argv[0]] {
    status = command.main(Array(argv.dropFirst()))
} else {
    Output.err("Error: unknown subcommand '\(argv[0])'. Run 'linkwell --help' for the list.")
    status = 64
}
exit(status)
