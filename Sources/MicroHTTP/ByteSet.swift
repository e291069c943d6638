/// A set of bytes as a 256-entry table made once (never freed): one load per byte tested, where
/// a `switch` over ranges or a closure per byte costs several comparisons and a call.
public struct ByteSet: @unchecked Sendable {
    // @unchecked: the table is written once, in init, and only read afterwards.
    /// 1 at index `b` when `b` is in the set.
    @usableFromInline let table: UnsafePointer<UInt8>

    /// The bytes for which `test` is true.
    public init(_ test: (UInt8) -> Bool) {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for b in 0...255 { table[b] = test(UInt8(b)) ? 1 : 0 }
        self.table = UnsafePointer(table)
    }

    /// True when `b` is in the set.
    @inlinable @inline(__always)
    public func contains(_ b: UInt8) -> Bool {
        table[Int(b)] != 0
    }
}
