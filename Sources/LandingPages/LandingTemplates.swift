import Foundation

/// A template file that could not be read or compiled; a snapshot with one is not built.
public struct LandingTemplateError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String
    public var fix: String?

    public init(file: String, message: String, fix: String? = nil) {
        self.file = file
        self.message = message
        self.fix = fix
    }

    public var description: String {
        "\(file): error: \(message)" + (fix.map { "\n    fix: \($0)" } ?? "")
    }
}

/// The compiled landing and not-found templates of one look (the shipped one, or a site's).
public struct LandingTemplates: Sendable {
    public let landing: Template
    public let notFound: Template
    /// Where the templates came from, in override order.
    public let directories: [String]

    public static let landingFile = "landing.html"
    public static let notFoundFile = "not-found.html"
    public static let partialsFolder = "partials"

    /// Compiles `landing.html`, `not-found.html` and `partials/*.html` from the `folders` of
    /// `files`; a file in a later folder replaces the one of the same name in an earlier one.
    public init(files: AssetFiles, folders: [String]) throws(LandingTemplateError) {
        var sources: [String: (source: String, file: String)] = [:]
        var partials: [String: String] = [:]
        for dir in folders {
            guard files.hasFolder(dir) else {
                throw LandingTemplateError(file: dir, message: "the templates folder does not exist",
                                           fix: "create it, or correct 'landing.templatesDir' (a folder under server.publicDir, or beside the config file)")
            }
            for name in [Self.landingFile, Self.notFoundFile] {
                let path = dir + "/" + name
                if let text = try files.text(path) { sources[name] = (text, path) }
            }
            let prefix = dir + "/" + Self.partialsFolder + "/"
            for path in files.files.keys.sorted() where path.hasPrefix(prefix) && path.hasSuffix(".html") {
                let name = path.dropFirst(prefix.count).dropLast(5)
                guard !name.contains("/") else { continue }
                partials[String(name)] = try files.text(path)
            }
        }
        func compile(_ name: String) throws(LandingTemplateError) -> Template {
            guard let (source, file) = sources[name] else {
                throw LandingTemplateError(file: (folders.last ?? ".") + "/" + name, message: "template '\(name)' is missing",
                                           fix: "copy it from the shipped public/templates/")
            }
            let template: Template
            do {
                template = try Template(name: file, source: source, mode: .html, partials: partials)
            } catch {
                throw LandingTemplateError(file: file, message: error.description)
            }
            if !template.missingPartials.isEmpty {
                throw LandingTemplateError(file: file, message: "includes missing partial(s) \(template.missingPartials.sorted().joined(separator: ", "))",
                                           fix: "add them under partials/ or remove the {{> …}} tags")
            }
            return template
        }
        landing = try compile(Self.landingFile)
        notFound = try compile(Self.notFoundFile)
        self.directories = folders
    }
}
