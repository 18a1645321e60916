/// imgproxy's `blur`: libvips's `gaussblur` at the given sigma (its default mask, cut at a fifth of the peak),
/// edges repeated. A sigma below about 0.55 leaves the image as it is, as in libvips.
enum GaussianBlur {
    static let minAmplitude = 0.2

    static func apply(to image: inout FilterImage, sigma: Double,
                      cancellation: RenderCancellation? = nil) throws(ImageDecodeError) {
        let weights = GaussianKernel.libvips(sigma: sigma, minAmplitude: minAmplitude)
        try GaussianKernel.blur(&image.values, width: image.width, height: image.height, channels: image.channels,
                                weights: weights, cancellation: cancellation)
    }
}
