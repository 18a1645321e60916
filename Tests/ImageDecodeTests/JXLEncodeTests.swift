import Foundation
import Testing
@testable import ImageDecode

/// JPEG XL out through libjxl: quality mapping, alpha, grey, metadata boxes and the ICC profile.
struct JXLEncodeTests {
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }

    @Test func qualityMapsToDistanceAsCjxlAndLibvipsDo() {
        #expect(abs(JXLEncoder.distance(quality: 90) - 1.0) < 1e-6)
        #expect(abs(JXLEncoder.distance(quality: 75) - 2.35) < 1e-6)
        #expect(abs(JXLEncoder.distance(quality: 100) - 0.1) < 1e-6)
        #expect(abs(JXLEncoder.distance(quality: 30) - 6.4) < 1e-6)
        #expect(JXLEncoder.distance(quality: 1) > JXLEncoder.distance(quality: 29))
        #expect(ImageEncoder.defaultQuality(for: .jxl) == 77)
    }

    @Test func roundTripsRGBAndAlpha() throws {
        let photo = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"))
        let encoded = try ImageEncoder.encode(photo, as: .jxl)
        #expect(ImageFormat.sniff(encoded) == .jxl)
        let decoded = try ImageDecoder.decode(encoded)
        #expect(decoded.width == photo.width && decoded.channels == 3 && Self.meanDifference(decoded, photo) < 6)
        let small = try ImageEncoder.encode(photo, as: .jxl, quality: 30)
        #expect(small.count < encoded.count)
        let withAlpha = try ImageDecoder.decode(Fixtures.data("rocket-adobergb-alpha.png"))
        let alpha = try ImageDecoder.decode(ImageEncoder.encode(withAlpha, as: .jxl))
        #expect(alpha.channels == 4 && Self.meanDifference(alpha, withAlpha) < 6)
    }

    @Test func neutralImageOfAGreySourceIsWrittenGrey() throws {
        let grey = try ImageDecoder.decode(Fixtures.data("jxl/8-bpp-grayscale.jxl"))
        let encoded = try ImageEncoder.encode(grey, as: .jxl, grey: true)
        let info = try ImageDecoder.probe(encoded)
        #expect(info.isGrey)
        #expect(Self.meanDifference(try ImageDecoder.decode(encoded), grey) < 4)
    }

    @Test func metadataBecomesBoxesAndTheProfileIsDeclared() throws {
        let photo = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"), convertToSRGB: false)
        let source = try ImageDecoder.probe(Fixtures.data("rocket-adobergb.png"))
        var metadata = ImageMetadata(artist: "A. Photographer", copyright: "CC BY 4.0")
        metadata.xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        metadata.colorProfile = source.metadata.colorProfile
        let encoded = try ImageEncoder.encode(photo, as: .jxl, metadata: metadata)
        let info = try ImageDecoder.probe(encoded)
        #expect(info.metadata.copyright == "CC BY 4.0" && info.metadata.artist == "A. Photographer")
        #expect(info.metadata.xmp == metadata.xmp)
        // XYB output is rendered to sRGB on decoding, so the profile shows in the pixels, not as a profile.
        let decoded = try ImageDecoder.decode(encoded)
        let reference = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"))
        #expect(Self.meanDifference(decoded, reference) < 6)
        // Without metadata: a bare codestream (no container).
        let bare = try ImageEncoder.encode(photo, as: .jxl)
        #expect(bare.prefix(2) == Data([0xFF, 0x0A]))
    }
}
