import Foundation
import Testing
@testable import ImageDecode

/// Test inputs: small files committed under Fixtures/, and the optional shared corpus.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func pngSuiteNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("pngsuite").path)
            .filter { $0.hasSuffix(".png") }.sorted()
    }

    /// The shared corpus, from $THUMBCACHE_CORPUS or `<package>/../shared/corpus`; nil when absent
    /// (users' clones), in which case corpus-wide tests are skipped.
    static let corpus: URL? = {
        let package = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [ProcessInfo.processInfo.environment["THUMBCACHE_CORPUS"].map { URL(fileURLWithPath: $0) },
                          package.deletingLastPathComponent().appendingPathComponent("shared/corpus")]
        return candidates.compactMap { $0 }.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path)
        }
    }()

    /// Runs a long CPU-bound test loop on a thread of its own and returns what it found. Swift Testing runs
    /// the suites in parallel on the cooperative pool (one thread per core); a corpus-wide decode loop there
    /// starved other suites' timers for a minute on a 2-core machine, and their deadline tests failed.
    /// The body returns failure messages (issues cannot be recorded outside the test's task).
    static func offCooperativePool(_ body: @escaping @Sendable () throws -> [String]) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    static let corpusMissing = "shared corpus not found (set THUMBCACHE_CORPUS or place it at ../shared/corpus)"

    /// Mean absolute difference per channel value between two same-sized images.
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.pixels.count)
    }

    static func image(width: Int, height: Int, channels: Int, _ pixel: (Int, Int) -> [UInt8]) -> PixelBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * channels)
        for y in 0..<height { for x in 0..<width { pixels += pixel(x, y) } }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Stripes across both axes, `period` source pixels a period: when a thumbnail reduces them to a few output
    /// pixels a period, a shift of a fraction of an output pixel changes them by tens of levels.
    static func stripes(width: Int, height: Int, period: Double = 70) -> PixelBuffer {
        image(width: width, height: height, channels: 3) { x, y in
            let across = 100 * sin(2 * Double.pi * Double(x) / period), down = 100 * sin(2 * Double.pi * Double(y) / period)
            return [UInt8(127.5 + across), UInt8(127.5 + down), UInt8(127.5 + (across + down) / 2)]
        }
    }

    /// Resizes an in-memory image with the production resampler.
    static func resize(_ image: PixelBuffer, to width: Int, _ height: Int, boxPreShrink: Bool = true) -> PixelBuffer {
        var resampler = Resampler(sourceWidth: image.width, sourceHeight: image.height, channels: image.channels,
                                  resizedWidth: width, resizedHeight: height, boxPreShrink: boxPreShrink)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                resampler.push(UnsafeBufferPointer(rebasing: pixels[y * image.rowBytes..<(y + 1) * image.rowBytes]))
            }
        }
        return resampler.finish()
    }
}

/// Builders for tiny, hand-made files with huge or unusual headers.
enum Crafted {
    /// A PNG with signature, IHDR, a token IDAT and IEND (valid CRCs) declaring the given size.
    static func pngHeader(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2) -> Data {
        var ihdr = bigEndian(width) + bigEndian(height)
        ihdr += [bitDepth, colorType, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", []))
    }

    /// SOI, a frame header of the given marker/precision/size with one component, a scan header, EOI.
    static func jpegHeader(sof: UInt8 = 0xC0, precision: UInt8 = 8, width: UInt16, height: UInt16) -> Data {
        let frame: [UInt8] = [0xFF, sof, 0x00, 0x0B, precision, UInt8(height >> 8), UInt8(height & 0xFF),
                              UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        return Data([0xFF, 0xD8] + frame + scan + [0xFF, 0xD9])
    }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
