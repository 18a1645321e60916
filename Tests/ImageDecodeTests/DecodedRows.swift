import Foundation
@testable import ImageDecode

extension Fixtures {
    /// Every row a decoder delivers at `shrink`, as an image (no resizing, no profile), `threads` as
    /// `RenderLimits.decodeThreads`.
    static func decodeRows(_ input: EncodedImage, shrink: Double, threads: Int = 1) throws(ImageDecodeError) -> PixelBuffer {
        try ImageDecoder.withDecoder(for: input, maxPixels: 1 << 30, threads: threads) { decoder throws(ImageDecodeError) in
            let started = try decoder.start(shrink: shrink, convertToSRGB: false)
            var pixels = [UInt8]()
            try decoder.readRows { pixels.append(contentsOf: $0) }
            return PixelBuffer(width: started.width, height: started.height, channels: started.channels, pixels: pixels)
        }
    }

    /// `data` written to a new file in the temporary directory; the caller removes it.
    static func temporaryFile(_ data: Data, suffix: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).\(suffix)")
        try data.write(to: url)
        return url.path
    }
}
