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

    /// Reads `landing.html`, `not-found.html` and `partials/*.html` from `directories`; a file
    /// in a later directory replaces the one of the same name in an earlier one.
    public init(directories: [String]) throws(LandingTemplateError) {
        var sources: [String: (source: String, file: String)] = [:]
        var partials: [String: String] = [:]
        let fm = FileManager.default
        for dir in directories {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw LandingTemplateError(file: dir, message: "the templates folder does not exist",
                                           fix: "create it, or correct 'landing.templatesDir' (a path under public/)")
            }
            for name in [Self.landingFile, Self.notFoundFile] {
                let path = (dir as NSString).appendingPathComponent(name)
                if fm.fileExists(atPath: path) { sources[name] = (try Self.read(path), path) }
            }
            let partialsDir = (dir as NSString).appendingPathComponent(Self.partialsFolder)
            if let names = try? fm.contentsOfDirectory(atPath: partialsDir) {
                for name in names.sorted() where name.hasSuffix(".html") {
                    partials[String(name.dropLast(5))] = try Self.read((partialsDir as NSString).appendingPathComponent(name))
                }
            }
        }
        func compile(_ name: String) throws(LandingTemplateError) -> Template {
            guard let (source, file) = sources[name] else {
                throw LandingTemplateError(file: (directories.last ?? ".") + "/" + name, message: "template '\(name)' is missing",
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
        self.directories = directories
    }

    static func read(_ path: String) throws(LandingTemplateError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LandingTemplateError(file: path, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LandingTemplateError(file: path, message: "the file is not UTF-8")
        }
        return text
    }
}
