import LandingPages
import Testing

// The contextual-escaping (`.html`) mode: an XSS corpus through every context, the compile
// errors for places no escaping makes safe, and the URL rules.

private func render(
    _ source: String, _ context: TemplateValue, allowedSchemes: Set<String> = [], partials: [String: String] = [:]
) throws -> String {
    try Template(name: "test", source: source, mode: .html(allowedSchemes: allowedSchemes), partials: partials)
        .render(context)
}

/// The compile error for `source` in `.html` mode, or nil when it compiles.
private func compileError(_ source: String, partials: [String: String] = [:]) -> TemplateError? {
    do {
        _ = try Template(name: "landing.html", source: source, mode: .html(allowedSchemes: []), partials: partials)
        return nil
    } catch {
        return error
    }
}

/// Payloads that try to leave a text node or an attribute value, or to smuggle a script URL.
let xssCorpus: [String] = [
    "<script>alert(1)</script>",
    "</script><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "</textarea><img src=x onerror=alert(1)>",
    "\" onmouseover=\"alert(1)",
    "' onmouseover='alert(1)",
    "\"><img src=x onerror=alert(1)>",
    "'><svg onload=alert(1)>",
    "\" autofocus onfocus=alert(1) x=\"",
    "<!--",
    "--><script>alert(1)</script>",
    "<img src=\"x\" onerror=\"alert('x')\">",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#34; onmouseover=&#34;alert(1)",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    " \t\njavascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "java\rscript:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;avascript:alert(1)",
    "&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)",
    "javascript&colon;alert(1)",
    "jav&#x09;ascript:alert(1)",
    "jav&#x0A;ascript:alert(1)",
    "%6Aavascript:alert(1)",
    "java%0ascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "\u{0}javascript:alert(1)",
    "java\u{0}script:alert(1)",
    "\u{1}\u{2}javascript:alert(1)",
    "javascript\u{200B}:alert(1)",
    "ｊａｖａｓｃｒｉｐｔ:alert(1)",
    "\u{FEFF}javascript:alert(1)",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "\u{2028}alert(1)\u{2029}",
    "日本語 <b>太字</b> & \"引用\" 'x' 🎉",
]

/// URL values that must never reach an `href` as they are.
let dangerousURLs: [String] = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    " \t\njavascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "java\rscript:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;avascript:alert(1)",
    "&#X6a;avascript:alert(1)",
    "&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)",
    "javascript&colon;alert(1)",
    "javascript&#58;alert(1)",
    "javascript&#x3A;alert(1)",
    "jav&#x09;ascript:alert(1)",
    "jav&#x0A;ascript:alert(1)",
    "jav&Tab;ascript:alert(1)",
    "%6Aavascript:alert(1)",
    "java%0ascript:alert(1)",
    "javascript%3Aalert(1)",
    "%2561vascript:alert(1)".replacingOccurrences(of: "%2561", with: "j%2561"),
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    " data:image/svg+xml,<svg onload=alert(1)>",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "livescript:alert(1)",
    "\u{0}javascript:alert(1)",
    "java\u{0}script:alert(1)",
    "\u{1}\u{2}javascript:alert(1)",
    "javascript\u{200B}:alert(1)",
    "\u{FEFF}javascript:alert(1)",
    "ｊａｖａｓｃｒｉｐｔ:alert(1)",
    "javascript\u{7F}:alert(1)",
    "<a href=\"javascript:alert(1)\">x</a>",
    "file:///etc/passwd",
    "about:blank",
    "blob:https://example.com/uuid",
    "\u{2028}javascript:alert(1)",
]

private let specialCharacters: Set<Character> = ["<", ">", "\"", "'"]

/// The text between `prefix` and `suffix` in `output`.
private func interpolated(_ output: String, prefix: String, suffix: String) -> String? {
    guard output.hasPrefix(prefix), output.hasSuffix(suffix), output.count >= prefix.count + suffix.count else {
        return nil
    }
    return String(output.dropFirst(prefix.count).dropLast(suffix.count))
}

@Suite("Contextual escaping: XSS corpus")
struct XSSCorpusTests {
    static let textAndAttributeContexts: [(prefix: String, tag: String, suffix: String)] = [
        ("<p>", "{{v}}", "</p>"),
        ("<p>", "{{{v}}}", "</p>"),
        ("<p>", "{{& v}}", "</p>"),
        ("<title>", "{{v}}", "</title>"),
        ("<textarea>", "{{{v}}}", "</textarea>"),
        ("<div title=\"", "{{v}}", "\"></div>"),
        ("<div title='", "{{v}}", "'></div>"),
        ("<div data-x=\"a ", "{{{v}}}", " b\"></div>"),
        ("<meta name=\"description\" content=\"", "{{v}}", "\">"),
        ("<meta property=\"og:title\" content=\"", "{{v}}", "\">"),
        ("<input value=\"", "{{v}}", "\">"),
        ("<noscript><p>", "{{v}}", "</p></noscript>"),
    ]

    @Test("text and attribute values are escaped", arguments: xssCorpus)
    func textAndAttributes(_ payload: String) throws {
        for context in Self.textAndAttributeContexts {
            let output = try render(context.prefix + context.tag + context.suffix, ["v": .string(payload)])
            let value = try #require(
                interpolated(output, prefix: context.prefix, suffix: context.suffix), "context \(context.prefix)")
            #expect(!value.contains(where: { specialCharacters.contains($0) }), "\(context.prefix)\(context.tag): \(value)")
            #expect(value == HTMLEscaping.text(payload), "\(context.prefix)\(context.tag)")
            if payload.contains(where: { specialCharacters.contains($0) }) {
                #expect(!output.contains(payload))
            }
        }
    }

    static let urlContexts: [(prefix: String, suffix: String)] = [
        ("<a href=\"", "\">x</a>"),
        ("<a href='", "'>x</a>"),
        ("<a href=\"  ", "  \">x</a>"),
        ("<img src=\"", "\">"),
        ("<iframe src=\"", "\"></iframe>"),
        ("<script src=\"", "\"></script>"),
        ("<form action=\"", "\"></form>"),
        ("<button formaction=\"", "\"></button>"),
        ("<video poster=\"", "\"></video>"),
        ("<link rel=\"canonical\" HREF=\"", "\">"),
        ("<img srcset=\"", " 2x\">"),
        ("<img srcset=\"/a.png 1x, ", " 2x\">"),
        ("<meta property=\"og:url\" content=\"", "\">"),
        ("<meta property=\"og:image\" content=\"", "\">"),
        ("<meta name=\"twitter:image\" content=\"", "\">"),
        ("<meta property=\"al:ios:url\" content=\"", "\">"),
        ("<meta property=\"al:android:url\" content=\"", "\">"),
        ("<meta http-equiv=\"refresh\" content=\"0; url=", "\">"),
        ("<meta http-equiv=\"Refresh\" content=\"5;URL=", "\">"),
        ("<meta http-equiv=\"refresh\" content=\"0; ", "\">"),
        ("<svg><a xlink:href=\"", "\">x</a></svg>"),
    ]

    @Test("script URLs never reach a URL attribute", arguments: dangerousURLs)
    func urlAttributes(_ payload: String) throws {
        for context in Self.urlContexts {
            for tag in ["{{v}}", "{{{v}}}"] {
                let output = try render(
                    context.prefix + tag + context.suffix, ["v": .string(payload)],
                    allowedSchemes: ["fitconnect", "intent", "itms-apps", "market"])
                let value = try #require(interpolated(output, prefix: context.prefix, suffix: context.suffix))
                #expect(value == "about:invalid#linkwell", "\(context.prefix)\(tag) ← \(payload.debugDescription)")
            }
        }
    }

    @Test("every corpus value in a URL attribute is either refused or escaped", arguments: xssCorpus)
    func urlAttributesNeverRaw(_ payload: String) throws {
        for context in Self.urlContexts {
            let output = try render(context.prefix + "{{v}}" + context.suffix, ["v": .string(payload)])
            let value = try #require(interpolated(output, prefix: context.prefix, suffix: context.suffix))
            #expect(!value.contains(where: { specialCharacters.contains($0) }))
            #expect(!value.lowercased().contains("javascript:"))
        }
    }

    @Test("values after the scheme are percent-encoded, in the path and in the query", arguments: xssCorpus)
    func urlParts(_ payload: String) throws {
        let path = try render("<a href=\"https://apps.apple.com/app/id{{v}}\">", ["v": .string(payload)])
        let pathValue = try #require(interpolated(path, prefix: "<a href=\"https://apps.apple.com/app/id", suffix: "\">"))
        #expect(!pathValue.contains(where: { specialCharacters.contains($0) || $0 == " " || $0.isNewline }))

        let query = try render("<a href=\"/open?to={{v}}&amp;x=1\">", ["v": .string(payload)])
        let queryValue = try #require(interpolated(query, prefix: "<a href=\"/open?to=", suffix: "&amp;x=1\">"))
        #expect(queryValue.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~%".contains($0)) })
    }
}

@Suite("Contextual escaping: compile errors")
struct TemplateCompileErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let source: String
        let message: String
        var line = 1
        var column: Int? = nil
        var testDescription: String { source.debugDescription }
    }

    static let cases: [Case] = [
        Case(source: "<script>var id = \"{{id}}\";</script>", message: "variables are not allowed inside <script>", column: 19),
        Case(source: "<SCRIPT type=\"module\">\n  go({{{id}}})\n</SCRIPT>", message: "inside <script>", line: 2, column: 6),
        Case(source: "<script>{{#a}}x{{/a}}{{b}}</script>", message: "inside <script>"),
        Case(source: "<style>body { color: {{c}} }</style>", message: "variables are not allowed inside <style>"),
        Case(source: "<div onclick=\"go('{{x}}')\"></div>", message: "event-handler attribute 'onclick'"),
        Case(source: "<body ONLOAD='{{x}}'>", message: "event-handler attribute 'onload'"),
        Case(source: "<div style=\"color: {{c}}\"></div>", message: "style attribute"),
        Case(source: "<a href={{u}}>x</a>", message: "unquoted attribute value"),
        Case(source: "<a href= {{u}}>x</a>", message: "unquoted attribute value"),
        Case(source: "<div class=big{{x}}></div>", message: "unquoted attribute value"),
        Case(source: "<{{tag}}>", message: "tag name"),
        Case(source: "</{{tag}}>", message: "tag name"),
        Case(source: "<div {{attributes}}></div>", message: "attribute names"),
        Case(source: "<div data-{{name}}=\"x\"></div>", message: "attribute names"),
        Case(source: "<input checked {{x}}>", message: "attribute names"),
        Case(source: "<!-- {{x}} -->", message: "HTML comments"),
        Case(source: "<!DOCTYPE {{x}}>", message: "HTML comments or declarations"),
        Case(source: "<iframe srcdoc=\"{{x}}\"></iframe>", message: "srcdoc"),
        Case(source: "<iframe>{{x}}</iframe>", message: "inside <iframe>"),
        Case(source: "<svg><a><animate attributeName=\"href\" values=\"{{u}}\"/></a></svg>", message: "SVG animation"),
        Case(source: "<svg><set attributeName=\"href\" to=\"{{u}}\"/></svg>", message: "SVG animation"),
        Case(source: "<meta content=\"{{u}}\" property=\"og:url\">", message: "<meta> content"),
        Case(source: "<meta property=\"{{p}}\" content=\"{{u}}\">", message: "<meta> content"),
        Case(source: "<meta http-equiv=\"refresh\" content=\"{{u}}\">", message: "refresh"),
        Case(source: "<meta http-equiv=\"refresh\" content=\"0; ur{{u}}\">", message: "refresh"),
        Case(source: "<a href=\"java{{rest}}\">", message: "could still be a URL scheme"),
        Case(source: "<a href=\"{{a}}{{b}}\">", message: "could extend the URL's scheme"),
        Case(source: "<a href=\"{{scheme}}://{{host}}\">", message: "choose the URL's scheme"),
        Case(source: "<a href=\"{{scheme}}&#58;//x\">", message: "choose the URL's scheme"),
        Case(source: "<a href=\"/x?a=1&{{b}}\">", message: "character reference"),
        Case(source: "<title>{{#a}}</title>{{/a}}", message: "starts in the text of <title> but ends in HTML text"),
        Case(source: "<a href=\"{{#a}}\">{{/a}}", message: "starts in the value of attribute 'href'"),
        Case(source: "{{#a}}<div title=\"{{/a}}\">", message: "starts in HTML text"),
        Case(source: "<p title=\"{{>p}}\">", message: "partial 'p' is included in the value of attribute 'title'"),
        Case(source: "<script>if (a <!-- b) {}</script>", message: "'<!--' inside <script>"),
        Case(source: "<a href=\"x\"", message: "ends inside the <a> tag"),
        Case(source: "<input {{#c}}checked{{/c}}=\"x\">", message: "may continue an attribute name"),
        Case(source: "<input {{#c}}check{{/c}}ed>", message: "may continue an attribute name"),
        Case(source: "{{#a}}", message: "never closed"),
        Case(source: "{{/a}}", message: "never opened"),
        Case(source: "{{#a}}{{/b}}", message: "closes the section 'a'"),
        Case(source: "{{x", message: "never closed"),
        Case(source: "{{=<% =}}", message: "set-delimiter"),
        Case(source: "{{<parent}}{{/parent}}", message: "inheritance"),
        Case(source: "{{a..b}}", message: "empty part"),
    ]

    @Test("is a compile error", arguments: cases)
    func compileErrors(_ test: Case) throws {
        let error = try #require(compileError(test.source))
        #expect(error.message.contains(test.message) || error.description.contains(test.message), "\(error)")
        #expect(error.templateName == "landing.html")
        #expect(error.line == test.line, "\(error)")
        if let column = test.column { #expect(error.column == column, "\(error)") }
        #expect(!error.fix.isEmpty)
    }

    @Test func errorNamesFileLineColumnAndFix() throws {
        let source = "<html>\n<body>\n  <script>\n    const id = {{id}};\n  </script>\n</body>\n"
        let error = try #require(compileError(source))
        #expect(error.line == 4)
        #expect(error.column == 16)
        #expect(
            error.description
                == "landing.html:4:16: variables are not allowed inside <script>; pass data through a data-* attribute")
    }

    @Test func errorInPartialNamesThePartial() throws {
        let error = try #require(
            compileError("<p>{{>banner}}</p>", partials: ["banner": "<a\n onclick=\"x({{id}})\">"]))
        #expect(error.templateName == "banner")
        #expect(error.line == 2)
        #expect(error.message.contains("onclick"))
    }

    @Test func partialMustEndInText() throws {
        let error = try #require(compileError("{{>open}}</a>", partials: ["open": "<a href=\"x\""]))
        #expect(error.templateName == "open")
        #expect(error.message.contains("partial ends inside"))
    }

    @Test("literal markup without variables compiles", arguments: [
        "<script>var a = 1 < 2 && 3 > 2; document.write('</s' + 'cript>')</script><p>{{x}}</p>",
        "<style>a > b { color: red }</style>{{x}}",
        "<div onclick=\"go()\" style=\"color:red\">{{x}}</div>",
        "<!-- a comment --><!----><!--->{{x}}",
        "<!DOCTYPE html><html lang=\"en\">{{x}}</html>",
        "<a href=\"{{#u}}{{u}}{{/u}}{{^u}}/fallback{{/u}}\">x</a>",
        "<input type=\"checkbox\" {{#c}}checked{{/c}} name=\"a\">",
        "<input {{#c}}checked {{/c}}name=\"a\">",
        "<a class=\"btn{{#primary}} btn-primary{{/primary}}\" href=\"{{url}}\">{{label}}</a>",
        "<ul>{{#items}}<li><a href=\"{{url}}\" title=\"{{title}}\">{{name}}</a></li>{{/items}}</ul>",
        "<a href=\"{{base}}/{{path}}?q={{q}}#{{frag}}\">x</a>",
        "<meta name=\"apple-itunes-app\" content=\"app-id={{appID}}, app-argument={{url}}\">",
        "<script type=\"application/ld+json\" src=\"{{u}}\"></script>",
        "<textarea>{{#lines}}{{.}}\n{{/lines}}</textarea>",
    ])
    func compiles(_ source: String) {
        #expect(compileError(source) == nil)
    }
}

@Suite("Contextual escaping: rendering")
struct TemplateHTMLRenderingTests {
    @Test func textAndTrustedHTML() throws {
        let template = "<main>{{{body}}}</main><p>{{{text}}}</p><p>{{body}}</p>"
        let output = try render(
            template, ["body": .html(TrustedHTML(literal: "<b>hi</b>")), "text": "<b>hi</b>"])
        #expect(output == "<main><b>hi</b></main><p>&lt;b&gt;hi&lt;/b&gt;</p><p>&lt;b&gt;hi&lt;/b&gt;</p>")
    }

    @Test func trustedHTMLIsEscapedOutsideText() throws {
        let html = TemplateValue.html(TrustedHTML(literal: "</title><script>x</script>"))
        #expect(
            try render("<title>{{{t}}}</title><i title=\"{{{t}}}\"></i>", ["t": html])
                == "<title>&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title><i title=\"&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;\"></i>"
        )
        #expect(TrustedHTML(escaping: "<a & b>").html == "&lt;a &amp; b&gt;")
    }

    @Test("safe URLs pass", arguments: [
        "https://fitconnect.app/signup?referralCode=abc",
        "http://example.com",
        "HTTPS://EXAMPLE.COM/A",
        "/post/42",
        "post/42",
        "?a=1",
        "#top",
        "//cdn.example.com/x.png",
        "/search?q=a:b",
        "https://x.example/?next=javascript:alert(1)",
    ])
    func safeURLsPass(_ url: String) throws {
        let output = try render("<a href=\"{{u}}\">x</a>", ["u": .string(url)])
        #expect(output == "<a href=\"\(HTMLEscaping.attribute(url))\">x</a>")
    }

    @Test func customSchemesOnlyWhenAllowed() throws {
        let template = "<a href=\"{{u}}\">x</a>"
        let urls = [
            "fitconnect://signup?referralCode=abc",
            "intent://open#Intent;scheme=fitconnect;package=app.fitconnect;end",
            "itms-apps://apps.apple.com/app/id123",
            "market://details?id=app.fitconnect",
        ]
        for url in urls {
            #expect(try render(template, ["u": .string(url)]) == "<a href=\"about:invalid#linkwell\">x</a>")
            #expect(
                try render(template, ["u": .string(url)], allowedSchemes: ["FitConnect", "intent", "itms-apps", "market"])
                    == "<a href=\"\(HTMLEscaping.attribute(url))\">x</a>")
        }
    }

    @Test func safeURLValuesAreEmittedAsValidated() throws {
        let intent = try #require(
            SafeURL("intent://open#Intent;scheme=fitconnect;end&x=\"1\"", allowedSchemes: ["intent"]))
        let output = try render("<a href=\"{{u}}\">x</a>", ["u": .url(intent)])
        #expect(output == "<a href=\"intent://open#Intent;scheme=fitconnect;end&amp;x=&quot;1&quot;\">x</a>")
    }

    @Test("SafeURL refuses script URLs", arguments: dangerousURLs)
    func safeURLRefuses(_ payload: String) {
        #expect(SafeURL(payload) == nil)
        #expect(SafeURL(payload, allowedSchemes: ["fitconnect", "intent", "market", "itms-apps"]) == nil)
    }

    @Test func safeURLSchemes() throws {
        #expect(SafeURL("https://example.com")?.string == "https://example.com")
        #expect(SafeURL("  https://exa\tmple.com\n ")?.string == "https://example.com")
        #expect(SafeURL("/relative/path")?.string == "/relative/path")
        #expect(SafeURL("mailto:a@example.com") == nil)
        #expect(SafeURL("mailto:a@example.com", allowedSchemes: ["mailto"]) != nil)
        #expect(SafeURL("fitconnect://x") == nil)
        #expect(SafeURL("FITCONNECT://x", allowedSchemes: ["fitconnect"]) != nil)
        #expect(SafeURL("javascript:alert(1)", allowedSchemes: ["javascript"]) != nil)  // the caller's explicit choice
        #expect(SafeURL("data:text/html,x") == nil)
        #expect(SafeURL("file:///etc/passwd") == nil)
        #expect(SafeURL("about:blank") == nil)
        #expect(SafeURL("a\u{7}b") == nil)
    }

    @Test func urlPartsAreEncoded() throws {
        let output = try render(
            "<a href=\"https://apps.apple.com/app/id{{id}}?ref={{ref}}\">x</a>",
            ["id": "12 34\"<>", "ref": "a&b=c d/é"])
        #expect(output == "<a href=\"https://apps.apple.com/app/id12%2034%22%3C%3E?ref=a%26b%3Dc%20d%2F%C3%A9\">x</a>")
    }

    @Test func srcsetCandidatesAreEachValidated() throws {
        let output = try render(
            "<img srcset=\"{{a}} 1x, {{b}} 2x\">", ["a": "/a.png", "b": "javascript:alert(1)"])
        #expect(output == "<img srcset=\"/a.png 1x, about:invalid#linkwell 2x\">")
    }

    @Test func metaTags() throws {
        let template = """
            <meta property="og:url" content="{{url}}">
            <meta property="og:title" content="{{title}}">
            <meta name="twitter:image" content="{{image}}">
            <meta property="al:ios:url" content="{{app}}">
            <meta http-equiv="refresh" content="0; url={{url}}">
            """
        let context: TemplateValue = [
            "url": "https://fitconnect.app/signup?referralCode=a&b",
            "title": "Join \"FitConnect\" <now>",
            "image": "javascript:alert(1)",
            "app": "fitconnect://signup?referralCode=a",
        ]
        let output = try render(template, context, allowedSchemes: ["fitconnect"])
        #expect(
            output == """
                <meta property="og:url" content="https://fitconnect.app/signup?referralCode=a&amp;b">
                <meta property="og:title" content="Join &quot;FitConnect&quot; &lt;now&gt;">
                <meta name="twitter:image" content="about:invalid#linkwell">
                <meta property="al:ios:url" content="fitconnect://signup?referralCode=a">
                <meta http-equiv="refresh" content="0; url=https://fitconnect.app/signup?referralCode=a&amp;b">
                """)
    }

    @Test func conditionalURLFallback() throws {
        let template = "<a href=\"{{#u}}{{u}}{{/u}}{{^u}}/fallback{{/u}}\">x</a>"
        #expect(try render(template, ["u": "javascript:x"]) == "<a href=\"about:invalid#linkwell\">x</a>")
        #expect(try render(template, ["u": "/a"]) == "<a href=\"/a\">x</a>")
        #expect(try render(template, [:]) == "<a href=\"/fallback\">x</a>")
    }

    @Test func sectionWhoseSecondPassWouldBeUnsafeRunsAtMostOnce() throws {
        // Two passes would write "java" then "script:alert(1)" into one href.
        let template = "<a href=\"{{#urls}}{{.}}{{/urls}}\">x</a><p>{{#urls}}{{.}} {{/urls}}</p>"
        let output = try render(template, ["urls": ["java", "script:alert(1)"]])
        #expect(output == "<a href=\"java\">x</a><p>java script:alert(1) </p>")
    }

    @Test func repeatingSectionsInAttributesStayLists() throws {
        let template = "<a class=\"{{#classes}}{{.}} {{/classes}}\" href=\"/t?{{#tags}}t={{.}}&amp;{{/tags}}\">x</a>"
        let output = try render(template, ["classes": ["a", "b\""], "tags": ["x y", "z"]])
        #expect(output == "<a class=\"a b&quot; \" href=\"/t?t=x%20y&amp;t=z&amp;\">x</a>")
    }

    @Test func partialsCompileInHTMLMode() throws {
        let output = try render(
            "<body>\n  {{>banner}}\n</body>",
            ["store": "javascript:alert(1)", "name": "<App>"],
            partials: ["banner": "<a href=\"{{store}}\">\n  Get {{name}}\n</a>\n"])
        #expect(output == "<body>\n  <a href=\"about:invalid#linkwell\">\n    Get &lt;App&gt;\n  </a>\n</body>")
    }

    @Test func unknownPartialsRenderEmptyAndAreReported() throws {
        let template = try Template(name: "t", source: "a{{>nope}}b", mode: .html)
        #expect(template.render([:]) == "ab")
        #expect(template.missingPartials == ["nope"])
    }

    @Test func nestedStandalonePartialIndentationComposes() throws {
        let partials = ["a": "x\n  {{>b}}\n", "b": "y\n{{v}}\n\nz\n"]
        for mode in [TemplateMode.spec, .html] {
            let template = try Template(name: "t", source: "<div>\n  {{>a}}\n</div>\n", mode: mode, partials: partials)
            #expect(template.render(["v": "1\n2"]) == "<div>\n  x\n    y\n    1\n2\n\n    z\n</div>\n")
        }
    }

    @Test func truthiness() throws {
        let template = try Template(name: "t", source: "{{#v}}yes{{/v}}{{^v}}no{{/v}}", mode: .spec)
        let cases: [(TemplateValue, String)] = [
            ("", "no"), ("a", "yes"), (0, "yes"), (0.0, "yes"), (false, "no"), (nil, "no"), ([], "no"),
            ([:], "yes"), (.html(TrustedHTML(literal: "")), "no"), (.url(SafeURL("/")!), "yes"),
        ]
        for (value, expected) in cases { #expect(template.render(["v": value]) == expected, "\(value)") }
    }

    @Test func runawayPartialRecursionStops() throws {
        let template = try Template(name: "t", source: "{{>a}}", mode: .spec, partials: ["a": "x{{>a}}"])
        #expect(template.render([:]) == String(repeating: "x", count: 64))
    }

    @Test func specModeIsPlainMustache() throws {
        let template = try Template(name: "t", source: "<a href=\"{{u}}\">{{{h}}}</a>", mode: .spec)
        #expect(template.render(["u": "javascript:x", "h": "<b>"]) == "<a href=\"javascript:x\"><b></a>")
    }

    @Test func escapingFunctions() {
        #expect(HTMLEscaping.text("<a href='x'>&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;")
        #expect(HTMLEscaping.attribute("日本 🎉") == "日本 🎉")
    }

    @Test func templatesAreSendableAndReusable() async throws {
        let template = try Template(name: "t", source: "<p title=\"{{t}}\">{{#xs}}{{.}},{{/xs}}</p>", mode: .html)
        let outputs = await withTaskGroup(of: String.self) { group in
            for i in 0..<8 { group.addTask { template.render(["t": .string("\(i)"), "xs": [1, 2.5, true]]) } }
            var all: [String] = []
            for await output in group { all.append(output) }
            return all
        }
        #expect(outputs.count == 8)
        #expect(outputs.contains("<p title=\"3\">1,2.5,true,</p>"))
    }
}
