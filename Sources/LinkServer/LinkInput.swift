// The JSON fields a client sends to create or change a link, read strictly (unknown fields, wrong
// types and over-long values are refused, each naming its field). The same table writes the
// request schemas of the OpenAPI document, so the two cannot drift apart.

import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON

/// One problem of one link in a request.
struct FieldProblem: Equatable {
    var field: String
    var message: String
}

struct FieldProblems: Error {
    var items: [FieldProblem]
}

enum LinkInput {
    enum Kind {
        /// Text of at most `AdminAPI.maximumTextLength` scalars, no NUL.
        case text
        /// An http(s) URL of at most `AdminAPI.maximumURLLength` scalars.
        case url
        /// A fallback: an http(s) URL on a host the site may send browsers to (RedirectPolicy).
        case fallback
        /// The target: a URL of at most `AdminAPI.maximumURLLength` scalars (ShortLinkValidator decides).
        case target
        case bool
        /// RFC 3339 `date-time`.
        case date
        /// `A–Z a–z 0–9 - _`, 1–64 characters.
        case code
        /// A site name of the config.
        case site
        /// `short` or `unguessable`.
        case style
        /// A whole number from 4 to 64.
        case length
    }

    struct Field {
        var name: String
        var kind: Kind
        /// Accepted on POST (create).
        var create: Bool
        /// Accepted on PATCH.
        var patch: Bool
        /// `null` is allowed (an absent override; on PATCH it removes the override).
        var nullable: Bool
        var description: String
    }

    static let fields: [Field] = [
        Field(name: "site", kind: .site, create: true, patch: false, nullable: false,
              description: "The site the code lives on (default: the config's only or default site)."),
        Field(name: "code", kind: .code, create: true, patch: false, nullable: false,
              description: "The code after the slash; left out, one is generated (see codeStyle). Refused with 409 when it is taken or is a path the site already answers (a route, an exclusion, /static)."),
        Field(name: "codeStyle", kind: .style, create: true, patch: false, nullable: false,
              description: "How to generate a code when none is given: short (4+ base62 characters, see length) or unguessable (17 characters from 96 random bits). Ignored when code is given."),
        Field(name: "length", kind: .length, create: true, patch: false, nullable: false,
              description: "Length of a generated short code (default 4). Ignored when code is given."),
        Field(name: "target", kind: .target, create: true, patch: true, nullable: false,
              description: "Where the link leads: an http(s) URL on one of the site's domains (a route's URL opens the app), or a custom-scheme link a route accepts. Other hosts are refused (no open redirects)."),
        Field(name: "previewTitle", kind: .text, create: true, patch: true, nullable: true, description: "Preview title instead of the route's (FDL st)."),
        Field(name: "previewDescription", kind: .text, create: true, patch: true, nullable: true, description: "Preview description instead of the route's (FDL sd)."),
        Field(name: "previewImage", kind: .url, create: true, patch: true, nullable: true, description: "Preview image URL instead of the route's (FDL si)."),
        Field(name: "iosFallback", kind: .fallback, create: true, patch: true, nullable: true, description: "Where iPhones without the app go (FDL ifl)."),
        Field(name: "androidFallback", kind: .fallback, create: true, patch: true, nullable: true, description: "Where Android devices without the app go (FDL afl)."),
        Field(name: "desktopFallback", kind: .fallback, create: true, patch: true, nullable: true, description: "Where desktop browsers go (FDL ofl)."),
        Field(name: "forcedRedirect", kind: .bool, create: true, patch: true, nullable: false, description: "Redirect without the landing page (FDL efr=1)."),
        Field(name: "expiresAt", kind: .date, create: true, patch: true, nullable: true, description: "After this time the link answers 404; null: never."),
        Field(name: "disabled", kind: .bool, create: true, patch: true, nullable: false, description: "A disabled link answers 404 but keeps its code."),
    ]

    /// A value read from JSON.
    enum Value {
        case none, text(String), bool(Bool), date(Date), int(Int)

        var text: String? { if case let .text(s) = self { s } else { nil } }
        var bool: Bool? { if case let .bool(b) = self { b } else { nil } }
        var date: Date? { if case let .date(d) = self { d } else { nil } }
    }

    /// The fields of `value` that `allowed` admits, checked; every problem found.
    static func read(_ value: JSONValue, allowed: (Field) -> Bool, what: String, table: RouteTable?) -> Result<[String: Value], FieldProblems> {
        guard case let .object(members) = value else {
            return .failure(FieldProblems(items: [FieldProblem(field: "", message: "\(what) must be a JSON object, not \(value.kindDescription)")]))
        }
        let known = fields.filter(allowed)
        var problems: [FieldProblem] = []
        var out: [String: Value] = [:]
        for (key, v) in members {
            guard let field = known.first(where: { $0.name == key }) else {
                let hint = fields.contains { $0.name == key } ? "it cannot be set here" : "the fields are \(known.map(\.name).joined(separator: ", "))"
                problems.append(FieldProblem(field: key, message: "unknown field '\(key)': \(hint)"))
                continue
            }
            switch check(v, field, table: table) {
            case let .success(read): out[key] = read
            case let .failure(message): problems.append(FieldProblem(field: key, message: message.items[0].message))
            }
        }
        return problems.isEmpty ? .success(out) : .failure(FieldProblems(items: problems))
    }

    static func check(_ v: JSONValue, _ field: Field, table: RouteTable?) -> Result<Value, FieldProblems> {
        func fail(_ m: String) -> Result<Value, FieldProblems> { .failure(FieldProblems(items: [FieldProblem(field: field.name, message: m)])) }
        if case .null = v {
            return field.nullable ? .success(.none) : fail("\(field.name) cannot be null")
        }
        switch field.kind {
        case .bool:
            guard case let .bool(b) = v else { return fail("\(field.name) must be true or false, not \(v.kindDescription)") }
            return .success(.bool(b))
        case .length:
            guard case let .number(n) = v, let d = Double(n), d.rounded() == d, d >= Double(ShortCode.minimumShortLength), d <= Double(ShortCode.maximumLength) else {
                return fail("length must be a whole number from \(ShortCode.minimumShortLength) to \(ShortCode.maximumLength)")
            }
            return .success(.int(Int(d)))
        default:
            guard case let .string(s) = v else { return fail("\(field.name) must be a string, not \(v.kindDescription)") }
            let n = s.unicodeScalars.count
            if s.unicodeScalars.contains("\u{0}") { return fail("\(field.name) contains a NUL character") }
            switch field.kind {
            case .text where n > AdminAPI.maximumTextLength:
                return fail("\(field.name) is \(n) characters long; at most \(AdminAPI.maximumTextLength)")
            case .url, .fallback, .target:
                if n > AdminAPI.maximumURLLength { return fail("\(field.name) is \(n) characters long; at most \(AdminAPI.maximumURLLength)") }
                if n == 0 { return fail("\(field.name) is empty") }
            case .date:
                guard let d = RFC3339.parse(s) else { return fail("\(field.name) '\(s)' is not an RFC 3339 time; write e.g. 2027-01-31T00:00:00Z") }
                return .success(.date(d))
            case .code:
                if n == 0 || n > ShortCode.maximumLength || !s.unicodeScalars.allSatisfy(ShortCode.isCodeCharacter) {
                    return fail("the code '\(s)' must be 1 to \(ShortCode.maximumLength) characters of A–Z, a–z, 0–9, '-' and '_'")
                }
            case .site:
                if let table, table.site(named: s) == nil {
                    return fail("there is no site '\(s)'; the config's sites are \(table.sites.map(\.name).joined(separator: ", "))")
                }
            case .style:
                if ShortCode.Style(rawValue: s) == nil { return fail("codeStyle is '\(s)'; use short or unguessable") }
            default: break
            }
            return .success(.text(s))
        }
    }

    /// A link to create from one object of a POST body.
    static func new(_ value: JSONValue, table: RouteTable) -> Result<NewShortLink, FieldProblems> {
        let read: [String: Value]
        switch self.read(value, allowed: \.create, what: "each link", table: table) {
        case let .failure(p): return .failure(p)
        case let .success(r): read = r
        }
        guard let target = read["target"]?.text else {
            return .failure(FieldProblems(items: [FieldProblem(field: "target", message: "target is missing: every link needs the URL it leads to")]))
        }
        guard let site = read["site"]?.text ?? ShortLinkSites.defaultSite(table)?.name else {
            return .failure(FieldProblems(items: [FieldProblem(
                field: "site", message: "the config has \(table.sites.count) sites and none is the default; name one (\(table.sites.map(\.name).joined(separator: ", ")))")]))
        }
        var length = ShortCode.minimumShortLength
        if case let .int(n)? = read["length"] { length = n }
        let link = ShortLink(
            code: read["code"]?.text ?? "", site: site, target: target,
            previewTitle: read["previewTitle"]?.text, previewDescription: read["previewDescription"]?.text, previewImage: read["previewImage"]?.text,
            iosFallback: read["iosFallback"]?.text, androidFallback: read["androidFallback"]?.text, desktopFallback: read["desktopFallback"]?.text,
            forcedRedirect: read["forcedRedirect"]?.bool ?? false, expiresAt: read["expiresAt"]?.date, disabled: read["disabled"]?.bool ?? false)
        return .success(NewShortLink(link: link, style: read["codeStyle"]?.text.flatMap(ShortCode.Style.init(rawValue:)) ?? .short, length: length))
    }

    /// `existing` with the fields of a PATCH body applied (null removes an override).
    static func patch(_ value: JSONValue, onto existing: ShortLink) -> Result<ShortLink, FieldProblems> {
        let read: [String: Value]
        switch self.read(value, allowed: \.patch, what: "the body", table: nil) {
        case let .failure(p): return .failure(p)
        case let .success(r): read = r
        }
        var link = existing
        let texts: [(String, WritableKeyPath<ShortLink, String?>)] = [
            ("previewTitle", \.previewTitle), ("previewDescription", \.previewDescription), ("previewImage", \.previewImage),
            ("iosFallback", \.iosFallback), ("androidFallback", \.androidFallback), ("desktopFallback", \.desktopFallback),
        ]
        for (name, path) in texts { if let v = read[name] { link[keyPath: path] = v.text } }
        if let t = read["target"]?.text { link.target = t }
        if let b = read["forcedRedirect"]?.bool { link.forcedRedirect = b }
        if let b = read["disabled"]?.bool { link.disabled = b }
        if let v = read["expiresAt"] { link.expiresAt = v.date.map(ShortLink.wholeSeconds) }
        return .success(link)
    }
}
