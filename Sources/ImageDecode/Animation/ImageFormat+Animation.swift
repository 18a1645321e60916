extension ImageFormat {
    /// Whether thumbnails in this format keep an animation's frames (imgproxy's `SupportsAnimationSave`: GIF and
    /// WebP); other formats get the first frame.
    public var savesAnimation: Bool { self == .gif || self == .webp }
}
