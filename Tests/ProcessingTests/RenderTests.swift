import Foundation
import Testing
@testable import Processing

/// `ProcessingOptions.render`: options → plan → pixels → encoded bytes, and the quality each format gets.
@Suite struct RenderTests {
    @Test func qualityPrefersTheRequestThenTheFormatThenTheDefault() throws {
        let defaults: (ImageFormat) -> Int = { $0 == .avif ? 55 : 80 }
        #expect(try ProcessingOptions(parsing: "q:40/fq:webp:70").quality(for: .webp, default: defaults) == 40)
        #expect(try ProcessingOptions(parsing: "fq:webp:70").quality(for: .webp, default: defaults) == 70)
        #expect(try ProcessingOptions(parsing: "fq:webp:70").quality(for: .avif, default: defaults) == 55)
        #expect(try ProcessingOptions(parsing: "mb:5000").encodeSettings(for: .jpeg, default: defaults)
                == EncodeSettings(format: .jpeg, quality: 80, maxBytes: 5000))
    }

    @Test func rendersTheOptionsIntoTheirSize() throws {
        let source = PixelBuffer(width: 300, height: 200, channels: 3,
                                 pixels: (0..<(300 * 200 * 3)).map { UInt8(truncatingIfNeeded: $0 / 7) })
        let bytes = try ImageEncoder.encode(source, as: .png)
        let info = try ImageDecoder.probe(bytes)
        let options = try ProcessingOptions(parsing: "rs:fill:120:80/pd:4/bg:ffffff/bl:1/q:70")
        let plan = try options.plan(for: info, maxResultSide: 4096)
        let thumbnail = try options.render(.data(bytes), plan: plan, sourceInfo: info, format: .webp,
                                           defaultQuality: { _ in 80 })
        #expect(thumbnail.width == 128 && thumbnail.height == 88 && thumbnail.format == .webp)
        let decoded = try ImageDecoder.decode(thumbnail.data)
        #expect(decoded.width == 128 && decoded.height == 88)
    }
}
