import CSVGGlue

/// One SVG parsed by librsvg: the handle that holds its whole tree, and its natural size. Parsing is the costly part
/// of an SVG thumbnail (a 1 MB drawing takes longer to parse than to draw at 256 pixels), and the handle draws any
/// number of times, so one document serves every `SVGDecoder` of a request (the probe, the memory estimate, the
/// render, a trim scan: `OpenedImage`). It holds nothing of the bytes it was parsed from. Used from one thread at a
/// time: its decoders are (`OpenedImage` serialises them).
final class SVGDocument {
    let handle: OpaquePointer
    /// The natural size in pixels at 72 DPI (`tc_svg_header`), before any fitting to a pixel limit.
    let naturalWidth: Double
    let naturalHeight: Double
    /// The document's size in bytes: librsvg's tree is a few times that (`SVGDecoder.workingMemory`).
    let inputBytes: Int

    /// Parses `bytes` (only read here) within the text budget and libxml2's limits.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodeError) {
        try SVGTextBudget.check(bytes)
        let (handle, header) = try DecoderGlue.open(bytes, empty: tc_svg_header(), create: tc_svg_decoder_create,
                                                    read: tc_svg_read_header, message: tc_svg_message,
                                                    destroy: tc_svg_decoder_destroy)
        self.handle = handle
        (naturalWidth, naturalHeight) = (header.width, header.height)
        inputBytes = bytes.count
    }

    deinit { tc_svg_decoder_destroy(handle) }

    /// Documents parsed so far on the calling thread (the glue's count): tests check a thumbnail parses its SVG once.
    static var parsesOnThisThread: Int { Int(tc_svg_parses_on_this_thread()) }
}
