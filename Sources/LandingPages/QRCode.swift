import CQRencode

/// A QR code (libqrencode, error-correction level M, 8-bit mode) and its SVG rendering.
public struct QRCode: Sendable, Equatable {
    /// Modules per side (21 for version 1, +4 per version).
    public let width: Int
    /// Row-major, `true` = dark.
    public let modules: [Bool]
    /// Light modules around the symbol in the SVG (the standard asks for 4).
    public static let quietZone = 4

    /// nil when libqrencode cannot encode the text (empty, NUL, or too long for version 40).
    public init?(_ text: String) {
        guard !text.isEmpty, !text.utf8.contains(0) else { return nil }
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        var modules = [Bool](repeating: false, count: width * width)
        for i in 0..<(width * width) { modules[i] = code.pointee.data[i] & 1 == 1 }
        self.width = width
        self.modules = modules
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The SVG path of the dark modules: one `M x y h n v1 h-n z` per horizontal run.
    public var svgPath: String {
        var d = ""
        let q = Self.quietZone
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else { x += 1; continue }
                var run = 1
                while x + run < width, isDark(x: x + run, y: y) { run += 1 }
                d += "M\(x + q) \(y + q)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return d
    }

    /// A standalone inline `<svg>`: dark modules on a white square, whatever the page's colours.
    /// `label` is the accessible name (escaped).
    public func svg(label: String, pixelsPerModule: Int = 4) -> TrustedHTML {
        let side = width + 2 * Self.quietZone
        let px = side * pixelsPerModule
        let html = "<svg class=\"qr\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(px)\" height=\"\(px)\" role=\"img\" aria-label=\"\(HTMLEscaping.attribute(label))\" shape-rendering=\"crispEdges\"><rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(svgPath)\"/></svg>"
        return TrustedHTML(uncheckedHTML: html)
    }
}
