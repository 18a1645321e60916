import Foundation
@testable import ImageDecode
import Processing
import Testing
@testable import ThumbcacheKit

/// serve's render of one source (`ProcessedRenderer`): its probe, its memory estimate, a trim scan and the render read
/// one open of the source (`EncodedImage.openedOnce`), so librsvg parses an SVG once a render (it parsed it four times
/// with a trim). Parses are counted on the calling thread: the test drives the renderer on one.
struct ProcessedRendererTests {
    static let svg = Data("""
        <svg xmlns='http://www.w3.org/2000/svg' width='400' height='300'>
        <rect width='400' height='300' fill='#fff'/><rect x='40' y='30' width='320' height='240' fill='#2b6cb0'/>
        <circle cx='200' cy='150' r='90' fill='#fbd38d' fill-opacity='0.6'/></svg>
        """.utf8)

    @Test(arguments: ["rs:fit:200:200", "rs:fill:120:120/g:sm", "trim:10/rs:fit:150:150", "rs:fit:800:800"])
    func anSVGRenderParsesItOnce(options text: String) throws {
        let options = try ProcessingOptions(parsing: text)
        let original = CacheMetadata.Original(format: "svg", width: 400, height: 300, bytes: Self.svg.count, alpha: true,
                                              digest: "d")
        let limits = RenderLimits()
        let before = SVGDocument.parsesOnThisThread
        let renderer = ProcessedRenderer(options: options, input: .data(Self.svg), inputIsOriginal: true, original: original,
                                         maxResultSide: 8192, limits: limits)
        #expect(try renderer.workingMemory(format: .png, fallback: nil) > 0)
        let made = try renderer.render(format: .png, defaultQuality: { _ in 80 }, url: "test")
        #expect(SVGDocument.parsesOnThisThread - before == 1)

        // The same bytes as reads that each open the source.
        let input = EncodedImage.data(Self.svg)
        let info = try ImageDecoder.probe(input, maxPixels: limits.maxPixels)
        var plan = try options.plan(for: info, maxResultSide: 8192)
        if let trim = try options.trimBounds(of: input, limits: limits) {
            plan = try options.plan(for: info, maxResultSide: 8192, trim: trim)
        }
        let reference = try options.render(input, plan: plan, sourceInfo: info, format: .png, defaultQuality: { _ in 80 },
                                           limits: limits)
        #expect(made.data == reference.data)
        #expect((made.width, made.height) == (reference.width, reference.height))
    }

    /// A download's probe (made when it arrives, for the entry's header) and its render read the same open
    /// (`FetchedOriginal.opened`, handed on by `Origin.originalImage`).
    @Test func aDownloadedSVGsProbeAndRenderShareOneParse() throws {
        let downloaded = FetchedOriginal(data: Self.svg)
        let original = CacheMetadata.Original(format: "svg", width: 400, height: 300, bytes: Self.svg.count, alpha: true,
                                              digest: "d")
        let before = SVGDocument.parsesOnThisThread
        let info = try Thumbnailer().probe(downloaded.opened)
        let origin = ThumbnailPipeline.Origin(metadata: CacheMetadata(url: "file:///a.svg", headers: [:], requestTime: Date(),
                                                                      responseTime: Date(), original: original),
                                              servedFrom: .network, downloaded: downloaded, downloadedBytes: Self.svg.count,
                                              entry: nil)
        let (input, _) = try origin.originalImage(url: "file:///a.svg")
        let renderer = ProcessedRenderer(options: try ProcessingOptions(parsing: "rs:fit:100:100"), input: input,
                                         inputIsOriginal: true, original: original, maxResultSide: 8192, limits: RenderLimits())
        _ = try renderer.workingMemory(format: .png, fallback: nil)
        let made = try renderer.render(format: .png, defaultQuality: { _ in 80 }, url: "test")
        #expect(SVGDocument.parsesOnThisThread - before == 1)
        #expect((info.width, info.height) == (400, 300))
        #expect((made.width, made.height) == (100, 75))
    }

    /// Before a render waits for a worker the parsed document is let go (`releaseBeforeWaiting`): the wait holds
    /// nothing the memory budget has not reserved, and the render parses again, to the same bytes.
    @Test func aRenderWaitingForAWorkerHoldsNoParsedDocument() throws {
        let options = try ProcessingOptions(parsing: "rs:fit:200:200")
        let original = CacheMetadata.Original(format: "svg", width: 400, height: 300, bytes: Self.svg.count, alpha: true,
                                              digest: "d")
        let before = SVGDocument.parsesOnThisThread
        let renderer = ProcessedRenderer(options: options, input: .data(Self.svg), inputIsOriginal: true, original: original,
                                         maxResultSide: 8192, limits: RenderLimits())
        _ = try renderer.workingMemory(format: .png, fallback: nil)
        #expect(SVGDocument.parsesOnThisThread - before == 1)
        renderer.releaseBeforeWaiting()
        let made = try renderer.render(format: .png, defaultQuality: { _ in 80 }, url: "test")
        #expect(SVGDocument.parsesOnThisThread - before == 2)
        let kept = ProcessedRenderer(options: options, input: .data(Self.svg), inputIsOriginal: true, original: original,
                                     maxResultSide: 8192, limits: RenderLimits())
        #expect(try kept.render(format: .png, defaultQuality: { _ in 80 }, url: "test").data == made.data)
    }
}
