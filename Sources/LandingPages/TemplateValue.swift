import LinkRouting
import LinkwellJSON

/// The data a template renders: JSON-shaped values plus two "safe kinds" that the HTML-mode
/// escaper treats specially (a validated URL and HTML the server vouches for).
public enum TemplateValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case list([TemplateValue])
    case object([String: TemplateValue])
    /// A URL that passed `SafeURL`'s validation; emitted as-is (attribute-escaped) in URL attributes.
    case url(SafeURL)
    /// HTML the server vouches for; the only value `{{{x}}}` emits unescaped in `.html` mode.
    case html(TrustedHTML)

    /// Mustache truthiness: `false`, `null`, an empty list and an empty string are falsey.
    /// Numbers (including 0) are truthy.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case let .bool(b): return b
        case let .list(l): return !l.isEmpty
        case let .string(s): return !s.isEmpty
        case .int, .number, .object: return true
        case let .url(u): return !u.string.isEmpty
        case let .html(h): return !h.html.isEmpty
        }
    }

    /// The member `key` of an object value; `nil` for anything else.
    public subscript(key: String) -> TemplateValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    /// The text a variable tag interpolates, before escaping. Lists and objects render empty.
    var interpolatedText: String {
        switch self {
        case .null, .list, .object: return ""
        case let .bool(b): return b ? "true" : "false"
        case let .int(i): return String(i)
        case let .number(d): return TemplateValue.format(d)
        case let .string(s): return s
        case let .url(u): return u.string
        case let .html(h): return h.html
        }
    }

    /// `1.0` → "1", `1.21` → "1.21", non-finite values by their Swift names.
    static func format(_ d: Double) -> String {
        if d.isFinite, abs(d) < 1e15, Double(Int64(d)) == d { return String(Int64(d)) }
        return String(d)
    }
}

// MARK: - Literals

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - From JSON

extension TemplateValue {
    /// Converts parsed JSON. Integral numbers that fit an `Int` become `.int`, others `.number`;
    /// duplicate object keys keep the last value.
    public init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case let .bool(b): self = .bool(b)
        case let .number(text):
            if let i = Int(text) {
                self = .int(i)
            } else {
                self = .number(Double(text) ?? 0)
            }
        case let .string(s): self = .string(s)
        case let .array(elements): self = .list(elements.map(TemplateValue.init(json:)))
        case let .object(members):
            var dict: [String: TemplateValue] = [:]
            dict.reserveCapacity(members.count)
            for member in members { dict[member.key] = TemplateValue(json: member.value) }
            self = .object(dict)
        }
    }
}
