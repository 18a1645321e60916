import Foundation
import Testing
import Processing

/// Issue 31, items 3 and 4 (metadata): a grey source renders grey where the format can carry it, and `sm`, `kcr` and
/// `scp` decide what of the source's EXIF, XMP and ICC profile the output keeps, read back with our own decoders.
@Suite struct GreyAndMetadataTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: GoldenCase.fixtures.appendingPathComponent(name))
    }

    /// Renders `data` through the options path serve uses (probe, plan, render) as `format`.
    static func render(_ data: Data, _ list: String, as format: ImageFormat,
                       defaults: MetadataPolicy = MetadataPolicy()) throws -> Data {
        let options = try ProcessingOptions(parsing: list)
        let info = try ImageDecoder.probe(data)
        let plan = try options.plan(for: info, maxResultSide: ThumbnailRequest.maxSize)
        return try options.render(.data(data), plan: plan, sourceInfo: info, format: format,
                                  defaultQuality: { ImageEncoder.defaultQuality(for: $0) }, metadataDefaults: defaults).data
    }

    /// PNG's IHDR colour type (byte 25) and bit depth (24).
    static func pngLayout(_ png: Data) -> (colorType: UInt8, depth: UInt8) { (png[25], png[24]) }

    // MARK: Grey

    @Test(arguments: [("pngsuite/basn0g08.png", UInt8(0)), ("pngsuite/basn0g16.png", 0), ("pngsuite/basn4a08.png", 4),
                      ("pngsuite/basn4a16.png", 4)])
    func greyPNGStaysGreyInEveryFormatThatCarriesIt(name: String, colorType: UInt8) throws {
        let source = try Self.fixture(name)
        #expect(try ImageDecoder.probe(source).isGrey)
        let png = try Self.render(source, "rs:fit:16:16", as: .png)
        #expect(Self.pngLayout(png) == (colorType, 8), "16-bit grey comes out as 8-bit grey")
        #expect(try ImageDecoder.probe(png).isGrey)
        for format in [ImageFormat.jpeg, .avif] {
            #expect(try ImageDecoder.probe(Self.render(source, "rs:fit:16:16", as: format)).isGrey, "\(format)")
        }
        // WebP has no grey layout: RGB, but still neutral.
        let webp = try Self.render(source, "rs:fit:16:16", as: .webp)
        #expect(try !ImageDecoder.probe(webp).isGrey)
        // The grey output decodes to the same pixels as the RGB one it replaces (PNG is lossless).
        let rgb = try ImageEncoder.encode(ImageDecoder.decode(png), as: .png)
        #expect(try ImageDecoder.decode(png) == ImageDecoder.decode(rgb))
        #expect(png.count < rgb.count)
    }

    @Test func greyJPEGStaysOneComponentAndColourStaysColour() throws {
        let neutral = PixelBuffer(width: 32, height: 32, channels: 3,
                                  pixels: (0..<(32 * 32)).flatMap { (index: Int) -> [UInt8] in [UInt8](repeating: UInt8(index % 251), count: 3) })
        let greyJPEG = try ImageEncoder.encode(neutral, as: .jpeg, grey: true)
        #expect(greyJPEG.count < (try ImageEncoder.encode(neutral, as: .jpeg)).count)
        #expect(try ImageDecoder.probe(greyJPEG).isGrey)
        #expect(try ImageDecoder.probe(Self.render(greyJPEG, "rs:fill:10:10/sh:1", as: .jpeg)).isGrey)
        // A neutral colour image is not grey: only a grey source is written grey (colour bytes do not change).
        #expect(try !ImageDecoder.probe(Self.render(ImageEncoder.encode(neutral, as: .jpeg), "w:10", as: .jpeg)).isGrey)
        #expect(try !ImageDecoder.probe(Self.render(Self.fixture("rocket.jpg"), "w:10", as: .png)).isGrey)
    }

    @Test func aColourBackgroundGivesColourANeutralOneStaysGrey() throws {
        let source = try Self.fixture("pngsuite/basn4a08.png")
        #expect(Self.pngLayout(try Self.render(source, "rs:fit:16:16/bg:ff0000", as: .png)).colorType == 2)
        #expect(Self.pngLayout(try Self.render(source, "rs:fit:16:16/bg:808080", as: .png)).colorType == 0)
        #expect(Self.pngLayout(try Self.render(source, "rs:fit:16:16/pd:4", as: .png)).colorType == 4)
    }

    @Test func theShortGrammarsThumbnailsAreGreyToo() throws {
        let made = try Thumbnailer().makeThumbnail(from: Self.fixture("pngsuite/basn0g16.png"), ThumbnailRequest(size: 16, format: .png))
        #expect(Self.pngLayout(made.data) == (0, 8))
        let jpeg = try Thumbnailer().makeThumbnail(from: Self.fixture("pngsuite/basn0g08.png"), ThumbnailRequest(size: 16))
        #expect(try ImageDecoder.probe(jpeg.data).isGrey)
    }

    @Test func aGreySourceReservesItsGreyCopy() throws {
        let grey = try Self.fixture("pngsuite/basn0g08.png")
        let plan = try ProcessingOptions(parsing: "w:32").plan(for: ImageDecoder.probe(grey), maxResultSide: 1000)
        let asGrey = try PlanRenderer().workingMemory(for: .data(grey), plan: plan)
        let asColour = try PlanRenderer().workingMemory(for: .data(Self.fixture("pngsuite/basn2c08.png")), plan: plan)
        // Same size and plan; the grey source's decoder reads 1 byte a pixel against 3, its encoder copies 32×32×2.
        #expect(asGrey >= asColour - 32 * 32 * 8 && asGrey != asColour)
    }

    // MARK: Metadata

    /// A little-endian EXIF block: Orientation 6, Artist, Copyright and a Make that only `sm:0` keeps.
    static let exif: [UInt8] = {
        let entries: [(tag: UInt16, type: UInt16, value: [UInt8])] = [
            (0x010F, 2, Array("Maker Co\0".utf8)), (0x0112, 3, [6, 0]), (0x013B, 2, Array("Ann Artist\0".utf8)),
            (0x8298, 2, Array("(c) 2026 Test\0".utf8)),
        ]
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, UInt8(entries.count), 0]
        var values: [UInt8] = []
        let valuesStart = 10 + entries.count * 12 + 4
        for entry in entries {
            let count = entry.type == 3 ? 1 : entry.value.count
            out += [UInt8(entry.tag & 0xFF), UInt8(entry.tag >> 8), UInt8(entry.type), 0, UInt8(count), 0, 0, 0]
            if entry.value.count <= 4 {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                let offset = valuesStart + values.count
                out += [UInt8(offset & 0xFF), UInt8(offset >> 8), 0, 0]
                values += entry.value
            }
        }
        return out + [0, 0, 0, 0] + values
    }()
    static let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)

    /// A 40×20 colour JPEG, stored turned (orientation 6), with the EXIF and XMP above.
    static func sourceWithMetadata() throws -> Data {
        let pixels: [UInt8] = (0..<(40 * 20)).flatMap { (index: Int) -> [UInt8] in
            [UInt8(index % 40 * 6), UInt8(index / 40 * 12), 90]
        }
        return try ImageEncoder.encode(PixelBuffer(width: 40, height: 20, channels: 3, pixels: pixels), as: .jpeg,
                                       metadata: ImageMetadata(exif: exif, xmp: xmp))
    }

    @Test func theSourcesMetadataIsReadBack() throws {
        let info = try ImageDecoder.probe(Self.sourceWithMetadata())
        #expect(info.orientation == .rotate90)
        #expect(info.metadata.copyright == "(c) 2026 Test" && info.metadata.artist == "Ann Artist")
        #expect(info.metadata.xmp == Self.xmp)
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .avif])
    func byDefaultOnlyTheCopyrightIsKept(format: ImageFormat) throws {
        let output = try ImageDecoder.probe(Self.render(Self.sourceWithMetadata(), "w:10", as: format)).metadata
        #expect(output.copyright == "(c) 2026 Test" && output.artist == "Ann Artist")
        #expect(output.exif.map { String(decoding: $0, as: UTF8.self).contains("Maker") } == false)
        #expect(output.xmp == nil && output.iccProfile == nil)
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .avif])
    func stripMetadataOffKeepsEXIFAndXMPWithTheOrientationReset(format: ImageFormat) throws {
        let source = try Self.sourceWithMetadata()
        let output = try ImageDecoder.probe(Self.render(source, "w:10/sm:0", as: format))
        #expect(output.metadata.copyright == "(c) 2026 Test")
        #expect(output.metadata.exif.map { String(decoding: $0, as: UTF8.self).contains("Maker Co") } == true)
        if format != .png { #expect(output.metadata.xmp == Self.xmp) }  // PNG's iTXt is written, not read back
        // Turned upright, so the EXIF must say so; AVIF's orientation is irot/imir, never its Exif.
        #expect(output.orientation == .identity && output.width == 10 && output.height == 20)
        // Without auto-rotation the stored orientation is what the viewer still needs.
        let unturned = try ImageDecoder.probe(Self.render(source, "w:10/sm:0/ar:0", as: .jpeg))
        #expect(unturned.orientation == .rotate90)
    }

    @Test func keepCopyrightOffStripsEverythingAndTheServerDefaultsApply() throws {
        let source = try Self.sourceWithMetadata()
        #expect(try ImageDecoder.probe(Self.render(source, "w:10/kcr:0", as: .jpeg)).metadata.exif == nil)
        let stripped = MetadataPolicy(stripMetadata: true, keepCopyright: false)
        #expect(try ImageDecoder.probe(Self.render(source, "w:10", as: .jpeg, defaults: stripped)).metadata.exif == nil)
        // The URL wins over the server.
        #expect(try ImageDecoder.probe(Self.render(source, "w:10/kcr:1", as: .jpeg, defaults: stripped)).metadata.copyright != nil)
        #expect(try ProcessingOptions(parsing: "sm:0/kcr:0/scp:0").canonical == "sm:0/kcr:0/scp:0")
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .avif])
    func keepingTheProfileWritesItAndLeavesThePixelsInItsSpace(format: ImageFormat) throws {
        let source = try Self.fixture("rocket-adobergb.png")
        let profile = try #require(ImageDecoder.probe(source).metadata.iccProfile)
        let kept = try Self.render(source, "w:40/scp:0", as: format)
        #expect(try ImageDecoder.probe(kept).metadata.iccProfile == profile)
        #expect(try ImageDecoder.probe(Self.render(source, "w:40", as: format)).metadata.iccProfile == nil)
        if format == .png {
            // The stored values, as a render without conversion gives them; the default converts to sRGB.
            let unconverted = try ImageDecoder.decode(kept, convertToSRGB: false)
            let options = try ProcessingOptions(parsing: "w:40")
            let plan = try options.plan(for: ImageDecoder.probe(source), maxResultSide: 1000)
            #expect(unconverted == (try PlanRenderer().render(from: .data(source), plan: plan, convertToSRGB: false)))
            #expect(unconverted != (try ImageDecoder.decode(Self.render(source, "w:40", as: .png))))
        }
    }

    @Test func aCutOrDamagedEXIFGivesNothingRatherThanACrash() throws {
        for count in 0..<Self.exif.count {
            let cut = ImageMetadata(exif: Array(Self.exif.prefix(count)))
            _ = (cut.copyright, cut.artist)
            let damaged = Self.exif.enumerated().map { $0.offset == count ? 0xFF : $0.element }
            _ = ImageMetadata(exif: damaged).copyright
        }
        #expect(ImageMetadata(exif: Array(Self.exif.prefix(Self.exif.count - 3))).copyright == nil, "value runs past the end")
        #expect(ImageMetadata(exif: Array("Exif\0\0".utf8) + Self.exif).copyright == "(c) 2026 Test", "prefix skipped")
    }

    @Test func theShortGrammarFollowsItsRequestsPolicy() throws {
        let source = try Self.sourceWithMetadata()
        let byDefault = try Thumbnailer().makeThumbnail(from: source, ThumbnailRequest(size: 16))
        #expect(try ImageDecoder.probe(byDefault.data).metadata == ImageMetadata(artist: "Ann Artist", copyright: "(c) 2026 Test"))
        var request = ThumbnailRequest(size: 16, format: .webp)
        request.metadata = MetadataPolicy(stripMetadata: false)
        let kept = try ImageDecoder.probe(Thumbnailer().makeThumbnail(from: source, request).data)
        #expect(kept.metadata.xmp == Self.xmp && kept.orientation == .identity && kept.height == 16)
    }

    @Test func aCMYKSourceIsConvertedAndItsProfileDroppedEvenWithScp0() throws {
        let output = try ImageDecoder.probe(Self.render(Self.fixture("pil_sample_cmyk.jpg"), "w:20/scp:0", as: .jpeg))
        #expect(output.metadata.iccProfile == nil)
    }
}
