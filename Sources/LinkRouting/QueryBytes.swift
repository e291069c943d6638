/// One `&`-separated query item as byte ranges: by the rules of ``RawQueryItem/split(_:)``.
enum QueryBytes {
    /// Calls `body` with each item's name and value (nil without `=`) until it returns false.
    static func forEach(_ query: Bytes, _ body: (Bytes, Bytes?) -> Bool) {
        guard query.isASCII else {
            // `split` cuts at Characters; in ASCII text every '&' and '=' is one, elsewhere ask it.
            let text = String(decoding: query, as: UTF8.self)
            let u = text.utf8
            func offset(_ i: String.Index) -> Int { u.distance(from: u.startIndex, to: i) }
            for item in RawQueryItem.split(text) {
                let name = query.slice(offset(item.name.startIndex)..<offset(item.name.endIndex))
                let value = item.value.map { query.slice(offset($0.startIndex)..<offset($0.endIndex)) }
                if !body(name, value) { return }
            }
            return
        }
        var start = 0
        while start <= query.count {
            let end = query.firstIndex(of: UInt8(ascii: "&"), in: start..<query.count) ?? query.count
            if end > start {
                if let eq = query.firstIndex(of: UInt8(ascii: "="), in: start..<end) {
                    if !body(query.slice(start..<eq), query.slice((eq + 1)..<end)) { return }
                } else if !body(query.slice(start..<end), nil) {
                    return
                }
            }
            start = end + 1
        }
    }

    /// ``RawQueryItem/hasName(_:)`` on bytes.
    @inline(__always)
    static func hasName(_ item: Bytes, _ name: String) -> Bool {
        if ByteText.equals(item, name) { return true }
        guard item.contains(UInt8(ascii: "%")) else { return false }
        return PercentEncoding.decode(item) == name
    }
}
