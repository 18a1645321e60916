import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// Smart crop on small synthetic images: the crop goes to detail, skin and saturated colour (attention), keeps
/// the textured side (entropy), stays inside the image for any size, and is what `cover` cuts when asked.
@Suite struct SmartCropTests {
    /// An RGB (or RGBA) image whose pixel at (x, y) is `colour(x, y)`.
    static func image(_ width: Int, _ height: Int, channels: Int = 3, _ colour: (Int, Int) -> [UInt8]) -> PixelBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * channels)
        for y in 0..<height { for x in 0..<width { pixels += colour(x, y) } }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static let grey: [UInt8] = [128, 128, 128]
    /// A black and white checkerboard of `square`-pixel squares. Attention sees the image at 1/32 of its size,
    /// so its squares must be larger than a grid cell to count as edges (finer ones average to grey, as in libvips).
    static func checker(_ x: Int, _ y: Int, square: Int) -> [UInt8] {
        (x / square + y / square) % 2 == 0 ? [255, 255, 255] : [0, 0, 0]
    }

    /// True when the crop at `origin` contains the whole rectangle.
    static func covers(_ origin: (x: Int, y: Int), crop: (Int, Int), _ rect: (x: Int, y: Int, width: Int, height: Int)) -> Bool {
        origin.x <= rect.x && origin.x + crop.0 >= rect.x + rect.width
            && origin.y <= rect.y && origin.y + crop.1 >= rect.y + rect.height
    }

    @Test func attentionFollowsDetailOffCentre() {
        let patch = (x: 290, y: 100, width: 80, height: 80)
        let photo = Self.image(384, 256) { x, y in
            (patch.x..<patch.x + patch.width).contains(x) && (patch.y..<patch.y + patch.height).contains(y)
                ? Self.checker(x, y, square: 20) : Self.grey
        }
        let origin = SmartCrop.attention(in: photo, width: 256, height: 256)
        #expect(Self.covers(origin, crop: (256, 256), patch), "crop at \(origin)")
        // The centred crop (x 64) would cut the patch off: the detector really moved.
        #expect(!Self.covers((64, 0), crop: (256, 256), patch))
    }

    @Test func attentionFollowsSkinOnADarkBackground() {
        // A face-coloured patch low in a tall, nearly black frame (too dark to score anything itself).
        let patch = (x: 80, y: 380, width: 90, height: 90)
        let photo = Self.image(256, 512) { x, y in
            (patch.x..<patch.x + patch.width).contains(x) && (patch.y..<patch.y + patch.height).contains(y)
                ? [224, 172, 140] : [12, 14, 16]
        }
        let origin = SmartCrop.attention(in: photo, width: 200, height: 200)
        #expect(Self.covers(origin, crop: (200, 200), patch), "crop at \(origin)")
    }

    @Test func attentionPrefersSaturatedRedToAGreyOfTheSameLuminance() {
        // Left: saturated red; right: the grey with its luminance; a flat middle. No edges inside either.
        let red: [UInt8] = [220, 30, 60]
        let sameLuminance = UInt8(AttentionMap.xyz(red: 220, green: 30, blue: 60).y.squareRoot() * 25.5)
        let photo = Self.image(600, 200) { x, _ in
            x < 150 ? red : x >= 450 ? [sameLuminance, sameLuminance, sameLuminance] : Self.grey
        }
        let origin = SmartCrop.attention(in: photo, width: 200, height: 200)
        #expect(origin.x < 100, "crop at \(origin)")
    }

    @Test func attentionIgnoresWhatTransparencyHides() {
        // Detail under alpha 0 on the left, the same detail fully opaque on the right.
        let photo = Self.image(384, 128, channels: 4) { x, y in
            let detail = (x / 4 + y / 4) % 2 == 0 ? [UInt8](repeating: 255, count: 3) : [0, 0, 0]
            if x < 96 { return detail + [0] }
            return (x >= 288 ? detail : Self.grey) + [255]
        }
        let origin = SmartCrop.attention(in: photo, width: 128, height: 128)
        #expect(origin.x + 128 > 288, "crop at \(origin)")
    }

    @Test func entropyKeepsTheTexturedSide() {
        var random = SplitMix64(seed: 20)
        let noise = (0..<(384 * 384 * 3)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let wide = Self.image(384, 256) { x, y in
            x < 192 ? [90, 120, 150] : Array(noise[(y * 384 + x) * 3..<(y * 384 + x) * 3 + 3])
        }
        #expect(SmartCrop.entropy(in: wide, width: 256, height: 256) == (128, 0))
        let tall = Self.image(256, 384) { x, y in
            y < 192 ? Array(noise[(y * 384 + x) * 3..<(y * 384 + x) * 3 + 3]) : [200, 40, 40]
        }
        #expect(SmartCrop.entropy(in: tall, width: 256, height: 256) == (0, 0))
    }

    @Test func entropyCountsEveryChannel() {
        // Value noise in blue only, left; flat right: still the left is kept.
        var random = SplitMix64(seed: 7)
        let photo = Self.image(300, 100) { x, _ in x < 150 ? [50, 50, UInt8.random(in: 0...255, using: &random)] : [50, 50, 50] }
        #expect(SmartCrop.entropy(in: photo, width: 100, height: 100) == (0, 0))
    }

    @Test func cropsStayInsideForAnySize() {
        var random = SplitMix64(seed: 2026)
        let sizes = [(1, 1), (1, 9), (9, 1), (2, 3), (7, 13), (31, 33), (33, 31), (65, 17), (257, 255)]
        for (width, height) in sizes {
            let photo = Self.image(width, height) { _, _ in
                [UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), 77]
            }
            let crops = [(0, 0), (1, 1), (width, height), (width + 5, height + 5), (max(width / 2, 1), height),
                         (width, (height + 1) / 3), (width - 1, height - 1), (-3, 2)]
            for (cropWidth, cropHeight) in crops {
                let kept = (min(max(cropWidth, 1), width), min(max(cropHeight, 1), height))
                for strategy in SmartCrop.Strategy.allCases {
                    let origin = SmartCrop.origin(strategy, in: photo, width: cropWidth, height: cropHeight)
                    let inside = (0...(width - kept.0)).contains(origin.x) && (0...(height - kept.1)).contains(origin.y)
                    #expect(inside, "\(strategy) \(cropWidth)x\(cropHeight) in \(width)x\(height): \(origin)")
                    if kept == (width, height) { #expect(origin == (0, 0)) }
                }
            }
        }
    }

    @Test func croppedCutsTheWindow() {
        let photo = Self.image(5, 4) { x, y in [UInt8(x), UInt8(y), UInt8(x * 10 + y)] }
        let window = photo.cropped(x: 1, y: 2, width: 3, height: 2)
        #expect((window.width, window.height) == (3, 2))
        #expect(window[0, 0] == [1, 2, 12] && window[2, 1] == [3, 3, 33])
        #expect(photo.cropped(x: 0, y: 0, width: 5, height: 4) == photo)
    }

    // MARK: The cover path

    let thumbnailer = Thumbnailer()

    /// A 240×120 PNG with fine detail in its right quarter.
    static func detailOnTheRight() throws -> Data {
        try ImageEncoder.encode(image(240, 120) { x, y in x >= 180 ? checker(x, y, square: 15) : grey }, as: .png)
    }

    @Test func coverCutsTheDetectorsWindowOfTheResizedImage() throws {
        let data = try Self.detailOnTheRight()
        // The uncropped image cover resizes to: 120×60 for a 60 px square.
        let resized = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 120, format: .png)).data)
        for strategy in SmartCrop.Strategy.allCases {
            let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 60, fit: .cover, format: .png, smartCrop: strategy))
            let origin = SmartCrop.origin(strategy, in: resized, width: 60, height: 60)
            #expect(origin.x > 30, "\(strategy) stayed near the centre: \(origin)")
            #expect(try ImageDecoder.decode(made.data) == resized.cropped(x: origin.x, y: origin.y, width: 60, height: 60))
        }
    }

    @Test func coverStillCropsTheCentreByDefault() throws {
        let data = try Self.detailOnTheRight()
        let resized = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 120, format: .png)).data)
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 60, fit: .cover, format: .png))
        #expect(ThumbnailRequest(size: 60, fit: .cover).smartCrop == nil)
        #expect(try ImageDecoder.decode(made.data) == resized.cropped(x: 30, y: 0, width: 60, height: 60))
    }

    @Test func containIgnoresSmartCrop() throws {
        let data = try Self.detailOnTheRight()
        let plain = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 60, format: .png))
        let smart = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 60, format: .png, smartCrop: .attention))
        #expect(plain.data == smart.data)
    }

    @Test func smartCoverIsChosenOnTheUprightImage() throws {
        // Stored 120×180 with EXIF orientation 6: upright 180×120, so a 64 px cover resizes to 96×64.
        let data = try Fixtures.data("orientation/Landscape_6.jpg")
        let upright = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 96, format: .png)).data)
        #expect((upright.width, upright.height) == (96, 64))
        let made = try thumbnailer.makeThumbnail(from: data, ThumbnailRequest(size: 64, fit: .cover, format: .png, smartCrop: .attention))
        let origin = SmartCrop.attention(in: upright, width: 64, height: 64)
        #expect(try ImageDecoder.decode(made.data) == upright.cropped(x: origin.x, y: origin.y, width: 64, height: 64))
    }

    @Test func smartCoverReservesMemoryForTheUncroppedImage() throws {
        let input = EncodedImage.data(try Self.detailOnTheRight())
        let centre = try thumbnailer.workingMemory(for: input, ThumbnailRequest(size: 60, fit: .cover))
        let smart = try thumbnailer.workingMemory(for: input, ThumbnailRequest(size: 60, fit: .cover, smartCrop: .attention))
        // The renderer's one estimate (`PlanRenderer.outputMemory`): the smart cover reads the whole resized
        // 120×60 RGB image (three copies) where the centred one reads only its 60×60 square, and its resizer is
        // wider.
        #expect(smart >= centre + 3 * (120 * 60 - 60 * 60) * 3, "smart \(smart), centre \(centre)")
    }
}
