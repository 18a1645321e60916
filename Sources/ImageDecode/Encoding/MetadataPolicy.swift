/// What an output keeps of its source's metadata: imgproxy's `strip_metadata`, `keep_copyright` and
/// `strip_color_profile` (and its defaults, `IMGPROXY_STRIP_METADATA`, `_KEEP_COPYRIGHT`, `_STRIP_COLOR_PROFILE`:
/// all on). The one place their meaning lives; every encoder writes what `output(for:autoRotated:)` gives it.
public struct MetadataPolicy: Sendable, Hashable {
    /// Off: the source's EXIF and XMP are written into the output (EXIF orientation reset to 1 once applied).
    public var stripMetadata: Bool
    /// With `stripMetadata`: keep EXIF IFD0 Copyright and Artist, as libvips' strip does for imgproxy.
    public var keepCopyright: Bool
    /// Off: an RGB or grey source's ICC profile is written into the output, and its pixels are left in that profile's
    /// space rather than converted to sRGB (imgproxy keeps the profile without exporting). A CMYK source is still
    /// converted to sRGB and its profile dropped: no output here is CMYK.
    public var stripColorProfile: Bool

    public init(stripMetadata: Bool = true, keepCopyright: Bool = true, stripColorProfile: Bool = true) {
        (self.stripMetadata, self.keepCopyright, self.stripColorProfile) = (stripMetadata, keepCopyright, stripColorProfile)
    }

    /// Whether the source's profile goes into the output, its pixels then rendered without converting to sRGB.
    public func keepsProfile(of source: ImageInfo) -> Bool {
        guard !stripColorProfile, let profile = source.metadata.colorProfile else { return false }
        return profile.space == .rgb || profile.space == .gray
    }

    /// Whether an output under this policy carries no more of the source than a ladder thumbnail made under the
    /// defaults does (EXIF copyright at most, sRGB): only then may a stored thumbnail stand in for the original.
    public var keepsOnlyWhatThumbnailsKeep: Bool { stripMetadata && stripColorProfile }

    /// What the output of `source` writes. `autoRotated`: the pixels were turned upright, so an EXIF orientation
    /// written again must say so (1), or viewers would turn them a second time.
    func output(for source: ImageInfo, autoRotated: Bool) -> ImageMetadata {
        let metadata = source.metadata
        var kept = ImageMetadata()
        if !stripMetadata {
            kept.exif = metadata.exif.map { autoRotated ? EXIF.resettingOrientation($0) : $0 }
            kept.xmp = metadata.xmp
        } else if keepCopyright {
            kept.exif = metadata.exif.flatMap(EXIF.copyrightOnly)
        }
        if keepsProfile(of: source) { kept.colorProfile = metadata.colorProfile }
        return kept
    }
}
