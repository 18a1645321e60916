import CSVGGlue
import CJpegPngGlue

/// Renders an SVG through librsvg at the size the plan needs: the header's size is the document's natural size
/// (libvips' rule, so imgproxy's: absolute width and height at 72 DPI, else the viewBox, else the size of what is drawn),
/// and `start(shrink:)` rasterises the whole document straight at that size divided by `shrink`, so a huge viewBox
/// thumbnailed to 300 pixels costs 300 pixels; a `shrink` below 1 draws it enlarged (`drawsAtAnyScale`: imgproxy
/// enlarges a vector whatever `enlarge` says, drawn at that size by libvips). A document declaring more pixels than
/// `maxPixels` is not refused but scaled down to fit them (imgproxy's `vectorGuardScale`), and no enlarged drawing
/// exceeds them either (the resizer enlarges the rest): the pixel limit bounds what is rasterised.
/// Nothing outside the bytes is read: no base URI (librsvg loads no file and no URL, only `data:`), libxml2's
/// limits on (`RSVG_HANDLE_FLAG_UNLIMITED` off). The parsed document (`SVGDocument`) is shared by every decoder made
/// from it under another pixel limit (`reopened(maxPixels:)`), so a request parses its SVG once (`OpenedImage`).
final class SVGDecoder: RowDecoder {
    /// libxml2 refuses text nodes above 10 MB without its huge-document flag; the DOM librsvg builds is a few times
    /// the text. Per input byte, in the working-memory estimate.
    static let treeBytesPerInputByte = 8

    let info: ImageInfo
    var rowProfile: ColorProfile? { nil }
    /// The natural size divided by `info`'s: above 1 when the document was scaled down to fit the pixel limit.
    let guardShrink: Double
    private let document: SVGDocument
    /// The least `shrink` draws: the enlargement that reaches `maxPixels`.
    private let leastShrink: Double
    private let maxPixels: Int
    private var output = (width: 0, height: 0)

    /// Parses `bytes` (read only here) into librsvg's tree and works out the natural size.
    convenience init(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws(ImageDecodeError) {
        self.init(try SVGDocument(bytes), maxPixels: maxPixels)
    }

    /// A decoder of a parsed document, its size fitted to `maxPixels`.
    init(_ document: SVGDocument, maxPixels: Int) {
        self.document = document
        self.maxPixels = maxPixels
        let declared = document.naturalWidth * document.naturalHeight
        guardShrink = declared > Double(maxPixels) ? (declared / Double(max(1, maxPixels))).squareRoot() : 1
        // libvips rounds half up; at least a pixel each way.
        let width = max(1, Int((document.naturalWidth / guardShrink + 0.5).rounded(.down)))
        let height = max(1, Int((document.naturalHeight / guardShrink + 0.5).rounded(.down)))
        info = ImageInfo(format: .svg, width: width, height: height, hasAlpha: true)
        // Capped at 2^40 pixels whatever `maxPixels` says (`.max` for a probe), so a drawn size's product never
        // overflows.
        leastShrink = min(1, (Double(width * height) / Double(max(1, min(maxPixels, 1 << 40)))).squareRoot())
    }

    /// The same parse, not the bytes again: librsvg's handle draws any number of times and holds no pointer into them.
    func reopened(maxPixels: Int) -> (any RowDecoder)? {
        SVGDecoder(document, maxPixels: maxPixels)
    }

    var drawsAtAnyScale: Bool { true }

    /// The size `start(shrink:)` renders at: the whole document, reduced (enlarged below 1) on both axes by
    /// `shrink`, never beyond `maxPixels`.
    func renderedSize(shrink: Double) -> (width: Int, height: Int) {
        let shrink = shrink.isFinite ? max(leastShrink, shrink) : 1
        var size = (width: max(1, Int((Double(info.width) / shrink).rounded())),
                    height: max(1, Int((Double(info.height) / shrink).rounded())))
        // Rounding up may pass the limit by a row or column: drop it.
        while size.width * size.height > maxPixels, size.width > info.width || size.height > info.height {
            if size.width >= size.height { size.width -= 1 } else { size.height -= 1 }
        }
        return size
    }

    /// The RGBA frame, cairo's intermediate surfaces (groups with opacity, masks and filters each draw into one
    /// the size of the frame at most; two at a time is the common case), and librsvg's tree.
    func workingMemory(shrink: Double) -> Int {
        let (width, height) = renderedSize(shrink: shrink)
        return width * height * 4 * 3 + document.inputBytes * Self.treeBytesPerInputByte
    }

    func start(shrink: Double, convertToSRGB: Bool) throws(ImageDecodeError) -> (width: Int, height: Int, channels: Int) {
        output = renderedSize(shrink: shrink)
        return (output.width, output.height, 4)
    }

    /// librsvg draws the whole document in one call; the rows are then handed out in order.
    func readRows(_ consume: (UnsafeBufferPointer<UInt8>) throws(ImageDecodeError) -> Void) throws(ImageDecodeError) {
        try DecoderGlue.decodeWhole(height: output.height, stride: output.width * 4, consume, decode: {
            tc_svg_render(document.handle, Int32(output.width), Int32(output.height), $0, output.width * 4)
        }, message: { tc_svg_message(document.handle) })
    }
}
