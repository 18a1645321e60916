import Foundation
import Testing
@testable import ImageDecode

/// HEIC out through libheif and x265, read back with our own HEIC decoder: sizes (odd ones too), alpha, closeness to
/// the source, libvips' chroma rule, metadata, refusals, and the encoder's declared working memory.
struct HEICEncodeTests {
    /// Peak signal-to-noise ratio over every channel, in dB.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let squared = zip(a.pixels, b.pixels).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
        return 10 * log10(255 * 255 / max(squared / Double(a.pixels.count), 1e-9))
    }

    /// `chroma_format_idc` of the first hvcC box (ISO/IEC 14496-15 8.3.3.1: its 17th byte, low two bits): 1 is 4:2:0,
    /// 3 is 4:4:4.
    static func chromaFormat(_ heic: Data) throws -> Int {
        let box = try #require(heic.firstRange(of: Data("hvcC".utf8)))
        return Int(heic[box.upperBound + 16] & 3)
    }

    /// HEIC is listed as written in every build, and an encode works exactly when libheif lists an HEVC encoder (asked
    /// here through its encoder list, not the glue's `heif_have_encoder_for_format`, from libheif opened by this
    /// test); else it is refused as `libraryUnavailable`. This machine's libheif has x265.
    @Test func heicIsWrittenExactlyWhenLibheifHasAnHEVCEncoder() throws {
        typealias ListEncoders = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32) -> Int32
        let libheif = try #require(dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL))
        defer { dlclose(libheif) }
        let list = unsafeBitCast(try #require(dlsym(libheif, "heif_get_encoder_descriptors")), to: ListEncoders.self)
        var descriptors: [OpaquePointer?] = [nil]
        let listed = list(1 /* heif_compression_HEVC */, nil, &descriptors, 1)
        #expect(ImageFormat.heic.isEncodable && ImageFormat.encodable.contains(.heic))
        let photo = try ImageDecoder.decode(Fixtures.data("testorig.jpg"))
        let written: Bool
        do throws(ImageDecodeError) { _ = try HEICEncoder.encode(photo, quality: 50); written = true } catch {
            guard case .libraryUnavailable = error else { throw error }
            written = false
        }
        #expect(written == (listed > 0))
        #expect(written, "this machine's libheif has its x265 encoder")
    }

    @Test func roundTripsAPhotoAtOddSizesAndItsAlpha() throws {
        let photo = try ImageDecoder.decode(Fixtures.data("testorig.jpg"))  // 227 x 149
        let encoded = try ImageEncoder.encode(photo, as: .heic)
        #expect(ImageFormat.sniff(encoded) == .heic)
        let info = try ImageDecoder.probe(encoded)
        #expect(info.format == .heic && info.width == 227 && info.height == 149 && !info.hasAlpha)
        let decoded = try ImageDecoder.decode(encoded)
        #expect(decoded.width == photo.width && decoded.height == photo.height && decoded.channels == 3)
        #expect(Self.psnr(decoded, photo) > 34, "\(Self.psnr(decoded, photo)) dB")

        let withAlpha = try ImageDecoder.decode(Fixtures.data("rocket-adobergb-alpha.png"))
        let alpha = try ImageDecoder.decode(ImageEncoder.encode(withAlpha, as: .heic))
        #expect(alpha.channels == 4 && alpha.width == withAlpha.width && alpha.height == withAlpha.height)
        #expect(Self.psnr(alpha, withAlpha) > 30, "\(Self.psnr(alpha, withAlpha)) dB")
        // Smaller than x265's smallest block: libheif pads and crops.
        for (width, height) in [(1, 1), (3, 5), (65, 17)] {
            let tiny = Fixtures.image(width: width, height: height, channels: 4) { x, y in [UInt8(x * 3), UInt8(y * 7), 90, 200] }
            let back = try ImageDecoder.decode(ImageEncoder.encode(tiny, as: .heic))
            #expect(back.width == width && back.height == height && back.channels == 4, "\(width)x\(height)")
        }
    }

    @Test func qualityAndChromaFollowLibvips() throws {
        let photo = try ImageDecoder.decode(Fixtures.data("testorig.jpg"))
        #expect(ImageEncoder.defaultQuality(for: .heic) == 80)
        let low = try ImageEncoder.encode(photo, as: .heic, quality: 30)
        let standard = try ImageEncoder.encode(photo, as: .heic)
        let high = try ImageEncoder.encode(photo, as: .heic, quality: 95)
        #expect(low.count < standard.count && standard.count < high.count)
        #expect(try Self.chromaFormat(standard) == 1 && Self.chromaFormat(low) == 1, "4:2:0 below q90")
        #expect(try Self.chromaFormat(high) == 3, "4:4:4 from q90")
        #expect(Self.psnr(try ImageDecoder.decode(high), photo) > Self.psnr(try ImageDecoder.decode(low), photo))
        // The same pixels give the same bytes: x265 on one thread is deterministic, so stored variants are stable.
        #expect(try ImageEncoder.encode(photo, as: .heic) == standard)
    }

    @Test func metadataIsWrittenOnlyWhenGiven() throws {
        let source = try ImageDecoder.probe(Fixtures.data("rocket-adobergb.png"))
        let photo = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"), convertToSRGB: false)
        var metadata = ImageMetadata(artist: "A. Photographer", copyright: "CC BY 4.0")
        metadata.xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        metadata.colorProfile = source.metadata.colorProfile
        let kept = try ImageDecoder.probe(ImageEncoder.encode(photo, as: .heic, metadata: metadata))
        #expect(kept.metadata.copyright == "CC BY 4.0" && kept.metadata.artist == "A. Photographer")
        #expect(kept.metadata.xmp == metadata.xmp)
        #expect(kept.metadata.colorProfile?.bytes == source.metadata.colorProfile?.bytes)
        // The kept Adobe RGB profile is applied on reading, as it is to the PNG.
        let reference = try ImageDecoder.decode(Fixtures.data("rocket-adobergb.png"))
        #expect(Self.psnr(try ImageDecoder.decode(ImageEncoder.encode(photo, as: .heic, metadata: metadata)), reference) > 30)
        let stripped = try ImageDecoder.probe(ImageEncoder.encode(photo, as: .heic))
        #expect(stripped.metadata.exif == nil && stripped.metadata.xmp == nil && stripped.metadata.colorProfile == nil)
    }

    @Test func whatCannotBeWrittenIsRefusedWithAReason() {
        #expect {
            try ImageEncoder.encode(PixelBuffer(width: 16385, height: 1, channels: 3), as: .heic)
        } throws: { error in
            guard case .encodeFailed(let message) = error as? ImageDecodeError else { return false }
            return message.contains("16384")
        }
    }

    @Test func theEncodersMemoryIsDeclaredAndCountedByTheRender() throws {
        #expect(ImageEncoder.workingMemory(for: .heic, width: 1000, height: 500) == (10 << 20) + 1000 * 500 * 32)
        for format in ImageFormat.encodable where format != .heic {
            #expect(ImageEncoder.workingMemory(for: format, width: 1000, height: 500) == 0, "\(format)")
        }
        let input = EncodedImage.data(try Fixtures.data("rocket.jpg"))
        var geometry = GeometryOptions()
        (geometry.width, geometry.height) = (320, 320)
        let plan = ProcessingPlan(sourceWidth: 640, sourceHeight: 427, geometry: geometry)
        let jpeg = try PlanRenderer().workingMemory(for: input, plan: plan, formats: [.jpeg])
        let heic = try PlanRenderer().workingMemory(for: input, plan: plan, formats: [.heic])
        #expect(heic - jpeg == ImageEncoder.workingMemory(for: .heic, width: plan.resultWidth, height: plan.resultHeight))
        // An answer whose `Accept` fallback is HEIC runs x265 too: the larger encoder counts.
        #expect(try PlanRenderer().workingMemory(for: input, plan: plan, formats: [.webp, .heic]) == heic)
        // Counted against the render's limit: a budget the render alone fits in refuses the HEIC encode.
        let limits = RenderLimits(maxDecodeMemory: jpeg + 1)
        #expect(throws: ImageDecodeError.self) { try PlanRenderer().workingMemory(for: input, plan: plan, limits: limits, formats: [.heic]) }
        #expect(try PlanRenderer().workingMemory(for: input, plan: plan, limits: limits, formats: [.jpeg]) == jpeg)
    }
}
