import Foundation
import Testing
@testable import ImageDecode

struct FormatTests {
    @Test func sniffsAllFiveFormats() throws {
        for (name, format) in [("testorig.jpg", ImageFormat.jpeg), ("testorig.png", .png), ("webp/lossy.webp", .webp),
                               ("gif/static.gif", .gif), ("avif/sequence.avif", .avif), ("avif/white-1x1.avif", .avif)] {
            #expect(ImageFormat.sniff(try Fixtures.data(name)) == format, "\(name)")
        }
        // HEIC shares AVIF's box layout, not its brands; an AVIF also lists the generic HEIF brand mif1.
        let heic = Array("\0\0\0\u{18}ftypheic\0\0\0\0mif1heic".utf8)
        #expect(ImageFormat.sniff(heic) == .heic)
        let compatible = Array("\0\0\0\u{1C}ftypmif1\0\0\0\0mif1avifmiaf".utf8)
        #expect(ImageFormat.sniff(compatible) == .avif)
        #expect(ImageFormat.sniff(Array("\0\0\0\u{14}ftypisom\0\0\0\0mp41".utf8)) == nil)  // an MP4
        #expect(ImageFormat.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
    }

    @Test func sniffsTheOtherFormatsByTheirSignatures() {
        let cases: [(String, [UInt8], ImageFormat?)] = [
            ("jxl codestream", [0xFF, 0x0A, 0xFA, 0x1F], .jxl),
            ("jxl container", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0], .jxl),
            ("tiff II", Array("II*\0\u{8}\0\0\0".utf8), .tiff),
            ("tiff MM", Array("MM\0*\0\0\0\u{8}".utf8), .tiff),
            ("bigtiff", Array("II+\0\u{8}\0\0\0".utf8), .tiff),
            ("bmp", Array("BM".utf8) + [UInt8](repeating: 0, count: 24), .bmp),
            ("ico", [0, 0, 1, 0, 1, 0, 16, 16], .ico),
            ("ico without entries", [0, 0, 1, 0, 0, 0], nil),
            ("svg", Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), .svg),
            ("svg after declaration, comment, doctype", Array(("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n"
                + "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n  <svg width='2'/>").utf8), .svg),
            ("prefixed svg", Array("<svg:svg xmlns:svg='http://www.w3.org/2000/svg'/>".utf8), .svg),
            ("html", Array("<!DOCTYPE html><html><svg/></html>".utf8), nil),
            ("svgz-like text", Array("<svgx/>".utf8), nil),
            ("unclosed comment", Array("<!-- <svg/>".utf8), nil),
        ]
        for (name, bytes, format) in cases {
            #expect(ImageFormat.sniff(bytes) == format, "\(name)")
        }
    }

    @Test func formatNamesAndAliases() {
        #expect(ImageFormat(name: "JPG") == .jpeg)
        #expect(ImageFormat(name: "heif") == .heic)
        #expect(ImageFormat(name: "tif") == .tiff)
        #expect(ImageFormat(name: "jp2") == nil)
        #expect(ImageFormat.names([.jpeg, .png, .webp]) == "jpeg, png or webp")
        #expect(ImageFormat.names([.jpeg, .png], imgproxyNames: true) == "jpg or png")
        for format in ImageFormat.allCases {
            #expect(ImageFormat(name: format.fileExtension) == format)
            #expect(format.fileExtensions.first == format.fileExtension)
        }
    }

    @Test func mimeTypesAndWhatCanBeWritten() {
        #expect(ImageFormat.allCases.map(\.mimeType) == ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif",
                                                        "image/heif", "image/jxl", "image/tiff", "image/bmp", "image/x-icon",
                                                        "image/svg+xml"])
        #expect(ImageFormat.encodable == [.jpeg, .png, .webp, .gif, .avif, .heic, .jxl, .tiff, .bmp, .ico])
        #expect(throws: ImageDecodeError.self) { try ImageEncoder.encode(PixelBuffer(width: 1, height: 1, channels: 3), as: .svg) }
    }

    static func gradient(channels: Int) -> PixelBuffer {
        Fixtures.image(width: 96, height: 64, channels: channels) { x, y in
            let base = [UInt8(x * 255 / 95), UInt8(y * 255 / 63), UInt8((x + y) * 255 / 158)]
            return channels == 4 ? base + [UInt8(x < 48 ? 255 : 64)] : base
        }
    }

    @Test(arguments: [ImageFormat.webp, .avif])
    func encodesRoundTripWithAlphaKept(_ format: ImageFormat) throws {
        for channels in [3, 4] {
            let image = Self.gradient(channels: channels)
            let data = try ImageEncoder.encode(image, as: format)
            #expect(ImageFormat.sniff(data) == format)
            let back = try ImageDecoder.decode(data)
            #expect(back.width == 96 && back.height == 64 && back.channels == channels)
            #expect(Fixtures.meanAbsoluteDifference(back, image) < 4, "\(format) \(channels) channels")
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func qualityChangesTheSize(_ format: ImageFormat) throws {
        let photo = try ImageDecoder.decode(Fixtures.data("testorig.jpg"))
        let low = try ImageEncoder.encode(photo, as: format, quality: 20)
        let high = try ImageEncoder.encode(photo, as: format, quality: 90)
        #expect(low.count < high.count)
    }

    @Test(arguments: [ImageFormat.webp, .avif])
    func thumbnailsCarryNoMetadata(_ format: ImageFormat) throws {
        // flower2.webp carries ICC, EXIF and XMP chunks; icc-444.avif an ICC profile and Exif/XMP items.
        for name in ["webp/icc-exif-xmp.webp", "avif/icc-444.avif"] {
            let made = try Thumbnailer().makeThumbnail(from: Fixtures.data(name), ThumbnailRequest(size: 64, format: format))
            #expect(made.format == format)
            let info = try ImageDecoder.probe(made.data)
            #expect(info.colorProfile == nil && info.orientation == .identity)
            let text = String(decoding: made.data, as: UTF8.self)
            #expect(!text.contains("Exif") && !text.contains("EXIF") && !text.contains("XMP") && !text.contains("ICCP"))
        }
    }
}
