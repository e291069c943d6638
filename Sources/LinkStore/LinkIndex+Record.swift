// One short link as bytes in the index: the key (site number, code) first so a probe compares
// without decoding, then the times and flags, then the strings. Records live in 4 MiB chunks, so
// a growing index never copies (or doubles) what it already holds; a position is the chunk
// number (10 bits) and the offset in it (22 bits).
//
//   u16 site · u8 flags (forced redirect, disabled, has expiry) · u8 code length · code
//   i64 created · i64 updated · [i64 expires] · u8 mask of the optional strings present
//   target (LEB128 length + UTF-8) · each present optional string, in `optional(_:of:)` order
//   [the FDL parameters (flag 8): u8 count, then each of `FDLParameters.values`: tag 0 null,
//    1 integer (i64), 2 text (LEB128 length + UTF-8)]
//
// Adding a stored field to `ShortLink` means adding it here (DatabaseTests' field-count check
// says so), or the server would serve links without it.

import Foundation

struct RecordChunks {
    static let chunkBits = 22
    static let chunkSize = 1 << chunkBits
    static let maxChunks = 1 << (32 - chunkBits)

    /// The number of `ShortLink` stored properties the record holds (checked by a test).
    static let encodedFieldCount = 15

    private(set) var chunks: [[UInt8]] = []

    var bytes: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// The optional strings, in record order (bit i of the mask: field i).
    static let optionalFieldCount = 6

    @inline(__always)
    static func optional(_ i: Int, of link: borrowing ShortLink) -> String? {
        switch i {
        case 0: link.previewTitle
        case 1: link.previewDescription
        case 2: link.previewImage
        case 3: link.iosFallback
        case 4: link.androidFallback
        default: link.desktopFallback
        }
    }

    @inline(__always)
    static func setOptional(_ i: Int, of link: inout ShortLink, to value: String) {
        switch i {
        case 0: link.previewTitle = value
        case 1: link.previewDescription = value
        case 2: link.previewImage = value
        case 3: link.iosFallback = value
        case 4: link.androidFallback = value
        default: link.desktopFallback = value
        }
    }

    /// Appends `link`; its position, or nil when it does not fit a chunk (or the index is full).
    mutating func append(_ link: borrowing ShortLink, site: UInt16) -> UInt32? {
        let codeCount = link.code.utf8.count
        guard codeCount <= 255 else { return nil }
        let targetCount = link.target.utf8.count
        var size = 4 + codeCount + 16 + (link.expiresAt == nil ? 0 : 8) + 1 + Self.varintSize(targetCount) + targetCount
        var mask: UInt8 = 0
        for i in 0..<Self.optionalFieldCount {
            if let s = Self.optional(i, of: link) {
                mask |= 1 << i
                size += Self.varintSize(s.utf8.count) + s.utf8.count
            }
        }
        let fdl = link.fdl?.values
        if let fdl {
            size += 1
            for v in fdl {
                switch v {
                case .null: size += 1
                case .integer: size += 9
                case let .text(t): size += 1 + Self.varintSize(t.utf8.count) + t.utf8.count
                }
            }
        }
        guard size <= Self.chunkSize else { return nil }
        if chunks.isEmpty || chunks[chunks.count - 1].count + size > Self.chunkSize {
            guard chunks.count < Self.maxChunks else { return nil }
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        let c = chunks.count - 1
        let position = UInt32(c << Self.chunkBits | chunks[c].count)
        var flags: UInt8 = 0
        if link.forcedRedirect { flags |= 1 }
        if link.disabled { flags |= 2 }
        if link.expiresAt != nil { flags |= 4 }
        if fdl != nil { flags |= 8 }
        Self.write(into: &chunks[c]) { out in
            out.append(UInt8(site & 0xFF))
            out.append(UInt8(site >> 8))
            out.append(flags)
            out.append(UInt8(codeCount))
            out.append(contentsOf: link.code.utf8)
            Self.appendInt64(Int64(link.createdAt.timeIntervalSince1970), to: &out)
            Self.appendInt64(Int64(link.updatedAt.timeIntervalSince1970), to: &out)
            if let e = link.expiresAt { Self.appendInt64(Int64(e.timeIntervalSince1970), to: &out) }
            out.append(mask)
            Self.appendString(link.target, to: &out)
            for i in 0..<Self.optionalFieldCount {
                if let s = Self.optional(i, of: link) { Self.appendString(s, to: &out) }
            }
            if let fdl {
                out.append(UInt8(fdl.count))
                for v in fdl {
                    switch v {
                    case .null: out.append(0)
                    case let .integer(n):
                        out.append(1)
                        Self.appendInt64(n, to: &out)
                    case let .text(t):
                        out.append(2)
                        Self.appendString(t, to: &out)
                    }
                }
            }
        }
        return position
    }

    @inline(__always)
    private static func write(into chunk: inout [UInt8], _ body: (inout [UInt8]) -> Void) { body(&chunk) }

    /// Gives back the unused end of the last chunk.
    mutating func shrinkLast() {
        guard let last = chunks.last, last.capacity > last.count + 4096 else { return }
        var copy: [UInt8] = []
        copy.reserveCapacity(last.count)
        copy.append(contentsOf: last)
        chunks[chunks.count - 1] = copy
    }

    // MARK: Reading

    private func withRecord<T>(_ position: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let chunk = Int(position >> UInt32(Self.chunkBits))
        let offset = Int(position & UInt32(Self.chunkSize - 1))
        return chunks[chunk].withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[offset...])) }
    }

    func site(at position: UInt32) -> UInt16 {
        withRecord(position) { UInt16($0[0]) | UInt16($0[1]) << 8 }
    }

    func hash(at position: UInt32) -> UInt64 {
        withRecord(position) { r in Self.hash(site: UInt16(r[0]) | UInt16(r[1]) << 8, code: UnsafeBufferPointer(rebasing: r[4..<(4 + Int(r[3]))])) }
    }

    func matches(at position: UInt32, site: UInt16, code: UnsafeBufferPointer<UInt8>) -> Bool {
        withRecord(position) { r in
            guard UInt16(r[0]) | UInt16(r[1]) << 8 == site, Int(r[3]) == code.count else { return false }
            for i in 0..<code.count where r[4 + i] != code[i] { return false }
            return true
        }
    }

    func sameKey(_ a: UInt32, _ b: UInt32) -> Bool {
        withRecord(b) { r in matches(at: a, site: UInt16(r[0]) | UInt16(r[1]) << 8, code: UnsafeBufferPointer(rebasing: r[4..<(4 + Int(r[3]))])) }
    }

    /// The link at `position` (its site's name given: the record holds its number).
    func link(at position: UInt32, site: String) -> ShortLink {
        withRecord(position) { r in
            var i = 4 + Int(r[3])
            let flags = r[2]
            let code = String(decoding: UnsafeBufferPointer(rebasing: r[4..<i]), as: UTF8.self)
            let created = Self.readInt64(r, &i)
            let updated = Self.readInt64(r, &i)
            let expires = flags & 4 != 0 ? Self.readInt64(r, &i) : nil
            let mask = r[i]
            i += 1
            let target = Self.readString(r, &i)
            var link = ShortLink(
                code: code, site: site, target: target, forcedRedirect: flags & 1 != 0,
                expiresAt: expires.map { Date(timeIntervalSince1970: TimeInterval($0)) }, disabled: flags & 2 != 0,
                createdAt: Date(timeIntervalSince1970: TimeInterval(created)), updatedAt: Date(timeIntervalSince1970: TimeInterval(updated)))
            for bit in 0..<Self.optionalFieldCount where mask & (1 << bit) != 0 {
                Self.setOptional(bit, of: &link, to: Self.readString(r, &i))
            }
            if flags & 8 != 0 {
                let n = Int(r[i])
                i += 1
                var values: [SQLValue] = []
                values.reserveCapacity(n)
                for _ in 0..<n {
                    let tag = r[i]
                    i += 1
                    switch tag {
                    case 1: values.append(.integer(Self.readInt64(r, &i)))
                    case 2: values.append(.text(Self.readString(r, &i)))
                    default: values.append(.null)
                    }
                }
                link.fdl = FDLParameters.read(SQLRow(source: .values(values)), from: 0)
            }
            return link
        }
    }

    // MARK: Bytes

    /// FNV-1a over the site number and the code.
    static func hash(site: UInt16, code: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in [UInt8(site & 0xFF), UInt8(site >> 8)] { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        for b in code { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h ^ (h >> 29)
    }

    static func varintSize(_ n: Int) -> Int {
        var n = n
        var size = 1
        while n >= 0x80 { n >>= 7; size += 1 }
        return size
    }

    static func appendString(_ s: String, to out: inout [UInt8]) {
        var n = s.utf8.count
        while n >= 0x80 {
            out.append(UInt8(n & 0x7F) | 0x80)
            n >>= 7
        }
        out.append(UInt8(n))
        out.append(contentsOf: s.utf8)
    }

    static func readString(_ r: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> String {
        var n = 0
        var shift = 0
        while true {
            let b = r[i]
            i += 1
            n |= Int(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
        }
        defer { i += n }
        return String(decoding: UnsafeBufferPointer(rebasing: r[i..<(i + n)]), as: UTF8.self)
    }

    static func appendInt64(_ v: Int64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    static func readInt64(_ r: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Int64 {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(r[i + k]) << (8 * k) }
        i += 8
        return Int64(bitPattern: v)
    }
}
