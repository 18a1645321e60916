import Foundation
import Testing
@testable import ImageDecode

/// A source opened once (`OpenedImage`) serves the probe, the memory estimate, a trim scan and the render from one
/// open: librsvg parses an SVG once a thumbnail (it parsed it two to four times), and the pixels are those of a render
/// that opens the source for each read. Parses are counted by the glue on the calling thread, so each test keeps its
/// reads on one thread (or sums the threads it uses).
struct OpenedImageTests {
    static let fixtures = ["svg/test1.svg", "svg/shapes-rect-01-t.svg", "svg/filters-gauss-01-b.svg",
                           "svg/struct-image-01-t.svg", "svg/struct-use-recursion-01-t.svg", "svg/hostile/blur-stroke.svg",
                           "svg/test1.sanitized.svg", "svg/hostile/huge-canvas.svg", "svg/hostile/external-refs.svg"]

    /// `body`'s result and the documents it parsed on this thread.
    static func counting<Result>(_ body: () throws -> Result) rethrows -> (Result, parses: Int) {
        let before = SVGDocument.parsesOnThisThread
        let result = try body()
        return (result, SVGDocument.parsesOnThisThread - before)
    }

    @Test(arguments: fixtures)
    func aThumbnailParsesItsSVGOnceWithThePixelsOfOneOpenPerRead(name: String) throws {
        let data = try Fixtures.data(name)
        for request in [ThumbnailRequest(size: 256, format: .png), ThumbnailRequest(size: 64, fit: .cover, format: .png),
                        ThumbnailRequest(size: 900, format: .png, maxPixels: 200_000)] {
            let (made, parses) = try Self.counting { try Thumbnailer().makeThumbnail(from: data, request) }
            #expect(parses == 1, "\(name) at \(request.size)")
            // The render as it was before, each read opening (and parsing) the source anew.
            let (reference, referenceParses) = try Self.counting {
                let info = try ImageDecoder.probe(.data(data), maxPixels: request.maxPixels)
                let image = try PlanRenderer().render(from: .data(data), plan: request.plan(for: info), limits: request.limits)
                return try EncodeSettings(format: .png, quality: request.quality, metadata: request.metadata)
                    .answer(image, sourceInfo: info)
            }
            #expect(referenceParses == 2)
            #expect(made.data == reference.data, "\(name) at \(request.size)")
            #expect((made.width, made.height) == (reference.width, reference.height))
        }
    }

    /// The estimate a caller reserves before the render is read from the same parse.
    @Test func theEstimateAndTheThumbnailShareOneParse() throws {
        let input = EncodedImage.data(try Fixtures.data("svg/shapes-rect-01-t.svg")).openedOnce()
        let request = ThumbnailRequest(size: 128, format: .png)
        let (memory, parses) = try Self.counting {
            let memory = try Thumbnailer().workingMemory(for: input, request)
            _ = try Thumbnailer().makeThumbnail(from: input, request)
            return memory
        }
        #expect(memory > 0)
        #expect(parses == 1)
    }

    /// Probed without a pixel limit, then rendered under one: the kept parse is sized for each limit (imgproxy's
    /// vector guard scale), as two opens would have sized it.
    @Test func eachReadGetsTheSizeOfItsOwnPixelLimit() throws {
        let data = try Fixtures.data("svg/hostile/huge-canvas.svg")
        let input = EncodedImage.data(data).openedOnce()
        let ((whole, fitted), parses) = try Self.counting {
            (try ImageDecoder.probe(input), try ImageDecoder.probe(input, maxPixels: 1_000_000))
        }
        #expect(parses == 1)
        #expect(whole == (try ImageDecoder.probe(.data(data))))
        #expect(fitted == (try ImageDecoder.probe(.data(data), maxPixels: 1_000_000)))
        #expect(fitted.width * fitted.height <= 1_000_000)
        #expect(whole.width > fitted.width)
    }

    /// Opened on one thread and drawn on another (serve probes on the request's task and renders on a worker): the
    /// kept parse crosses with the Sendable `OpenedImage`, and the second thread parses nothing.
    @Test func aParseMadeOnOneThreadIsDrawnOnAnother() async throws {
        let data = try Fixtures.data("svg/test1.svg")
        let input = EncodedImage.data(data).openedOnce()
        let request = ThumbnailRequest(size: 100, format: .png)
        let (_, probeParses) = try Self.counting { try ImageDecoder.probe(input, maxPixels: request.maxPixels) }
        let (made, renderParses) = try await Task.detached {
            try Self.counting { try Thumbnailer().makeThumbnail(from: input, request) }
        }.value
        #expect(probeParses == 1)
        #expect(renderParses == 0)
        #expect(made.data == (try Thumbnailer().makeThumbnail(from: data, request)).data)
    }

    /// A raster's decoder is spent once started and its open is a header read: each read opens it, as before.
    @Test func aRasterIsOpenedForEachRead() throws {
        let data = try Fixtures.data("rocket.jpg")
        let request = ThumbnailRequest(size: 64, format: .png)
        let input = EncodedImage.data(data).openedOnce()
        let first = try Thumbnailer().makeThumbnail(from: input, request)
        let second = try Thumbnailer().makeThumbnail(from: input, request)
        #expect(first.data == second.data)
        #expect(first.data == (try Thumbnailer().makeThumbnail(from: data, request)).data)
    }

    /// A document librsvg refuses is refused the same way opened; nothing is kept, so the next read tries again.
    @Test func aRefusedDocumentIsRefusedOnEveryRead() throws {
        let input = EncodedImage.data(try Fixtures.data("svg/hostile/truncated.svg")).openedOnce()
        let expected = try #require(throws: ImageDecodeError.self) { try ImageDecoder.probe(.data(Fixtures.data("svg/hostile/truncated.svg"))) }
        #expect(throws: expected) { try ImageDecoder.probe(input) }
        #expect(throws: expected) { try Thumbnailer().makeThumbnail(from: input, ThumbnailRequest(size: 64)) }
    }

    /// A document that parses but cannot be drawn (librsvg's limit on `use` references) fails in the render, after
    /// one parse, with the error it gave before.
    @Test func aDocumentThatCannotBeDrawnFailsAfterOneParse() throws {
        let data = try Fixtures.data("svg/hostile/use-bomb.svg")
        let request = ThumbnailRequest(size: 64, format: .png)
        let expected = try #require(throws: ImageDecodeError.self) {
            let info = try ImageDecoder.probe(.data(data), maxPixels: request.maxPixels)
            _ = try PlanRenderer().render(from: .data(data), plan: request.plan(for: info), limits: request.limits)
        }
        let (_, parses) = Self.counting {
            #expect(throws: expected) { try Thumbnailer().makeThumbnail(from: data, request) }
        }
        #expect(parses == 1)
    }
}
