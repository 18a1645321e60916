import CJpegPngGlue

/// A LittleCMS transform from an embedded profile to sRGB, owned by one decode (not shared across threads).
final class ColorTransform {
    private let handle: OpaquePointer

    /// Nil when LittleCMS refuses the profile; the caller then keeps the stored values.
    init?(profile: ColorProfile, layout: tc_pixel_layout) {
        var message = [CChar](repeating: 0, count: Int(TC_MESSAGE_CAPACITY))
        guard let handle = profile.bytes.withUnsafeBufferPointer({
            tc_icc_create($0.baseAddress, $0.count, layout, &message)
        }) else { return nil }
        self.handle = handle
    }

    deinit { tc_icc_destroy(handle) }

    /// Converts `count` pixels from `source` into `target` (3 or 4 bytes per pixel out, as the layout says).
    func convert(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
        tc_icc_apply(handle, source, target, count)
    }

    /// Converts an RGB or RGBA image in place.
    func convert(_ image: inout PixelBuffer) {
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            convert(base, into: base, count: count)
        }
    }
}
