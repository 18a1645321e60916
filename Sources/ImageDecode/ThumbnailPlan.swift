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

    /// `contain` is imgproxy's `fit` into a size × size box, `cover` its `fill` with centre gravity: one
    /// planner (`ProcessingPlan`) for the short grammar and processing URLs alike.
    init(info: ImageInfo, request: ThumbnailRequest) {
        var geometry = GeometryOptions()
        geometry.resizingType = request.fit == .contain ? .fit : .fill
        (geometry.width, geometry.height) = (request.size, request.size)
        geometry.enlarge = request.allowUpscale
        let plan = ProcessingPlan(sourceWidth: info.orientedWidth, sourceHeight: info.orientedHeight, geometry: geometry)
        let resized = (plan.scaledWidth, plan.scaledHeight)
        let crop = (plan.resultCrop.x, plan.resultCrop.y)
        let kept = (plan.resultCrop.width, plan.resultCrop.height)
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
