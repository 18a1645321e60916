import Foundation
import ImageDecode

/// Images from the ImageDecode test fixtures (licenses in Tests/ImageDecodeTests/Fixtures/LICENSES.md).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ImageDecodeTests/Fixtures")

    /// libjpeg-turbo's testorig.jpg: 227x149 baseline JPEG.
    static let jpeg = try! Data(contentsOf: directory.appendingPathComponent("testorig.jpg"))
    /// The same picture as a PNG.
    static let png = try! Data(contentsOf: directory.appendingPathComponent("testorig.png"))

    /// Mean absolute difference per channel value between two same-sized images (a CLI's output against the
    /// library's).
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        return Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }
}
