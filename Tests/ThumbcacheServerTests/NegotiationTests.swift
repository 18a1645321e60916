import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Format negotiation of a real server on 127.0.0.1 fetching from a real origin on 127.0.0.1 (issue 12 §4).
@Suite(.serialized) struct NegotiationTests {
    @Test func acceptChoosesAvifThenWebpThenJpegWithVary() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 128)
        let cases: [(accept: String?, type: String)] = [
            ("image/avif,image/webp,*/*", "image/avif"),
            ("image/webp,image/*,*/*;q=0.8", "image/webp"),
            ("*/*", "image/jpeg"),
            (nil, "image/jpeg"),
        ]
        for (accept, type) in cases {
            let answer = try await server.request(path, headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(answer.status == 200 && answer.header("Content-Type") == type, "\(accept ?? "no Accept")")
            #expect(answer.header("Vary") == "Accept", "\(accept ?? "no Accept")")
            #expect(ImageFormat.sniff(answer.body)?.mimeType == type)
            #expect(answer.imageSize?.width == 128)
        }
        // The 304 of a negotiated answer varies too.
        let webp = try await server.request(path, headers: [("Accept", "image/webp")])
        let notModified = try await server.request(path, headers: [("Accept", "image/webp"),
                                                                  ("If-None-Match", try #require(webp.header("ETag")))])
        #expect(notModified.status == 304 && notModified.header("Vary") == "Accept")
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func anExtensionIsHonouredWithoutVary() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        for format in [ImageFormat.webp, .avif, .jpeg, .png] {
            let path = server.path(origin.url("/a.jpg"), size: 64, format: format)
            #expect(path.hasSuffix(".\(format.rawValue)"))
            let answer = try await server.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(answer.status == 200 && answer.header("Content-Type") == format.mimeType, "\(format)")
            #expect(answer.header("Vary") == nil, "\(format): no Vary for an explicit format")
        }
        await server.stop()
        await origin.stop()
    }

    @Test func differentlySpelledAcceptsOfOneClassShareOneRender() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let path = server.path(origin.url("/a.jpg"), size: 100)  // off the ladder: memory only
        let first = try await server.request(path, headers: [("Accept", "image/webp,*/*;q=0.8")])
        let second = try await server.request(path, headers: [("Accept", "text/html, IMAGE/WEBP;q=0.9, image/*;q=0.5")])
        #expect(first.header("X-Thumbcache") == "network" && second.header("X-Thumbcache") == "memory")
        #expect(first.body == second.body && first.header("Content-Type") == "image/webp")
        // An Accept of the other class is its own render, under its own key.
        let jpeg = try await server.request(path, headers: [("Accept", "*/*")])
        #expect(jpeg.header("Content-Type") == "image/jpeg" && jpeg.header("X-Thumbcache") != "memory")
        let jpegAgain = try await server.request(path, headers: [("Accept", "image/png, */*;q=0.1")])
        #expect(jpegAgain.header("X-Thumbcache") == "memory" && jpegAgain.body == jpeg.body)
        let keys = server.endpoints.pipeline.memory.keysInLruOrder
        #expect(keys.count == 2 && keys.allSatisfy { !$0.contains("*") && !$0.contains("image/") }, "\(keys)")
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    /// AVIF at 100 is far larger than JPEG at 80 (`--format-quality avif=100`): a request that negotiated AVIF is
    /// answered the JPEG, `Vary: Accept` kept, the same bytes and type again from memory and after a restart from
    /// disk; a path naming AVIF (`.avif`, `f:avif`) still answers AVIF. Issue 20.
    @Test func aNegotiatedFormatLargerThanTheJPEGAnswersTheJPEG() async throws {
        let origin = try await TestOrigin()
        origin.image("/big.jpg", Fixtures.jpeg)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-fq-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let accept = [("Accept", "image/avif,image/webp,*/*")]
        var server = try await ServerHarness(directory: directory, pipeline: { $0.formatQuality.set(100, for: .avif) })
        let source = origin.url("/big.jpg")
        let negotiated = server.path(source, size: 128)
        let first = try await server.request(negotiated, headers: accept)
        #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg" && first.header("Vary") == "Accept")
        #expect(ImageFormat.sniff(first.body) == .jpeg)
        let again = try await server.request(negotiated, headers: accept)
        #expect(again.header("X-Thumbcache") == "memory" && again.body == first.body && again.header("Content-Type") == "image/jpeg")
        let named = try await server.request(server.path(source, size: 128, format: .avif), headers: accept)
        #expect(named.header("Content-Type") == "image/avif" && ImageFormat.sniff(named.body) == .avif && named.header("Vary") == nil)
        #expect(named.body.count > first.body.count)

        let signer = server.endpoints.signer
        let processed = try await server.request(ProcessingURLTests.path("rs:fit:90:90", source, signer: signer), headers: accept)
        #expect(processed.header("Content-Type") == "image/jpeg" && processed.header("Vary") == "Accept")
        let processedNamed = try await server.request(ProcessingURLTests.path("rs:fit:90:90/f:avif", source, signer: signer), headers: accept)
        #expect(processedNamed.header("Content-Type") == "image/avif" && ImageFormat.sniff(processedNamed.body) == .avif)

        await server.stop(removingDirectory: false)
        server = try await ServerHarness(directory: directory, pipeline: { $0.formatQuality.set(100, for: .avif) })
        let fromDisk = try await server.request(negotiated, headers: accept)
        #expect(fromDisk.header("X-Thumbcache") == "disk" && fromDisk.body == first.body && fromDisk.header("Content-Type") == "image/jpeg")
        #expect(fromDisk.header("Vary") == "Accept")
        #expect(origin.count("/big.jpg") == 1)
        await server.stop()
        await origin.stop()
    }
}
