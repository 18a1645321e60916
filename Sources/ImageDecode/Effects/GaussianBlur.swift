/// imgproxy's `blur`: libvips's `gaussblur` at the given sigma (its default mask, cut at a fifth of the peak),
/// edges repeated. A sigma below about 0.55 leaves the image as it is, as in libvips.
enum GaussianBlur {
    static func apply(to image: inout FilterImage, sigma: Double) {
        let weights = GaussianKernel.libvips(sigma: sigma, minAmplitude: 0.2)
        GaussianKernel.blur(&image.values, width: image.width, height: image.height, channels: image.channels,
                            weights: weights)
    }
}
