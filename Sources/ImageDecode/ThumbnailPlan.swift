/// The geometry of one thumbnail, worked out from the header before any pixel is decoded.
/// Sizes are chosen on the upright (oriented) image, then expressed in stored orientation,
/// because resizing happens before the orientation transform.
struct ThumbnailPlan: Equatable {
    /// The whole source scaled, in stored orientation, before cropping.
    var resizedWidth: Int
    var resizedHeight: Int
    /// The part of the resized image that is kept (everything for `contain`).
    var cropX: Int
    var cropY: Int
    var outputWidth: Int
    var outputHeight: Int

    init(info: ImageInfo, request: ThumbnailRequest) {
        let width = Double(info.orientedWidth), height = Double(info.orientedHeight)
        let box = Double(request.size)
        var scale = request.fit == .contain ? min(box / width, box / height) : max(box / width, box / height)
        if !request.allowUpscale { scale = min(scale, 1) }
        // Rounded, never below one pixel (libvips limits the shrink rather than produce 0 px).
        let resized = (max(1, Int((width * scale).rounded())), max(1, Int((height * scale).rounded())))
        let kept = request.fit == .contain ? resized : (min(resized.0, request.size), min(resized.1, request.size))
        let crop = ((resized.0 - kept.0) / 2, (resized.1 - kept.1) / 2)
        if info.orientation.swapsAxes {
            (resizedWidth, resizedHeight) = (resized.1, resized.0)
            (cropX, cropY) = (crop.1, crop.0)
            (outputWidth, outputHeight) = (kept.1, kept.0)
        } else {
            (resizedWidth, resizedHeight) = resized
            (cropX, cropY) = crop
            (outputWidth, outputHeight) = kept
        }
    }

    /// How much the source shrinks on its less-reduced axis; decode-time reduction may
    /// use part of this without dropping below the detail either axis needs.
    func shrink(sourceWidth: Int, sourceHeight: Int) -> Double {
        min(Double(sourceWidth) / Double(resizedWidth), Double(sourceHeight) / Double(resizedHeight))
    }
}
