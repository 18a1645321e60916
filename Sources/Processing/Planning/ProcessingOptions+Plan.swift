/// From a source's size to the result's geometry, refused before any render when it is too large.
extension ProcessingOptions {
    /// `sourceWidth` × `sourceHeight` is the source as the renderer sees it before `rotate`: upright
    /// (EXIF-oriented) when `autoRotate` is on, as stored when off (`plan(for:maxResultSide:)` picks).
    /// `maxResultSide` bounds the final canvas, after dpr, zoom, enlarge, extend and padding.
    /// `trim`: the stored rectangle the source is cut to (`trimmed(_:…)`), whose upright size `sourceWidth` ×
    /// `sourceHeight` then is.
    public func plan(sourceWidth: Int, sourceHeight: Int, maxResultSide: Int,
                     trim: ProcessingPlan.Rect? = nil, vector: Bool = false) throws(ProcessingError) -> ProcessingPlan {
        let plan = ProcessingPlan(sourceWidth: sourceWidth, sourceHeight: sourceHeight, geometry: geometry, trim: trim,
                                  vector: vector)
        guard plan.resultWidth <= maxResultSide, plan.resultHeight <= maxResultSide else {
            throw .resultTooLarge(width: plan.resultWidth, height: plan.resultHeight, limit: maxResultSide)
        }
        // The renderer holds the whole scaled image while a detector searches it (`PlanRenderer.reading`); only
        // min sizes make it larger than the result, up to 2^40 a side, which overflowed the memory estimate.
        if plan.detection?.stage == .resultCrop, plan.scaledWidth > maxResultSide || plan.scaledHeight > maxResultSide {
            throw .scaledTooLarge(width: plan.scaledWidth, height: plan.scaledHeight, limit: maxResultSide)
        }
        return plan
    }

    /// Refuses `plan` before its render when its filters and detectors would do more than `limit` operations
    /// (`RenderWork`), naming the option that costs most: a blur's or sharpen's cost grows with its sigma as well as
    /// the result's size, and a refusal costs nothing where the render would cost seconds.
    package func checkEffectWork(of plan: ProcessingPlan, channels: Int, limit: Int) throws(ProcessingError) {
        let work = RenderWork(plan: plan, effects: renderEffects, channels: channels)
        guard work.total > limit else { return }
        let largest = work.largest
        throw .tooCostly(option: largest.option, work: work.total, limit: limit,
                         width: plan.resultCrop.width, height: plan.resultCrop.height)
    }

    /// The plan for a source whose header has been read, cut to `trim` (stored pixels) when given.
    public func plan(for info: ImageInfo, maxResultSide: Int, trim: ProcessingPlan.Rect? = nil) throws(ProcessingError) -> ProcessingPlan {
        let (width, height) = trim.map { ($0.width, $0.height) } ?? (info.width, info.height)
        let swaps = autoRotate && info.orientation.swapsAxes
        return try plan(sourceWidth: swaps ? height : width, sourceHeight: swaps ? width : height, maxResultSide: maxResultSide,
                        trim: trim, vector: info.format.isVector)
    }

}
