// linkwell — one route table, both association files, the landing pages.

import Foundation

let reference = CLIReference(
    overview: """
        Linkwell — a self-hosted link-association server. One route table generates
        apple-app-site-association and assetlinks.json, answers browsers that land on a link, and
        parses the same links in the apps.
        """,
    commands: [
        ServeCommand.command,
        ValidateCommand.command,
        GenerateCommand.command,
        CheckCommand.command,
        LinkCommand.command,
        RoutesCommand.command,
        LinksCommand.command,
        TokensCommand.command,
        StatsCommand.command,
        VerifyCommand.command,
        DoctorCommand.command,
        CodegenCommand.command,
        HealthcheckCommand.command,
        CompletionsCommand.command,
    ])
exit(reference.main(Array(CommandLine.arguments.dropFirst())))
