import HTTPTypes
import Processing

/// imgproxy's client hints (clientfeatures/detector.go), read once per request where it is checked
/// (`ThumbnailChecks`) when `serve --client-hints` is on: the dpr from `Sec-CH-DPR`, else `DPR` (the first that is a
/// number in (0, 8]), the width in device pixels from `Sec-CH-Width`, else `Width` (the first whole number > 0).
/// They are where a processing URL's options start from: the `default` preset and the URL's own `dpr` and `width`
/// override them, as in imgproxy.
struct ClientHints: Sendable, Hashable {
    var dpr: Double?
    /// Device pixels, as the hint gives them.
    var width: Int?

    static let maxDPR = 8.0
    /// The widest width a hint can set (far over any server's `--max-size`).
    static let maxWidth = Int(Int32.max)
    /// The fields read, in imgproxy's order (and `Vary`'s and `Accept-CH`'s value).
    static let fieldList = "Sec-CH-DPR, DPR, Sec-CH-Width, Width"
    private static let dprFields = [HTTPField.Name("Sec-CH-DPR")!, HTTPField.Name("DPR")!]
    private static let widthFields = [HTTPField.Name("Sec-CH-Width")!, HTTPField.Name("Width")!]

    init(dpr: Double? = nil, width: Int? = nil) { (self.dpr, self.width) = (dpr, width) }

    init(_ headers: HTTPFields) {
        dpr = Self.dprFields.lazy.compactMap { headers[$0].flatMap(Double.init) }
            .first { $0 > 0 && $0 <= Self.maxDPR }
        width = Self.widthFields.lazy.compactMap { headers[$0].flatMap { Int($0) } }.first { $0 > 0 }
    }

    var isEmpty: Bool { dpr == nil && width == nil }

    /// The options a processing URL starts from: the dpr, and the width in CSS pixels (device pixels over the dpr,
    /// rounded half away from zero, as imgproxy's imath.Shrink).
    var baseOptions: ProcessingOptions {
        var options = ProcessingOptions()
        if let dpr { options.geometry.dpr = dpr }
        if let width {
            // A dpr just above 0 (`DPR: 1e-300`) makes the quotient too large for an Int (it trapped): capped, the
            // planner then treats it as it treats a URL's `w:2147483647` with that dpr.
            let css = (Double(width) / (dpr ?? 1)).rounded(.toNearestOrAwayFromZero)
            options.geometry.width = Int(min(css, Double(Self.maxWidth)))
        }
        return options
    }

    /// What tells two requests of one path apart in the check's memo.
    var memoSuffix: String { "\n\(dpr.map { String($0) } ?? "")x\(width.map(String.init) ?? "")" }
}
