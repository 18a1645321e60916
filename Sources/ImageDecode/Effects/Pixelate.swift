/// imgproxy's `pixelate`: the image cut into `size × size` blocks from the top-left corner, each filled with its
/// mean. Blocks cut short by the right and bottom edges average as libvips's do there: the image is first
/// extended to whole blocks by repeating its edge pixels, so the edge counts once per repeat.
enum Pixelate {
    static func apply(to image: inout FilterImage, size requested: Int,
                      cancellation: RenderCancellation? = nil) throws(ImageDecodeError) {
        let size = min(requested, min(image.width, image.height))
        guard size > 1 else { return }
        let (width, height, channels) = (image.width, image.height, image.channels)
        var sums = [Float](repeating: 0, count: channels)
        let area = Float(size * size)
        for blockY in stride(from: 0, to: height, by: size) {
            try cancellation.check()
            for blockX in stride(from: 0, to: width, by: size) {
                for c in 0..<channels { sums[c] = 0 }
                for y in blockY..<(blockY + size) {
                    let row = min(y, height - 1) * width
                    for x in blockX..<(blockX + size) {
                        let base = (row + min(x, width - 1)) * channels
                        for c in 0..<channels { sums[c] += image.values[base + c] }
                    }
                }
                for y in blockY..<min(blockY + size, height) {
                    for x in blockX..<min(blockX + size, width) {
                        let base = (y * width + x) * channels
                        for c in 0..<channels { image.values[base + c] = sums[c] / area }
                    }
                }
            }
        }
    }
}
