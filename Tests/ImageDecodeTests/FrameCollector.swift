import Foundation
@testable import ImageDecode

/// An `AnimationWriter` that keeps every frame it is given, so a test can look at what the renderer sent (the real
/// writers keep at most three).
final class FrameCollector: AnimationWriter {
    private(set) var frames = [PixelBuffer]()
    private(set) var delays = [Int]()

    func add(_ frame: PixelBuffer, delay: Int) throws(ImageDecodeError) {
        frames.append(frame)
        delays.append(delay)
    }

    func finish(loopCount: Int?) throws(ImageDecodeError) -> Data { Data() }

    func workingMemory(width: Int, height: Int, frames: Int) -> Int { width * height * 4 * frames }
}
