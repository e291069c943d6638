import CRsvg
import Foundation

/// The generated preview image: `PreviewCard` → SVG (text laid out here) → PNG (librsvg, with
/// Pango and fontconfig choosing glyphs: DejaVu Sans and Noto Sans, Noto Sans CJK, Arabic and
/// Hebrew from Debian's font packages, so any title renders).
public enum PreviewCardRenderer {
    /// The title's font size and the most lines it may take (then an ellipsis).
    static let titleSize = 64.0
    static let titleLines = 3
    static let titleWidth = 1040.0
    static let fonts = "DejaVu Sans, Noto Sans, Noto Sans CJK JP, Noto Sans Arabic, Noto Sans Hebrew, sans-serif"

    /// The card's SVG. `icon`: the icon file's bytes and media type (a local file under
    /// public/; remote icons are not fetched, and the card goes without).
    public static func svg(_ card: PreviewCard, icon: (bytes: [UInt8], type: String)?) -> String {
        let accent = card.themeColor.flatMap(RGBColor.init(hex:)) ?? RGBColor(hex: "#3b4cca")!
        let fg = accent.textOn.description
        var s = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="1200" height="630" viewBox="0 0 1200 630">"#
        s += #"<rect width="1200" height="630" fill="\#(accent)"/>"#
        s += #"<rect y="600" width="1200" height="30" fill="\#(fg)" fill-opacity="0.18"/>"#
        var nameX = 80
        if let icon {
            let data = "data:\(icon.type);base64," + Data(icon.bytes).base64EncodedString()
            s += #"<rect x="76" y="68" width="120" height="120" rx="28" fill="\#(fg)" fill-opacity="0.25"/>"#
            s += #"<image x="80" y="72" width="112" height="112" xlink:href="\#(data)"/>"#
            nameX = 228
        }
        s += #"<text x="\#(nameX)" y="143" font-family="\#(fonts)" font-size="44" font-weight="bold" fill="\#(fg)">\#(xml(card.appName))</text>"#
        let lines = wrap(card.title)
        let rtl = card.title.unicodeScalars.contains { isRTL($0) }
        let x = rtl ? 1120 : 80
        s += #"<text font-family="\#(fonts)" font-size="\#(Int(titleSize))" font-weight="bold" fill="\#(fg)"\#(rtl ? #" direction="rtl""# : "")>"#
        for (i, line) in lines.enumerated() {
            s += #"<tspan x="\#(x)" y="\#(300 + i * 78)">\#(xml(line))</tspan>"#
        }
        s += "</text>"
        s += #"<text x="80" y="560" font-family="\#(fonts)" font-size="30" fill="\#(fg)" fill-opacity="0.85">\#(xml(displayLink(card.link)))</text>"#
        s += "</svg>"
        return s
    }

    /// `https://host/path?q` → `host/path?q`, cut to 60 characters.
    static func displayLink(_ link: String) -> String {
        var s = Substring(link)
        if let r = s.range(of: "://") { s = s[r.upperBound...] }
        return s.count > 60 ? String(s.prefix(59)) + "…" : String(s)
    }

    /// Right-to-left scripts: Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms.
    static func isRTL(_ u: Unicode.Scalar) -> Bool {
        (0x0590...0x08FF).contains(u.value) || (0xFB1D...0xFDFF).contains(u.value) || (0xFE70...0xFEFF).contains(u.value)
    }

    /// Wide (CJK, full-width, Hangul): one em each, and a line may break between any two.
    static func isWide(_ u: Unicode.Scalar) -> Bool {
        (0x1100...0x11FF).contains(u.value) || (0x2E80...0x9FFF).contains(u.value) || (0xAC00...0xD7AF).contains(u.value)
            || (0xF900...0xFAFF).contains(u.value) || (0xFF00...0xFFEF).contains(u.value) || (0x20000...0x3FFFF).contains(u.value)
    }

    /// Estimated width in em of a run of text (bold DejaVu Sans averages ~0.62 em a letter).
    static func width(_ s: Substring) -> Double {
        s.unicodeScalars.reduce(0) { $0 + (isWide($1) ? 1.0 : $1 == " " ? 0.32 : 0.62) }
    }

    /// The title in at most `titleLines` lines that fit `titleWidth`: broken at spaces, or
    /// anywhere in wide scripts and in words longer than a line; the last line ends in "…" when
    /// text was left out.
    static func wrap(_ title: String) -> [String] {
        let maxEm = titleWidth / titleSize
        var lines: [String] = []
        var current = ""
        // Tokens: words with their trailing space, or single wide characters.
        var tokens: [String] = []
        var word = ""
        for ch in title {
            if ch.unicodeScalars.contains(where: isWide) {
                if !word.isEmpty { tokens.append(word); word = "" }
                tokens.append(String(ch))
            } else if ch == " " || ch == "\n" || ch == "\t" {
                word += " "
                tokens.append(word)
                word = ""
            } else {
                word.append(ch)
            }
        }
        if !word.isEmpty { tokens.append(word) }
        func trimmed(_ s: String) -> String { String(Substring(s).trimmingSuffixSpaces) }
        var truncated = false
        outer: for (index, token) in tokens.enumerated() {
            if width(Substring(trimmed(current + token))) <= maxEm {
                current += token
                continue
            }
            if !current.isEmpty {
                lines.append(trimmed(current))
                current = ""
                if lines.count == titleLines { truncated = true; break }
            }
            var rest = Substring(token)
            while width(Substring(trimmed(String(rest)))) > maxEm {
                // A word longer than a line: cut it where it stops fitting.
                var head = ""
                for ch in rest {
                    if width(Substring(head + String(ch))) > maxEm { break }
                    head.append(ch)
                }
                if head.isEmpty, let first = rest.first { head = String(first) }
                lines.append(head)
                rest = rest.dropFirst(head.count)
                if lines.count == titleLines { truncated = !rest.isEmpty || index < tokens.count - 1; break outer }
            }
            current = String(rest)
        }
        if !truncated, !current.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(trimmed(current)) }
        if truncated, var last = lines.last {
            while !last.isEmpty, width(Substring(last + "…")) > maxEm { last.removeLast() }
            lines[lines.count - 1] = trimmed(last) + "…"
        }
        return lines.isEmpty ? [""] : lines
    }

    /// XML text: HTML's five references, and C0 controls (which XML 1.0 cannot carry) as spaces.
    static func xml(_ s: String) -> String {
        HTMLEscaping.text(String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 ? " " : $0 })))
    }

    // MARK: PNG

    final class Sink {
        var bytes: [UInt8] = []
    }

    static let writePNG: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }

    /// The SVG drawn at 1200×630 and encoded as PNG; nil (with librsvg's message) on failure.
    public static func png(svg: String) -> Result<[UInt8], PreviewCardError> {
        if let why = linkwell_rsvg_load_error() {
            return .failure(PreviewCardError(
                "librsvg cannot be loaded (\(String(cString: why))): preview cards need it. Install it: apt-get install -y librsvg2-2 fonts-dejavu-core (the container image has both), or give the route a preview image."))
        }
        var error: UnsafeMutablePointer<GError>?
        let source = Array(svg.utf8)
        let handle = source.withUnsafeBufferPointer { lw_rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let handle else { return .failure(PreviewCardError(take(&error) ?? "librsvg cannot read the card's SVG")) }
        defer { lw_g_object_unref(handle) }
        guard let surface = lw_cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(PreviewCard.width), Int32(PreviewCard.height)) else {
            return .failure(PreviewCardError("cairo cannot make a surface"))
        }
        defer { lw_cairo_surface_destroy(surface) }
        guard let cr = lw_cairo_create(surface) else { return .failure(PreviewCardError("cairo cannot draw")) }
        defer { lw_cairo_destroy(cr) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(PreviewCard.width), height: Double(PreviewCard.height))
        guard lw_rsvg_handle_render_document(handle, cr, &viewport, &error) != 0 else {
            return .failure(PreviewCardError(take(&error) ?? "librsvg cannot draw the card"))
        }
        lw_cairo_surface_flush(surface)
        let sink = Sink()
        let status = lw_cairo_surface_write_to_png_stream(surface, writePNG, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { return .failure(PreviewCardError("cairo cannot encode the PNG (status \(status.rawValue))")) }
        return .success(sink.bytes)
    }

    static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String? {
        guard let e = error else { return nil }
        defer { lw_g_error_free(e); error = nil }
        return e.pointee.message.map { String(cString: $0) }
    }
}

public struct PreviewCardError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}

extension Substring {
    var trimmingSuffixSpaces: Substring {
        var s = self
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
