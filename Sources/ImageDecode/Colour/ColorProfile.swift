import CJpegPngGlue

/// An ICC profile embedded in a source image (JPEG APP2 chunks or PNG iCCP).
struct ColorProfile: Sendable {
    enum Space: Sendable { case rgb, cmyk, gray, other }

    let bytes: [UInt8]
    let space: Space
    /// The profile's own description, e.g. "Adobe RGB (1998)".
    let name: String

    /// Nil when LittleCMS cannot parse the bytes: such a profile is ignored, never fatal.
    init?(_ bytes: [UInt8]) {
        var info = tc_icc_info()
        guard !bytes.isEmpty, bytes.withUnsafeBufferPointer({ tc_icc_inspect($0.baseAddress, $0.count, &info) }) != 0 else {
            return nil
        }
        self.bytes = bytes
        space = switch info.color_space {
        case TC_ICC_SPACE_RGB: .rgb
        case TC_ICC_SPACE_CMYK: .cmyk
        case TC_ICC_SPACE_GRAY: .gray
        default: .other
        }
        name = withUnsafeBytes(of: info.description) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Profiles that name sRGB describe what an untagged output already means, so converting is wasted work.
    var isSRGB: Bool { space == .rgb && name.contains("sRGB") }

    /// The conversion of RGB or RGBA pixels to sRGB; nil when none is needed or possible.
    func rgbTransform(channels: Int) -> ColorTransform? {
        guard space == .rgb, !isSRGB else { return nil }
        return ColorTransform(profile: self, layout: channels == 4 ? TC_PIXELS_RGBA : TC_PIXELS_RGB)
    }

    /// The conversion of CMYK pixels (inverted, as Adobe writes them, or not) to sRGB RGB.
    func cmykTransform(inverted: Bool) -> ColorTransform? {
        guard space == .cmyk else { return nil }
        return ColorTransform(profile: self, layout: inverted ? TC_PIXELS_CMYK_INVERTED : TC_PIXELS_CMYK)
    }
}
