import Foundation
import Testing
@testable import ImageDecode

/// TIFF, BMP and ICO in and out: real files (imgproxy's test images, files made with vips), every BMP variant built
/// in memory with exact expected pixels, and hostile headers of each format refused or bounded.
struct TIFFBMPICOTests {
    static let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [0, 0, 255], white: [UInt8] = [255, 255, 255]

    // MARK: TIFF

    @Test(arguments: [
        ("tiff/tiled-jpeg.tiff", 256, 171, false), ("tiff/pyramid.tiff", 256, 171, false),
        ("tiff/rgb16-lzw.tiff", 256, 171, false), ("tiff/bigtiff-deflate.tiff", 96, 64, false),
        ("tiff/multipage.tiff", 64, 42, false), ("tiff/orientation-6.tiff", 40, 60, false),
        ("tiff/alpha-icc.tiff", 96, 64, true), ("tiff/grey4.tiff", 64, 42, false), ("tiff/cmyk-icc.tiff", 96, 63, false),
    ])
    func tiffFixturesDecode(name: String, width: Int, height: Int, alpha: Bool) throws {
        let data = try Fixtures.data(name)
        let info = try ImageDecoder.probe(data)
        #expect(info.format == .tiff && info.width == width && info.height == height && info.hasAlpha == alpha)
        let image = try ImageDecoder.decode(data)
        #expect(image.width == width && image.height == height && image.channels == (alpha ? 4 : 3))
    }

    @Test func tiffTagsAreRead() throws {
        #expect(try ImageDecoder.probe(Fixtures.data("tiff/orientation-6.tiff")).orientation == .rotate90)
        #expect(try ImageDecoder.probe(Fixtures.data("tiff/multipage.tiff")).frameCount == 2)
        #expect(try ImageDecoder.probe(Fixtures.data("tiff/grey4.tiff")).isGrey)
        #expect(try ImageDecoder.probe(Fixtures.data("tiff/alpha-icc.tiff")).colorProfile != nil)
    }

    /// The first page is read: the fixture's second page is the first inverted (mean 106 against 149).
    @Test func multiPageReadsTheFirstPage() throws {
        let image = try ImageDecoder.decode(Fixtures.data("tiff/multipage.tiff"))
        #expect(image.height == 42)
        let mean = Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        #expect(abs(mean - 106.07) < 1)
    }

    /// Tiled JPEG, striped LZW at 16 bits and the same pixels: the tiled file decodes to the photo vips wrote.
    @Test func sixteenBitIsReadAsItsHighByte() throws {
        let sixteen = try ImageDecoder.decode(Fixtures.data("tiff/rgb16-lzw.tiff"))
        let tiled = try ImageDecoder.decode(Fixtures.data("tiff/tiled-jpeg.tiff"))
        // The same 256 px thumbnail: the 16-bit one exactly (shifted up by vips), the tiled one through JPEG q85.
        let difference = zip(sixteen.pixels, tiled.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / sixteen.pixels.count
        #expect(difference < 4)
    }

    /// A pyramid's reduced level is read when the caller's reduction allows it, and the page otherwise (vips stops
    /// the pyramid at one tile: 256, 128 and 64 px).
    @Test func pyramidLevelIsUsedWhenEnough() throws {
        let data = try Fixtures.data("tiff/pyramid.tiff")
        for (shrink, width) in [(1.0, 256), (1.9, 256), (2.0, 128), (5.0, 64), (100.0, 64)] {
            let size = try ImageDecoder.withDecoder(for: .data(data), maxPixels: 1 << 30) { decoder throws(ImageDecodeError) in
                let started = try decoder.start(shrink: shrink, convertToSRGB: true)
                var rows = 0
                try decoder.readRows { _ in rows += 1 }
                #expect(rows == started.height)
                return started
            }
            #expect(size.width == width, "shrink \(shrink)")
        }
    }

    /// CMYK through its embedded profile: the fixture's profile exchanges red and blue (make-cmyk-icc.c), so the
    /// decoded image is the naive conversion's with R and B swapped; without conversion it is the naive one.
    @Test func cmykGoesThroughItsProfile() throws {
        let data = try Fixtures.data("tiff/cmyk-icc.tiff")
        let naive = try ImageDecoder.decode(data, convertToSRGB: false)
        let profiled = try ImageDecoder.decode(data)
        // The profile's 2-point grid is interpolated in Lab, so the swap is approximate: compare with the straight
        // reading of the same channels.
        var swapped = 0, straight = 0
        for pixel in 0..<naive.width * naive.height {
            let (r, b) = (Int(profiled.pixels[pixel * 3]), Int(profiled.pixels[pixel * 3 + 2]))
            swapped += abs(r - Int(naive.pixels[pixel * 3 + 2])) + abs(b - Int(naive.pixels[pixel * 3]))
            straight += abs(r - Int(naive.pixels[pixel * 3])) + abs(b - Int(naive.pixels[pixel * 3 + 2]))
        }
        #expect(swapped * 2 < straight)
    }

    @Test func craftedTIFFPixelsAreExact() throws {
        let pixels = Self.red + Self.green + Self.blue + Self.white
        let image = try ImageDecoder.decode(CraftedBMP.tiff(width: 2, height: 2, pixels: pixels), convertToSRGB: false)
        #expect(image.pixels == pixels)
        // Grey, min-is-white through libtiff's RGBA reader: 0 is white.
        let grey = try ImageDecoder.decode(CraftedBMP.tiff(width: 2, height: 1, samples: 1, photometric: 0, pixels: [0, 255]))
        #expect(grey.pixels == [255, 255, 255, 0, 0, 0])
    }

    /// Each layout the glue delivers in its own way: 8-bit grey widened to RGB, RGB with unused extra samples
    /// narrowed, RGBA as stored; the same pixels from bytes in memory and from a file.
    @Test func tiffRowsAreDeliveredInTheRenderersChannels() throws {
        let cases: [(data: Data, expected: [UInt8], channels: Int)] = [
            (CraftedBMP.tiff(width: 2, height: 1, samples: 1, photometric: 1, pixels: [10, 200]), [10, 10, 10, 200, 200, 200], 3),
            // Two unspecified extra samples: neither is alpha.
            (CraftedBMP.tiff(width: 2, height: 1, samples: 5, pixels: [1, 2, 3, 9, 9, 4, 5, 6, 9, 9], override: [338: (3, 2, 0)]),
             [1, 2, 3, 4, 5, 6], 3),
            // One unspecified extra sample past RGB is alpha, as before.
            (CraftedBMP.tiff(width: 2, height: 1, samples: 4, pixels: [1, 2, 3, 9, 4, 5, 6, 9]), [1, 2, 3, 9, 4, 5, 6, 9], 4),
            (CraftedBMP.tiff(width: 2, height: 1, samples: 4, pixels: [1, 2, 3, 9, 4, 5, 6, 250], override: [338: (3, 1, 2)]),
             [1, 2, 3, 9, 4, 5, 6, 250], 4),
        ]
        for (data, expected, channels) in cases {
            let path = try Fixtures.temporaryFile(data, suffix: "tiff")
            defer { try? FileManager.default.removeItem(atPath: path) }
            for input in [EncodedImage.data(data), .file(path)] {
                let image = try Fixtures.decodeRows(input, shrink: 1)
                #expect(image.pixels == expected && image.channels == channels)
            }
        }
    }

    /// A TIFF file is read by libtiff a strip or tile at a time (`TIFFDecoder(file:)`), not into memory: every
    /// fixture gives the same rows, and a cut file the same kind of error, as its bytes in memory do.
    @Test func aTIFFFileDecodesAsItsBytesDo() throws {
        let names = ["tiled-jpeg", "pyramid", "rgb16-lzw", "bigtiff-deflate", "multipage", "orientation-6", "alpha-icc",
                     "grey4", "cmyk-icc"]
        for name in names {
            let data = try Fixtures.data("tiff/\(name).tiff")
            let path = Fixtures.directory.appendingPathComponent("tiff/\(name).tiff").path
            for shrink in [1.0, 5.0] {
                let fromFile = try Fixtures.decodeRows(.file(path), shrink: shrink)
                #expect(fromFile == (try Fixtures.decodeRows(.data(data), shrink: shrink)), "\(name) at shrink \(shrink)")
            }
        }
        let cut = try Fixtures.data("tiff/rgb16-lzw.tiff").prefix(40_000)
        let cutPath = try Fixtures.temporaryFile(Data(cut), suffix: "tiff")
        defer { try? FileManager.default.removeItem(atPath: cutPath) }
        var inMemory: ImageDecodeError?, fromFile: ImageDecodeError?
        do { _ = try Fixtures.decodeRows(.data(Data(cut)), shrink: 1) } catch { inMemory = error }
        do { _ = try Fixtures.decodeRows(.file(cutPath), shrink: 1) } catch { fromFile = error }
        // The same case; libtiff's message names the file ("memory") only when it reads rather than maps.
        let kind = { (error: ImageDecodeError?) in error.map { "\($0)".prefix { $0 != ":" } } }
        #expect(inMemory != nil && kind(inMemory) == kind(fromFile), "\(String(describing: inMemory)) / \(String(describing: fromFile))")
    }

    /// A tile whose offset points past the end of the data (fuzz seed 53, iteration 7174) is truncated whether the
    /// bytes are in memory or read from a file: libtiff fails the mapped read without a word and says "Read error"
    /// reading pieces, so the glue judges it from the directory instead.
    @Test func aTilePastTheEndIsTruncatedFromBytesAndFromAFile() throws {
        var data = try Fixtures.data("tiff/tiled-jpeg.tiff")
        // Classic little-endian TIFF: the first IFD's TileOffsets (324) point at 12 LONGs; the first goes far past the end.
        let word = { (at: Int, size: Int) in (0..<size).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        let ifd = word(4, 4)
        let entry = (0..<word(ifd, 2)).map { ifd + 2 + 12 * $0 }.first { word($0, 2) == 324 }
        let offsets = try #require(entry.map { word($0 + 8, 4) })
        for (i, byte) in [0x00, 0x00, 0x48, 0x00].enumerated() { data[offsets + i] = UInt8(byte) }  // 4,718,592
        let path = try Fixtures.temporaryFile(data, suffix: "tiff")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ImageDecodeError.truncated) { _ = try Fixtures.decodeRows(.data(data), shrink: 1) }
        #expect(throws: ImageDecodeError.truncated) { _ = try Fixtures.decodeRows(.file(path), shrink: 1) }
    }

    @Test func tiffRoundTripsLosslessly() throws {
        for channels in [3, 4] {
            let pixels = (0..<(7 * 5 * channels)).map { UInt8(truncatingIfNeeded: $0 * 37) }
            let image = PixelBuffer(width: 7, height: 5, channels: channels, pixels: pixels)
            let encoded = try ImageEncoder.encode(image, as: .tiff)
            #expect(ImageFormat.sniff(encoded) == .tiff)
            #expect(try ImageDecoder.decode(encoded, convertToSRGB: false) == image)
        }
        // Copyright goes in TIFF's own tag, and comes back as EXIF's.
        let image = PixelBuffer(width: 2, height: 2, channels: 3, pixels: [UInt8](repeating: 9, count: 12))
        let encoded = try ImageEncoder.encode(image, as: .tiff, metadata: ImageMetadata(artist: "A", copyright: "(c) T"))
        #expect(try ImageDecoder.probe(encoded).metadata.copyright == "(c) T")
    }

    // MARK: Hostile TIFF

    @Test func hostileTIFFsAreRefused() throws {
        let pixels = [UInt8](repeating: 7, count: 12)
        // A strip that claims far more bytes than the file has: libtiff reads only the 12 bytes the size needs.
        let hugeStrip = CraftedBMP.tiff(width: 2, height: 2, pixels: pixels, override: [279: (4, 1, 0x7FFF_FFF0)])
        #expect(try ImageDecoder.decode(hugeStrip).pixels == pixels)
        // Compressed (deflate), the same claim is refused: the data is not there.
        let hugeDeflate = CraftedBMP.tiff(width: 2, height: 2, compression: 8, pixels: pixels, override: [279: (4, 1, 0x7FFF_FFF0)])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(hugeDeflate) }
        // Dimensions over the pixel limit: refused from the header.
        let huge = CraftedBMP.tiff(width: 1_000_000, height: 1_000_000, pixels: pixels)
        #expect(throws: ImageDecodeError.tooLarge(width: 1_000_000, height: 1_000_000, limit: ImageDecoder.defaultMaxPixels)) {
            try ImageDecoder.decode(huge)
        }
        // A compression scheme libtiff does not know.
        let unknown = CraftedBMP.tiff(width: 2, height: 2, pixels: pixels, override: [259: (3, 1, 12345)])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(unknown) }
        // Zero width.
        #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.decode(CraftedBMP.tiff(width: 0, height: 2, pixels: pixels))
        }
        // Cut inside the pixel data, and inside the header.
        let whole = CraftedBMP.tiff(width: 2, height: 2, pixels: pixels)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(whole.prefix(9)) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Data("II*\0".utf8)) }
    }

    /// An IFD chain that points back at itself ends: the first page is read (libtiff refuses the loop).
    @Test func anIFDLoopEnds() throws {
        let pixels = [UInt8](repeating: 7, count: 12)
        let probe = CraftedBMP.tiff(width: 2, height: 2, pixels: pixels)
        let ifdOffset = Int(probe[4]) | Int(probe[5]) << 8
        let looped = CraftedBMP.tiff(width: 2, height: 2, pixels: pixels, nextIFD: ifdOffset)
        let image = try ImageDecoder.decode(looped)
        #expect(image.width == 2)
    }

    // MARK: BMP

    /// 2x2, bottom-up 24-bit: the first stored row is the bottom one.
    @Test func bmp24BottomUpAndTopDown() throws {
        let bottom: [UInt8] = [255, 255, 255, 255, 0, 0, 0, 0]  // white, blue (BGR) + 2 padding
        let top: [UInt8] = [0, 0, 255, 0, 255, 0, 0, 0]  // red, green
        let expected = Self.red + Self.green + Self.white + Self.blue
        let up = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: 2, bpp: 24, pixels: bottom + top))
        #expect(up.pixels == expected)
        let down = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: -2, bpp: 24, pixels: top + bottom))
        #expect(down.pixels == expected)
    }

    @Test func bmpPalettesAtOneFourAndEightBits() throws {
        let palette = CraftedBMP.palette([Self.red, Self.green, Self.blue, Self.white])
        // 1 bit: 10 pixels, 1010000011 → red/green of the first two entries.
        let one = try ImageDecoder.decode(CraftedBMP.make(width: 10, height: -1, bpp: 1, colorsUsed: 2, extra: Array(palette.prefix(8)),
                                                          pixels: [0b1010_0000, 0b1100_0000, 0, 0]))
        let bits = [1, 0, 1, 0, 0, 0, 0, 0, 1, 1]
        #expect(one.pixels == bits.flatMap { $0 == 1 ? Self.green : Self.red })
        // 4 bits: 3 pixels 0, 3, 2.
        let four = try ImageDecoder.decode(CraftedBMP.make(width: 3, height: -1, bpp: 4, colorsUsed: 4, extra: palette,
                                                           pixels: [0x03, 0x20, 0, 0]))
        #expect(four.pixels == Self.red + Self.white + Self.blue)
        // 8 bits, palette of 4: an index past it is black.
        let eight = try ImageDecoder.decode(CraftedBMP.make(width: 3, height: -1, bpp: 8, colorsUsed: 4, extra: palette,
                                                            pixels: [1, 2, 200, 0]))
        #expect(eight.pixels == Self.green + Self.blue + [0, 0, 0])
    }

    @Test func bmp16BitFieldsAndDefault555() throws {
        // 5-6-5 via BITFIELDS after a 40-byte header: pure red, green, blue.
        let masks = [0xF800, 0x07E0, 0x001F].flatMap(CraftedBMP.u32)
        let rgb565 = try ImageDecoder.decode(CraftedBMP.make(width: 3, height: -1, bpp: 16, compression: 3, extra: masks,
                                                             pixels: CraftedBMP.u16(0xF800) + CraftedBMP.u16(0x07E0) + CraftedBMP.u16(0x001F) + [0, 0]))
        #expect(rgb565.pixels == Self.red + Self.green + Self.blue)
        // BI_RGB 16-bit is 5-5-5.
        let rgb555 = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: -1, bpp: 16,
                                                             pixels: CraftedBMP.u16(0x7C00) + CraftedBMP.u16(0x03E0)))
        #expect(rgb555.pixels == Self.red + Self.green)
    }

    @Test func bmp32AlphaAsImgproxyReadsIt() throws {
        let pixels: [UInt8] = [0, 0, 255, 128, 255, 0, 0, 255]  // BGRA: red at half alpha, blue opaque
        let info40 = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: -1, bpp: 32, pixels: pixels))
        #expect(info40.channels == 4 && info40.pixels == [255, 0, 0, 128, 0, 0, 255, 255])
        // All alpha bytes 0: the writer left the byte unused; opaque.
        let unused = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: -1, bpp: 32, pixels: [0, 0, 255, 0, 255, 0, 0, 0]))
        #expect(unused.channels == 3 && unused.pixels == Self.red + Self.blue)
        // A V5 header whose alpha mask is 0: no alpha (imgproxy).
        let v5 = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: -1, bpp: 32, headerSize: 124,
                                                         masks: [0xFF0000, 0xFF00, 0xFF, 0], pixels: pixels))
        #expect(v5.channels == 3)
    }

    /// RLE8: a run, an absolute run, end of line, a move (skipped pixels black), end of bitmap; rows bottom-up.
    @Test func bmpRLE8() throws {
        let palette = CraftedBMP.palette([Self.red, Self.green, Self.blue, Self.white])
        let commands: [UInt8] = [
            2, 1, 0, 0,  // stored row 0 (the bottom): two greens, end of line
            0, 3, 2, 3, 0, 0, 0, 0,  // stored row 1: absolute run blue, white, red (padded), end of line
            0, 2, 1, 1,  // stored row 2: move right 1 and up 1 (row 2 stays empty)
            1, 3, 9, 2, 0, 1,  // stored row 3 from x 1: a white, a run of 9 blues clipped at the row's end; end of bitmap
        ]
        let image = try ImageDecoder.decode(CraftedBMP.make(width: 3, height: 4, bpp: 8, compression: 1, colorsUsed: 4,
                                                            extra: palette, pixels: commands))
        let black: [UInt8] = [0, 0, 0]
        #expect(image.pixels == black + Self.white + Self.blue + black + black + black + Self.blue + Self.white + Self.red
                + Self.green + Self.green + black)
    }

    @Test func bmpRLE4() throws {
        let palette = CraftedBMP.palette([Self.red, Self.green, Self.blue, Self.white])
        // One row of 6: a run of 3 alternating 1/2, an absolute run of 3 (3, 0, 1), end of bitmap.
        let commands: [UInt8] = [3, 0x12, 0, 3, 0x30, 0x10, 0, 1]
        let image = try ImageDecoder.decode(CraftedBMP.make(width: 6, height: 1, bpp: 4, compression: 2, colorsUsed: 4,
                                                            extra: palette, pixels: commands))
        #expect(image.pixels == Self.green + Self.blue + Self.green + Self.white + Self.red + Self.green)
    }

    @Test func bmpOS2CoreHeader() throws {
        // 12-byte header, 3-byte palette entries, 8-bit.
        let header = CraftedBMP.u32(12) + CraftedBMP.u16(2) + CraftedBMP.u16(1) + CraftedBMP.u16(1) + CraftedBMP.u16(8)
        let palette: [UInt8] = [0, 0, 255, 0, 255, 0] + [UInt8](repeating: 0, count: 254 * 3)
        let pixels: [UInt8] = [1, 0, 0, 0]
        let offset = 14 + header.count + palette.count
        let file = Array("BM".utf8) + CraftedBMP.u32(offset + 4) + CraftedBMP.u32(0) + CraftedBMP.u32(offset)
        let image = try ImageDecoder.decode(Data(file + header + palette + pixels))
        #expect(image.pixels == Self.green + Self.red)
    }

    @Test(arguments: ["bmp/1-bpp.bmp", "bmp/8-bpp-rle-small.bmp", "bmp/8-bpp-rle-single-color.bmp", "bmp/32-bpp-with-alpha-self-gen.bmp"])
    func imgproxyBMPsDecode(name: String) throws {
        let data = try Fixtures.data(name)
        let info = try ImageDecoder.probe(data)
        let image = try ImageDecoder.decode(data)
        #expect(info.format == .bmp && image.width == info.width && image.height == info.height)
    }

    @Test func bmpRoundTripsLosslessly() throws {
        for channels in [3, 4] {
            let pixels = (0..<(5 * 3 * channels)).map { UInt8(truncatingIfNeeded: $0 * 41 + 1) }
            let image = PixelBuffer(width: 5, height: 3, channels: channels, pixels: pixels)
            let encoded = try ImageEncoder.encode(image, as: .bmp)
            #expect(ImageFormat.sniff(encoded) == .bmp)
            #expect(try ImageDecoder.decode(encoded) == image)
        }
        // Grey: an 8-bit palette file, read back as the same neutral RGB.
        let grey = PixelBuffer(width: 3, height: 1, channels: 3, pixels: [10, 10, 10, 200, 200, 200, 0, 0, 0])
        let encoded = try ImageEncoder.encode(grey, as: .bmp, grey: true)
        #expect(encoded[28] == 8)
        #expect(try ImageDecoder.decode(encoded) == grey)
    }

    // MARK: Hostile BMP

    @Test func hostileBMPsAreRefusedOrBounded() throws {
        // Huge width x height with a few bytes of data: over the pixel limit from the header…
        let huge = CraftedBMP.make(width: 100_000, height: 100_000, bpp: 24, pixels: [1, 2, 3, 4])
        #expect(throws: ImageDecodeError.tooLarge(width: 100_000, height: 100_000, limit: ImageDecoder.defaultMaxPixels)) {
            try ImageDecoder.decode(huge)
        }
        // …and within it, refused as truncated before any row is allocated.
        let big = CraftedBMP.make(width: 5000, height: 5000, bpp: 24, pixels: [1, 2, 3, 4])
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(big) }
        // Zero and negative sizes.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(CraftedBMP.make(width: 0, height: 1, bpp: 24, pixels: [0, 0, 0, 0])) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(CraftedBMP.make(width: -3, height: 1, bpp: 24, pixels: [0, 0, 0, 0])) }
        #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.decode(CraftedBMP.make(width: 1, height: Int(Int32.min), bpp: 24, pixels: [0, 0, 0, 0]))
        }
        // A palette of 300 colours at 8 bits (imgproxy refuses it too).
        #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 8, colorsUsed: 300, pixels: [0, 0, 0, 0]))
        }
        // Bit fields all zero.
        #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 16, compression: 3, extra: [UInt8](repeating: 0, count: 12),
                                                    pixels: [0, 0, 0, 0]))
        }
        // 40 bits a pixel (imgproxy's bmp-invalid-bpp.bmp), JPEG inside BMP, and a header size nobody wrote.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 40, pixels: [0, 0, 0, 0, 0, 0, 0, 0])) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 24, compression: 4, pixels: [0, 0, 0, 0])) }
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 24, headerSize: 200, pixels: [0, 0, 0, 0])) }
        // A pixel offset past the end of the file.
        #expect(throws: ImageDecodeError.self) {
            try ImageDecoder.decode(CraftedBMP.make(width: 1, height: 1, bpp: 24, pixels: [0, 0, 0, 0], declaredOffset: 1 << 30))
        }
        // RLE: runs and moves far past the row and the image are clipped; data that stops early is truncated.
        let palette = CraftedBMP.palette([Self.red, Self.green])
        let overrun = try ImageDecoder.decode(CraftedBMP.make(width: 2, height: 2, bpp: 8, compression: 1, colorsUsed: 2, extra: palette,
                                                              pixels: [255, 1, 0, 2, 255, 255, 0, 1]))
        #expect(overrun.width == 2 && overrun.height == 2)
        #expect(throws: ImageDecodeError.truncated) {
            try ImageDecoder.decode(CraftedBMP.make(width: 2, height: 2, bpp: 8, compression: 1, colorsUsed: 2, extra: palette, pixels: [2, 1]))
        }
        // An absolute run that claims more bytes than remain.
        #expect(throws: ImageDecodeError.truncated) {
            try ImageDecoder.decode(CraftedBMP.make(width: 200, height: 1, bpp: 8, compression: 1, colorsUsed: 2, extra: palette, pixels: [0, 200, 1]))
        }
    }

    // MARK: ICO

    @Test func icoChoosesTheLargestEntry() throws {
        let small = CraftedBMP.iconDIB(width: 1, height: 1, bpp: 24, xor: [0, 0, 255, 0], and: [0, 0, 0, 0])
        // 2x2 24-bit, bottom-up: bottom row white/blue, top row red/green; the AND mask makes the bottom-left clear.
        let large = CraftedBMP.iconDIB(width: 2, height: 2, bpp: 24, xor: [255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0],
                                       and: [0x80, 0, 0, 0, 0, 0, 0, 0])
        let icon = CraftedBMP.icon([(1, 1, 24, small), (2, 2, 24, large)])
        let info = try ImageDecoder.probe(icon)
        #expect(info.format == .ico && info.width == 2 && info.height == 2 && info.hasAlpha)
        let image = try ImageDecoder.decode(icon)
        #expect(image.pixels == Self.red + [255] + Self.green + [255] + Self.white + [0] + Self.blue + [255])
    }

    @Test func icoWithAPNGEntry() throws {
        let png = PixelBuffer(width: 3, height: 2, channels: 4, pixels: (0..<24).map { UInt8($0 * 10) })
        let encoded = try ImageEncoder.encode(png, as: .png)
        let icon = CraftedBMP.icon([(3, 2, 32, Array(encoded))])
        #expect(try ImageDecoder.decode(icon) == png)
    }

    @Test(arguments: ["ico/single-bmp.ico", "ico/multi-png.ico", "ico/multi-bmp.ico"])
    func imgproxyICOsDecode(name: String) throws {
        let info = try ImageDecoder.probe(Fixtures.data(name))
        let image = try ImageDecoder.decode(Fixtures.data(name))
        #expect(info.format == .ico && image.width == info.width && image.width >= 16)
    }

    @Test func icoRoundTripAndTheSizeLimit() throws {
        let image = PixelBuffer(width: 4, height: 3, channels: 4, pixels: (0..<48).map { UInt8($0 * 5) })
        let encoded = try ImageEncoder.encode(image, as: .ico)
        #expect(ImageFormat.sniff(encoded) == .ico)
        #expect(try ImageDecoder.decode(encoded) == image)
        // Over 256 px: scaled to fit, as imgproxy does.
        let wide = PixelBuffer(width: 600, height: 300, channels: 3, pixels: [UInt8](repeating: 90, count: 600 * 300 * 3))
        let fitted = try ImageDecoder.probe(ImageEncoder.encode(wide, as: .ico))
        #expect(fitted.width == 256 && fitted.height == 128)
    }

    @Test func hostileICOsAreRefusedOrBounded() throws {
        // No entries.
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Data([0, 0, 1, 0, 0, 0])) }
        // Many entries whose data lies past the end of the file.
        let entry = CraftedBMP.iconDIB(width: 1, height: 1, bpp: 24, xor: [0, 0, 255, 0], and: [0, 0, 0, 0])
        let many = CraftedBMP.icon(Array(repeating: (1, 1, 24, entry), count: 1000), offsets: Array(repeating: 1 << 30, count: 1000))
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(many) }
        // A directory longer than the file.
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(Data([0, 0, 1, 0, 0xFF, 0xFF, 1, 2])) }
        // A PNG entry whose header claims 100000 x 100000: held to the pixel limit by the PNG's own size.
        var bomb = Array(try ImageEncoder.encode(PixelBuffer(width: 1, height: 1, channels: 3, pixels: [1, 2, 3]), as: .png))
        bomb.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        let nested = CraftedBMP.icon([(16, 16, 32, bomb)])
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(nested) }
        do { _ = try ImageDecoder.decode(nested) } catch {
            // libpng checks the header's CRC first; either refusal allocates nothing for 10^10 pixels.
            #expect(error == .tooLarge(width: 100_000, height: 100_000, limit: ImageDecoder.defaultMaxPixels) || "\(error)".contains("CRC"))
        }
    }
}
