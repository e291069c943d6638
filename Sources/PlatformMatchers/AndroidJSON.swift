// The values AOSP's StatementService keeps after reading a statement: its JsonParser copies an
// android.util.JsonReader stream into org.json objects and refuses everything else. So there are
// no numbers and no nulls anywhere, and booleans only as object members (never in arrays).
// org.json's accessors then coerce: optString turns a boolean or an array into text, optBoolean
// accepts the string "true", a duplicate key keeps its first position with the last value.

import LinkwellJSON
indirect enum AndroidJSON: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case object(AndroidJSONObject)
    case array([AndroidJSON])

    /// org.json `JSON.toString(value)`: a string as is, anything else as its JSON text.
    var javaString: String {
        switch self {
        case let .string(s): return s
        case let .bool(b): return b ? "true" : "false"
        case .object, .array:
            var out = ""
            writeOrgJSON(into: &out)
            return out
        }
    }

    /// org.json's compact text (JSONStringer): `/` is escaped, control characters as `\u00xx`.
    private func writeOrgJSON(into out: inout String) {
        switch self {
        case let .string(s): JSONValue.writeString(s, escaping: .orgJSON, into: &out)
        case let .bool(b): out += b ? "true" : "false"
        case let .array(elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                e.writeOrgJSON(into: &out)
            }
            out += "]"
        case let .object(o):
            out += "{"
            for (i, m) in o.members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(m.key, escaping: .orgJSON, into: &out)
                out += ":"
                m.value.writeOrgJSON(into: &out)
            }
            out += "}"
        }
    }

    /// The same value as a `JSONValue` (for messages and compact output).
    var jsonValue: JSONValue {
        switch self {
        case let .string(s): return .string(s)
        case let .bool(b): return .bool(b)
        case let .array(a): return .array(a.map(\.jsonValue))
        case let .object(o): return .object(o.members.map { (key: $0.key, value: $0.value.jsonValue) })
        }
    }

    struct ConversionError: Error {
        var message: String
    }

    var kindDescription: String {
        switch self {
        case .string: return "a string"
        case .bool: return "a boolean"
        case .object: return "an object"
        case .array: return "an array"
        }
    }

    /// What AOSP's JsonParser would have kept of `value`; the failure names the offending place.
    static func from(_ value: JSONValue, inArray: Bool, path: String) -> Result<AndroidJSON, ConversionError> {
        switch value {
        case .null: return .failure(ConversionError(message: "\(path) is null"))
        case .number: return .failure(ConversionError(message: "\(path) is a number"))
        case let .bool(b): return inArray ? .failure(ConversionError(message: "\(path) is a boolean inside an array")) : .success(.bool(b))
        case let .string(s): return .success(.string(s))
        case let .array(elements):
            var out: [AndroidJSON] = []
            for (i, e) in elements.enumerated() {
                switch from(e, inArray: true, path: "\(path)[\(i)]") {
                case let .success(v): out.append(v)
                case let .failure(m): return .failure(m)
                }
            }
            return .success(.array(out))
        case let .object(members):
            var out = AndroidJSONObject()
            for m in members {
                switch from(m.value, inArray: false, path: "\(path).\(m.key)") {
                case let .success(v): out.put(m.key, v)
                case let .failure(message): return .failure(message)
                }
            }
            return .success(.object(out))
        }
    }
}

/// An org.json `JSONObject` (a LinkedHashMap): keys compared as Java strings (UTF-16, no
/// normalisation); putting an existing key replaces the value in the key's first position.
struct AndroidJSONObject: Sendable, Equatable {
    private(set) var members: [(key: String, value: AndroidJSON)] = []

    static func == (a: AndroidJSONObject, b: AndroidJSONObject) -> Bool {
        a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { javaEquals($0.key, $1.key) && $0.value == $1.value }
    }

    mutating func put(_ key: String, _ value: AndroidJSON) {
        if let i = members.firstIndex(where: { javaEquals($0.key, key) }) {
            members[i].value = value
        } else {
            members.append((key: key, value: value))
        }
    }

    func opt(_ key: String) -> AndroidJSON? {
        members.first(where: { javaEquals($0.key, key) })?.value
    }

    func has(_ key: String) -> Bool { opt(key) != nil }

    /// `optString(key)`: "" when absent.
    func optString(_ key: String) -> String { opt(key)?.javaString ?? "" }

    /// `optString(key, null)`.
    func optStringOrNil(_ key: String) -> String? { opt(key)?.javaString }

    func optObject(_ key: String) -> AndroidJSONObject? {
        if case let .object(o) = opt(key) { return o }
        return nil
    }

    func optArray(_ key: String) -> [AndroidJSON]? {
        if case let .array(a) = opt(key) { return a }
        return nil
    }

    /// `optBoolean(key, fallback)`: a boolean, or a string equal to "true"/"false" ignoring case.
    func optBoolean(_ key: String, fallback: Bool) -> Bool {
        switch opt(key) {
        case let .bool(b): return b
        case let .string(s):
            if asciiCaseInsensitiveEquals(s, "true") { return true }
            if asciiCaseInsensitiveEquals(s, "false") { return false }
            return fallback
        default: return fallback
        }
    }

    var jsonValue: JSONValue { AndroidJSON.object(self).jsonValue }
}

/// Java `equalsIgnoreCase` for an ASCII word.
func asciiCaseInsensitiveEquals(_ s: String, _ word: String) -> Bool {
    func lower(_ u: UInt16) -> UInt16 { u >= 0x41 && u <= 0x5A ? u + 0x20 : u }
    return s.utf16.count == word.utf16.count && zip(s.utf16, word.utf16).allSatisfy { lower($0) == lower($1) }
}

/// Java `String.equals`: the same UTF-16 units (Swift's `==` would also equate NFC and NFD forms).
func javaEquals(_ a: String, _ b: String) -> Bool {
    a.utf16.elementsEqual(b.utf16)
}
