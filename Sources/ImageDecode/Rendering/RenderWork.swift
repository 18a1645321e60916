/// The arithmetic a render's filters and detectors will do, estimated from the plan alone (so from the source's
/// header, before any pixel is decoded), in operations: one multiply-add on one channel of one pixel, or its
/// equivalent. Decoding and resizing are bounded by the pixel and memory limits already; these grow with an
/// option's argument too (a blur's mask widens with its sigma), so `bl:100` on a large result cost 12–17 s of CPU
/// before `RenderLimits.maxEffectWork` refused it.
package struct RenderWork: Sendable, Equatable {
    package var blur = 0
    package var sharpen = 0
    package var pixelate = 0
    /// A smart or entropy gravity's search of the scaled image.
    package var detection = 0

    /// Per pixel of the sharpened image besides its mask: lightness there and back (cube roots and powers), each
    /// worth tens of multiply-adds (measured against the mask's loop: docs/benchmarks.md).
    package static let sharpenPerPixel = 150
    /// Per pixel searched by a detector: a box average, colour scores (a cube root), an entropy histogram.
    package static let detectionPerPixel = 30

    package var total: Int { blur + sharpen + pixelate + detection }

    /// The option costing the most, by imgproxy's name for it, and that cost.
    package var largest: (option: String, work: Int) {
        [("blur", blur), ("sharpen", sharpen), ("pixelate", pixelate), ("gravity", detection)]
            .max { $0.1 < $1.1 }!
    }

    /// The work `PlanRenderer.render` will do for `plan` and `effects` on an image of `channels` (3, or 4 with alpha).
    package init(plan: ProcessingPlan, effects: RenderEffects, channels: Int) {
        // The filters run on the result's crop, before the canvas (extend, padding) is added.
        let kept = plan.resultCrop.width * plan.resultCrop.height
        if effects.blur > 0 {
            let taps = GaussianKernel.libvips(sigma: effects.blur, minAmplitude: GaussianBlur.minAmplitude).count
            blur = kept * channels * taps * 2  // separable: a pass along rows, one down columns
        }
        if effects.sharpen > 0 {
            let taps = GaussianKernel.libvips(sigma: effects.sharpen, minAmplitude: Sharpen.minAmplitude).count
            sharpen = kept * (taps * 2 + Self.sharpenPerPixel)  // the mask blurs one channel, lightness
        }
        if effects.pixelate > 1 { pixelate = kept * channels * 2 }  // each pixel summed once, written once
        if let detection = plan.detection {
            // The `crop` option's own gravity searches the whole source at the plan's scale; a detecting result
            // gravity then searches the scaled image as well, once the crop is placed (`PlanRenderer.render`).
            let resultSearch = plan.scaledWidth * plan.scaledHeight
            let sourceSearch = PlanRenderer.sourceSearchSize(plan)
            let searched = detection.stage == .sourceCrop
                ? sourceSearch.width * sourceSearch.height + (plan.geometry.gravity.needsDetection ? resultSearch : 0)
                : resultSearch
            self.detection = searched * Self.detectionPerPixel
        }
    }
}
