import Foundation
import ImageDecode
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// Quality per format (issue 20): `FormatQualities` parsed as imgproxy's `IMGPROXY_FORMAT_QUALITY`, the pipeline
/// encoding each format at its own quality, a processed variant rendered again when its format's quality changes,
/// and a negotiated format that answers the default format instead when it would be larger. Real origin on 127.0.0.1.
@Suite(.serialized) struct FormatQualityTests {
    @Test func itemsAreParsedLastOneWinning() throws {
        let qualities = try FormatQualities(parsing: ["jpeg=85, avif=50", "webp=70", "jpg=90"])
        #expect(qualities.overrides == [.jpeg: 90, .avif: 50, .webp: 70])
        #expect(qualities[.avif] == 50)
        let unset = FormatQualities()
        for format in ImageFormat.encodable { #expect(unset[format] == ImageEncoder.defaultQuality(for: format)) }
    }

    @Test(arguments: [
        ("avif", FormatQualities.ParseError.notAPair(item: "avif")),
        ("avif=60,webp", .notAPair(item: "webp")),
        ("svg=50", .unknownFormat(item: "svg=50")),
        ("avif=0", .badQuality(item: "avif=0")),
        ("webp=101", .badQuality(item: "webp=101")),
        ("jpeg=high", .badQuality(item: "jpeg=high")),
    ])
    func aBadItemIsRefusedByName(_ list: String, _ expected: FormatQualities.ParseError) {
        #expect(throws: expected) { try FormatQualities(parsing: [list]) }
        #expect(expected.description.contains(expected.item))
    }

    /// AVIF and WebP defaults below JPEG's (the measured table): each is encoded at its own, and a processed
    /// variant stored at one AVIF quality is rendered again after the default changes; the JPEG one is not.
    @Test func eachFormatHasItsQualityAndAVariantFollowsItsFormatsQuality() async throws {
        let server = try OriginServer()
        server.route("/q.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/q.jpg"))
        let options = try ProcessingOptions(parsing: "rs:fit:100:100")
        let avif = try await harness.pipeline.processed(for: source, options: options, format: .avif)
        let jpeg = try await harness.pipeline.processed(for: source, options: options, format: .jpeg)
        let atDefault = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(
            parsing: "rs:fit:100:100/q:\(ImageEncoder.defaultQuality(for: .avif))"), format: .avif)
        #expect(avif.rendered && avif.format == .avif && atDefault.data == avif.data)

        try await harness.reopen { $0.formatQuality.set(90, for: .avif) }
        let avif90 = try await harness.pipeline.processed(for: source, options: options, format: .avif)
        #expect(avif90.rendered && avif90.format == .avif, "a changed AVIF default renders the AVIF variant again")
        #expect(avif90.data.count > avif.data.count)
        let jpegAgain = try await harness.pipeline.processed(for: source, options: options, format: .jpeg)
        #expect(jpegAgain.servedFrom == .disk && jpegAgain.data == jpeg.data, "JPEG's quality did not change")
        await harness.close()
        server.shutdown()
    }

    /// AVIF at 100 is far larger than JPEG at 80: negotiated, the JPEG is answered, from the render, memory and
    /// disk alike; asked for by name, the AVIF.
    @Test func aNegotiatedFormatLargerThanTheJPEGAnswersTheJPEG() async throws {
        let server = try OriginServer()
        server.route("/n.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness { $0.formatQuality.set(100, for: .avif) }
        let source = try ImageSource(server.url("/n.jpg"))
        let negotiated = try await harness.pipeline.thumbnail(for: source, size: 128, accepted: [.avif])
        #expect(negotiated.rendered && negotiated.format == .jpeg && ImageFormat.sniff(negotiated.data) == .jpeg)
        let named = try await harness.pipeline.thumbnail(for: source, size: 128, format: .avif)
        #expect(named.format == .avif && ImageFormat.sniff(named.data) == .avif && named.data.count > negotiated.data.count)
        let fromMemory = try await harness.pipeline.thumbnail(for: source, size: 128, accepted: [.avif])
        #expect(fromMemory.servedFrom == .memory && fromMemory.data == negotiated.data && fromMemory.format == .jpeg)

        try await harness.reopen()
        let fromDisk = try await harness.pipeline.thumbnail(for: source, size: 128, accepted: [.avif])
        #expect(fromDisk.servedFrom == .disk && fromDisk.data == negotiated.data && fromDisk.format == .jpeg)
        let namedFromDisk = try await harness.pipeline.thumbnail(for: source, size: 128, format: .avif)
        #expect(namedFromDisk.servedFrom == .disk && namedFromDisk.data == named.data)

        let options = try ProcessingOptions(parsing: "rs:fit:90:90")
        let processed = try await harness.pipeline.processed(for: source, options: options, accepted: [.avif])
        #expect(processed.format == .jpeg && ImageFormat.sniff(processed.data) == .jpeg)
        let processedNamed = try await harness.pipeline.processed(for: source, options: options, format: .avif)
        #expect(processedNamed.format == .avif && ImageFormat.sniff(processedNamed.data) == .avif)
        try await harness.reopen()
        let processedFromDisk = try await harness.pipeline.processed(for: source, options: options, accepted: [.avif])
        #expect(processedFromDisk.servedFrom == .disk && processedFromDisk.data == processed.data && processedFromDisk.format == .jpeg)
        #expect(server.requestCount("/n.jpg") == 1)
        await harness.close()
        server.shutdown()
    }

    /// At the defaults the negotiated AVIF is the smaller file here, and is answered as AVIF.
    @Test func aSmallerNegotiatedFormatIsAnswered() async throws {
        let server = try OriginServer()
        server.route("/s.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/s.jpg"))
        let negotiated = try await harness.pipeline.thumbnail(for: source, size: 128, accepted: [.avif])
        let jpeg = try await harness.pipeline.thumbnail(for: source, size: 128, format: .jpeg)
        #expect(negotiated.format == .avif && FormatFallback.keepsNegotiated(negotiated.data.count, over: jpeg.data.count))
        await harness.close()
        server.shutdown()
    }
}

extension FormatQualities.ParseError {
    var item: String {
        switch self {
        case .notAPair(let item), .unknownFormat(let item), .badQuality(let item): item
        }
    }
}
