import CJpegPngGlue
import Foundation
import SeededRandom
import Testing
@testable import ImageDecode

/// RGB profiles whose colourants and curves are sRGB's are recognised by their content, whatever their name, and
/// left unconverted; every profile so recognised is checked with the real LittleCMS transform it skips: over every
/// grey, every ramp of a primary or secondary and a 52-step colour cube, no value moves by more than 1.
@Suite struct SRGBEquivalenceTests {
    /// Every grey; every level of each channel with the others at 0 or 255; and a cube in steps of 5 (0…255).
    static let probe: [UInt8] = {
        var pixels: [UInt8] = []
        for level in 0...255 { pixels += [UInt8(level), UInt8(level), UInt8(level)] }
        for level in 0...255 {
            for channel in 0..<3 {
                for others in [(0, 0), (0, 255), (255, 0), (255, 255)] {
                    var pixel = [UInt8(others.0), UInt8(others.1)]
                    pixel.insert(UInt8(level), at: channel)
                    pixels += pixel
                }
            }
        }
        for r in stride(from: 0, through: 255, by: 5) {
            for g in stride(from: 0, through: 255, by: 5) {
                for b in stride(from: 0, through: 255, by: 5) { pixels += [UInt8(r), UInt8(g), UInt8(b)] }
            }
        }
        return pixels
    }()

    /// The most the profile's conversion to sRGB (the transform the decoders use) moves a probed value.
    static func largestShift(_ profile: ColorProfile) throws -> Int {
        let transform = try #require(ColorTransform(profile: profile, layout: TC_PIXELS_RGB))
        var converted = [UInt8](repeating: 0, count: probe.count)
        return probe.withUnsafeBufferPointer { source in
            converted.withUnsafeMutableBufferPointer { target in
                transform.convert(source.baseAddress!, into: target.baseAddress!, count: source.count / 3)
                var largest = 0
                for index in 0..<source.count { largest = max(largest, abs(Int(source[index]) - Int(target[index]))) }
                return largest
            }
        }
    }

    static func profile(_ writer: ICCProfileWriter) throws -> ColorProfile {
        try #require(ColorProfile(writer.bytes))
    }

    /// The profile a fixture carries, as its decoder reads it.
    static func profile(ofFixture name: String) throws -> ColorProfile {
        let profile = try ImageDecoder.withDecoder(for: .data(Fixtures.data(name)), maxPixels: .max) { $0.rowProfile }
        return try #require(profile)
    }

    @Test func sRGBUnderOtherNamesAndEncodingsIsRecognised() throws {
        var iec = ICCProfileWriter()  // as the IEC 61966-2.1 profile stores it: a 1024-entry curve, a D65 white point
        iec.curves = Array(repeating: .sRGBSampled(1024), count: 3)
        let profiles: [(String, ColorProfile)] = [
            ("c2 (524 bytes, a 26-entry curve)", try #require(ColorProfile(Array(Fixtures.data("icc/c2.icc"))))),
            ("sRGB2014", try Self.profile(ofFixture: "vgl_5674_0098.png")),
            ("IEC 61966-2.1 layout", try Self.profile(iec)),
            ("parametric sRGB", try Self.profile(ICCProfileWriter())),
        ]
        #expect(profiles[0].1.name == "c2")
        for (label, profile) in profiles {
            #expect(profile.isSRGB, "\(label): deviation \(profile.sRGBDeviation) levels")
            #expect(profile.rgbTransform(channels: 3) == nil, "\(label)")
            #expect(try Self.largestShift(profile) <= 1, "\(label)")
        }
    }

    @Test func otherSpacesAreConverted() throws {
        var displayP3 = ICCProfileWriter()
        displayP3.colourants = ICCProfileWriter.displayP3Colourants
        var gamma22 = ICCProfileWriter()  // sRGB's primaries, a plain 2.2 power curve: darker shadows
        gamma22.curves = Array(repeating: .gamma(2.2), count: 3)
        let profiles: [(String, ColorProfile)] = [
            ("Adobe RGB (1998)", try Self.profile(ofFixture: "rocket.jpg")),
            ("Display P3", try Self.profile(displayP3)),
            ("sRGB primaries, gamma 2.2", try Self.profile(gamma22)),
        ]
        for (label, profile) in profiles {
            #expect(!profile.isSRGB, "\(label): deviation \(profile.sRGBDeviation) levels")
            #expect(profile.rgbTransform(channels: 3) != nil, "\(label)")
            #expect(try Self.largestShift(profile) > 1, "\(label)")
        }
    }

    /// Profiles near sRGB (colourants moved by up to 2·10⁻⁵, 10⁻⁴ or 5·10⁻⁴, curves sampled at 8 to 1024 points,
    /// gammas within 40 times that of 2.4):
    /// each one the bound calls sRGB moves no probed value by more than 1, and the sample has both kinds.
    @Test func everyProfileCalledSRGBMovesNoValueByMoreThanOne() throws {
        var random = SplitMix64(seed: 31)
        var accepted = 0, refused = 0
        for _ in 0..<48 {
            var writer = ICCProfileWriter()
            let reach = [2e-5, 1e-4, 5e-4].randomElement(using: &random)!
            writer.colourants = writer.colourants.map { colourant in
                func nudge(_ value: Double) -> Double { value + Double.random(in: -reach...reach, using: &random) }
                return (nudge(colourant.x), nudge(colourant.y), nudge(colourant.z))
            }
            let count = [8, 16, 26, 64, 256, 1024].randomElement(using: &random)!
            let curve: ICCProfileWriter.Curve = Bool.random(using: &random) ? .sRGBSampled(count)
                : .parametric(type: 3, [2.4 + Double.random(in: -reach * 40...reach * 40, using: &random), 1 / 1.055, 0.055 / 1.055,
                                        1 / 12.92, 0.04045])
            writer.curves = Array(repeating: curve, count: 3)
            let profile = try Self.profile(writer)
            guard profile.isSRGB else { refused += 1; continue }
            accepted += 1
            #expect(try Self.largestShift(profile) <= 1, "deviation \(profile.sRGBDeviation): \(writer.colourants), \(curve)")
        }
        #expect(accepted >= 5 && refused >= 5, "accepted \(accepted), refused \(refused)")
    }

    @Test func aJPEGTaggedC2DecodesToItsStoredValues() throws {
        let plain = try Fixtures.data("testorig.jpg")
        let c2 = Array(try Fixtures.data("icc/c2.icc"))
        let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + c2
        let segment = Data([0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body)
        let tagged = ColorManagementTests.inserting([segment], into: plain)
        #expect(try ImageDecoder.probe(tagged).colorProfile == "c2")
        #expect(try ImageDecoder.decode(tagged) == ImageDecoder.decode(plain))
    }
}
