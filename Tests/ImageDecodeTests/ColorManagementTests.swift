import Foundation
import Testing
@testable import ImageDecode

/// Embedded ICC profiles are converted to sRGB. The expected colours come from the published Adobe RGB
/// (1998) and sRGB definitions (primaries, white point, transfer curves), computed here independently of
/// LittleCMS.
@Suite struct ColorManagementTests {
    /// Adobe RGB (1998) value to sRGB, through linear light and CIE XYZ (both D65, so no adaptation).
    static func adobeToSRGB(_ rgb: [UInt8]) -> [Double] {
        let linear = rgb.map { pow(Double($0) / 255, 563.0 / 256.0) }
        let toXYZ = [[0.5767309, 0.1855540, 0.1881852], [0.2973769, 0.6273491, 0.0752741], [0.0270343, 0.0706872, 0.9911085]]
        let toSRGB = [[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560], [0.0556434, -0.2040259, 1.0572252]]
        let xyz = toXYZ.map { row in zip(row, linear).reduce(0) { $0 + $1.0 * $1.1 } }
        return toSRGB.map { row in
            let v = min(max(zip(row, xyz).reduce(0) { $0 + $1.0 * $1.1 }, 0), 1)
            let encoded = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return encoded * 255
        }
    }

    /// Largest and mean difference between `converted` and the formula applied to `stored`, over colour channels.
    static func deviation(stored: PixelBuffer, converted: PixelBuffer) -> (max: Double, mean: Double) {
        #expect(stored.width == converted.width && stored.height == converted.height && stored.channels == converted.channels)
        var worst = 0.0, total = 0.0
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let expected = adobeToSRGB(Array(stored[x, y].prefix(3)))
                for c in 0..<3 {
                    let d = abs(expected[c] - Double(converted[x, y][c]))
                    worst = max(worst, d)
                    total += d
                }
            }
        }
        return (worst, total / Double(stored.width * stored.height * 3))
    }

    /// The profile of rocket.jpg, as its APP2 segment (marker, length and "ICC_PROFILE" header included).
    static func adobeRGBSegment() throws -> Data {
        let jpeg = try Fixtures.data("rocket.jpg")
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            let segment = jpeg[offset..<offset + 2 + length]
            if jpeg[offset + 1] == 0xE2, segment.dropFirst(4).starts(with: Array("ICC_PROFILE".utf8)) { return Data(segment) }
            offset += 2 + length
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// `jpeg` with `segments` inserted right after its SOI marker.
    static func inserting(_ segments: [Data], into jpeg: Data) -> Data {
        Data(jpeg.prefix(2)) + segments.reduce(Data(), +) + Data(jpeg.dropFirst(2))
    }

    @Test func adobeRGBJPEGIsConvertedToSRGB() throws {
        let data = try Fixtures.data("rocket.jpg")
        #expect(try ImageDecoder.probe(data).colorProfile == "Adobe RGB (1998)")
        let stored = try ImageDecoder.decode(data, convertToSRGB: false)
        let converted = try ImageDecoder.decode(data)
        let (worst, mean) = Self.deviation(stored: stored, converted: converted)
        #expect(worst <= 3, "LittleCMS's 8-bit path should stay within a few levels of the exact formula")
        #expect(mean < 1)
        // The conversion is not a no-op: saturated reds move most between the two spaces.
        #expect(Fixtures.meanAbsoluteDifference(stored, converted) > 2)
    }

    @Test func adobeRGBPNGIsConvertedAndAlphaIsKept() throws {
        for name in ["rocket-adobergb.png", "rocket-adobergb-alpha.png"] {
            let data = try Fixtures.data(name)
            #expect(try ImageDecoder.probe(data).colorProfile == "Adobe RGB (1998)", "\(name)")
            let stored = try ImageDecoder.decode(data, convertToSRGB: false)
            let converted = try ImageDecoder.decode(data)
            let (worst, mean) = Self.deviation(stored: stored, converted: converted)
            #expect(worst <= 3 && mean < 1, "\(name): worst \(worst), mean \(mean)")
            if stored.channels == 4 {
                let alpha = { (image: PixelBuffer) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
                #expect(alpha(stored) == alpha(converted), "\(name): alpha must pass through unchanged")
                #expect(Set(alpha(stored)).count > 32, "\(name): the fixture has an alpha gradient")
            }
        }
    }

    @Test func thumbnailsAreConvertedUnlessAskedNotTo() throws {
        let data = try Fixtures.data("rocket.jpg")
        let thumbnailer = Thumbnailer()
        let request = ThumbnailRequest(size: 128, format: .png)
        var raw = request
        raw.convertToSRGB = false
        let converted = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, request).data)
        let stored = try ImageDecoder.decode(thumbnailer.makeThumbnail(from: data, raw).data)
        #expect(converted.width == 128 && stored.width == 128)
        let (worst, mean) = Self.deviation(stored: stored, converted: converted)
        #expect(worst <= 3 && mean < 1, "worst \(worst), mean \(mean)")
    }

    @Test func sRGBProfilesAreLeftAlone() throws {
        // vgl_5674_0098.png carries sRGB2014: converting would only cost time and rounding.
        let data = try Fixtures.data("vgl_5674_0098.png")
        #expect(try ImageDecoder.probe(data).colorProfile == "sRGB2014")
        #expect(try ImageDecoder.decode(data) == ImageDecoder.decode(data, convertToSRGB: false))
    }

    @Test func profileInsertedIntoAnotherJPEGApplies() throws {
        // The same APP2 segment moved into an untagged JPEG makes the decoder treat its values as Adobe RGB.
        let plain = try Fixtures.data("testorig.jpg")
        let tagged = Self.inserting([try Self.adobeRGBSegment()], into: plain)
        #expect(try ImageDecoder.probe(plain).colorProfile == nil)
        let stored = try ImageDecoder.decode(plain)
        #expect(stored == (try ImageDecoder.decode(tagged, convertToSRGB: false)))
        let (worst, mean) = Self.deviation(stored: stored, converted: try ImageDecoder.decode(tagged))
        #expect(worst <= 3 && mean < 1, "worst \(worst), mean \(mean)")
    }

    @Test func badOrMismatchedProfilesAreIgnoredNotFatal() throws {
        let plain = try Fixtures.data("testorig.jpg")
        let expected = try ImageDecoder.decode(plain)
        func app2(sequence: UInt8, count: UInt8, payload: [UInt8]) -> Data {
            let body = Array("ICC_PROFILE".utf8) + [0, sequence, count] + payload
            return Data([0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body)
        }
        let garbage = app2(sequence: 1, count: 1, payload: Array(repeating: 0x5A, count: 200))
        let missingChunk = app2(sequence: 2, count: 2, payload: Array(repeating: 1, count: 50))
        let zeroCount = app2(sequence: 1, count: 0, payload: Array(repeating: 1, count: 50))
        let adobe = try Self.adobeRGBSegment()
        let duplicated = Self.inserting([adobe, adobe], into: plain)
        for (label, data) in [("garbage", Self.inserting([garbage], into: plain)),
                              ("missing chunk", Self.inserting([missingChunk], into: plain)),
                              ("zero count", Self.inserting([zeroCount], into: plain)),
                              ("duplicated chunk", duplicated)] {
            #expect(try ImageDecoder.probe(data).colorProfile == nil, "\(label)")
            #expect(try ImageDecoder.decode(data) == expected, "\(label)")
        }
        // An RGB profile on a CMYK file does not describe its pixels: the naive conversion is used.
        let cmyk = try Fixtures.data("pil_sample_cmyk.jpg")
        let cmykTagged = Self.inserting([adobe], into: cmyk)
        #expect(try ImageDecoder.probe(cmykTagged).colorProfile == "Adobe RGB (1998)")
        #expect(try ImageDecoder.decode(cmykTagged) == ImageDecoder.decode(cmyk))
    }
}
