import CJpegPngGlue

/// An ICC profile embedded in a source image (JPEG APP2 chunks or PNG iCCP).
struct ColorProfile: Sendable {
    enum Space: Sendable { case rgb, cmyk, gray, other }

    let bytes: [UInt8]
    let space: Space
    /// The profile's own description, e.g. "Adobe RGB (1998)".
    let name: String
    /// For an RGB matrix-shaper profile, a bound on how far converting it to sRGB could move an 8-bit value, in
    /// levels before rounding, from its colourants and curves (`tc_icc_inspect`); infinite for any other profile.
    let sRGBDeviation: Double

    /// Up to this bound a profile is taken as sRGB. Below 1.5 levels no value can round more than 1 away from where
    /// it was; the rest is margin for LittleCMS's own 16-bit arithmetic. The standard IEC 61966-2.1 profile and
    /// sRGB2014 are 0.63 from LittleCMS's sRGB, the 524-byte compact "c2" 1.02, Adobe RGB (1998) over 1,000.
    /// `ColorProfileTests` runs the real transform of the committed profiles on this side of it: none moves a
    /// value by more than 1.
    static let sRGBTolerance = 1.25

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
        sRGBDeviation = info.srgb_deviation
    }

    /// Profiles whose colourants and curves are sRGB's, whatever they are called (the compact "c2" of many web
    /// photos, sRGB2014, the IEC profile), describe what an untagged output already means: converting would move no
    /// value by more than 1 and cost a full pass over the pixels (42 % of a full-size render, docs/benchmarks.md).
    var isSRGB: Bool { space == .rgb && sRGBDeviation <= Self.sRGBTolerance }

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
