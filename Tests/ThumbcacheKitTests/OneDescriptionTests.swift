import Foundation
import ImageDecode
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// Issue 30 item 1: the short grammar's `size/contain|cover` is a processing description like any imgproxy URL
/// (`Rendition`), so both grammars share one request path, one render, one store and one key. Real origin on 127.0.0.1.
@Suite(.serialized) struct OneDescriptionTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    @Test func theShortGrammarIsImgproxysFitAndFill() throws {
        let contain = Rendition.thumbnail(size: 200, fit: .contain), cover = Rendition.thumbnail(size: 200, fit: .cover)
        #expect(contain.processing == CanonicalOptions(try ProcessingOptions(parsing: "rs:fit:200:200")))
        #expect(cover.processing == CanonicalOptions(try ProcessingOptions(parsing: "resize:fill:200:200:0/g:ce")))
        #expect(contain.ladderSize(in: .standard) == nil && Rendition.thumbnail(size: 256).ladderSize(in: .standard) == 256)
        #expect(cover.ladderSize(in: .standard) == nil && Rendition.thumbnail(size: 256, fit: .cover).ladderSize(in: .standard) == nil)
        // Only the default format tells them apart: JPEG unless alpha, where imgproxy keeps the source's when it
        // is a preferred format.
        let webp = CacheMetadata.Original(format: "webp", width: 10, height: 10, bytes: 1, digest: "d")
        func format(_ rendition: Rendition, _ original: CacheMetadata.Original, preferred: PreferredFormats = .imgproxy) -> ImageFormat {
            rendition.outputFormat(FormatRequest(), original: original, preferred: preferred, limits: RenderLimits()).format
        }
        #expect(format(contain, webp) == .jpeg)
        #expect(format(Rendition.processed(contain.processing), webp) == .jpeg)
        #expect(format(Rendition.processed(contain.processing), webp, preferred: try PreferredFormats(parsing: "webp,png")) == .webp)
        var alpha = webp
        alpha.alpha = true
        #expect(format(contain, alpha) == .png)
        #expect(format(contain, alpha, preferred: try PreferredFormats(parsing: "webp")) == .png)
        #expect(contain != Rendition.processed(contain.processing), "different defaults, different images")
    }

    /// One engine: what `serve` and `get` answer for the short grammar is, byte for byte, what `thumbcache thumbnail`
    /// (`Thumbnailer`) writes for the same request.
    @Test(arguments: [(FitMode.contain, 100), (.cover, 100), (.contain, 128)])
    func thePipelineAndTheThumbnailerDrawTheSameThumbnail(_ fit: FitMode, _ size: Int) async throws {
        server.route("/t.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let made = try await harness.pipeline.thumbnail(for: try ImageSource(server.url("/t.jpg")), size: size, fit: fit)
        let direct = try Thumbnailer().makeThumbnail(from: Fixtures.jpeg, ThumbnailRequest(size: size, fit: fit))
        #expect(made.rendered && made.format == direct.format && made.data == direct.data)
        await harness.close()
        server.shutdown()
    }

    /// A `cover` square was kept in memory only; as a variant it is on disk, and read back after a restart.
    @Test func aCoverSquareIsStoredAsAVariant() async throws {
        server.route("/c.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/c.jpg"))
        let made = try await harness.pipeline.thumbnail(for: source, size: 100, fit: .cover)
        #expect(made.rendered && (made.width, made.height) == (100, 100) && made.format == .jpeg)
        #expect(made.bytesStored > made.data.count, "the original and the variant")
        try await harness.reopen()
        let hit = try #require(harness.pipeline.diskHit(for: source, .thumbnail(size: 100, fit: .cover)))
        #expect(hit.servedFrom == .disk && hit.data == made.data && hit.contentDigest == SHA256Digest.hex(bytes: made.data))
        #expect(server.requestCount("/c.jpg") == 1)
        await harness.close()
        server.shutdown()
    }

    /// With the format named, a short-grammar square and the imgproxy URL that describes it are one image: the
    /// second request is a memory hit, and after a restart a disk hit, of the first one's bytes.
    @Test func aNamedFormatMakesBothGrammarsOneImage() async throws {
        server.route("/n.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let harness = try PipelineHarness()
        let source = try ImageSource(server.url("/n.jpg"))
        let short = try await harness.pipeline.thumbnail(for: source, size: 90, fit: .cover, format: .webp)
        let options = try ProcessingOptions(parsing: "rs:fill:90:90/f:webp")
        let url = try await harness.pipeline.processed(for: source, options: options)
        #expect(short.rendered && url.servedFrom == .memory && url.data == short.data)
        try await harness.reopen()
        let fromDisk = try await harness.pipeline.processed(for: source, options: options)
        #expect(fromDisk.servedFrom == .disk && !fromDisk.rendered && fromDisk.data == short.data)
        // Without a format each keeps its own default: JPEG for the short grammar, the source's (JPEG here) for the URL,
        // and two keys all the same (their defaults differ for other sources).
        let auto = try await harness.pipeline.thumbnail(for: source, size: 90, fit: .cover)
        #expect(auto.rendered && auto.format == .jpeg)
        #expect(server.requestCount("/n.jpg") == 1)
        await harness.close()
        server.shutdown()
    }
}
