import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Animated GIF and WebP through `serve`'s processing URLs from a real loopback origin: kept animated in GIF and
/// WebP answers (a GIF source answers GIF when no format is asked, as imgproxy), the first frame elsewhere and with
/// `da`, one variant per meaning, and the animation limits refusing with 422 naming them, nothing cached.
@Suite(.serialized) struct AnimationServeTests {
    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, signer: URLSigner(key: nil))
    }

    /// Red, green, blue frames of 8x6 built with our own encoder (delays 50/70/100 ms, looping forever).
    static func animation() throws -> Data {
        let frames = [[UInt8]]([[255, 0, 0], [0, 255, 0], [0, 0, 255]]).map { colour in
            PixelBuffer(width: 8, height: 6, channels: 3, pixels: Array((0..<48).map { _ in colour }.joined()))
        }
        return try EncodeSettings(format: .gif).encode(frames: frames, delays: [50, 70, 100], loopCount: 0).data
    }

    static func frameCount(_ data: Data) throws -> Int? { try ImageDecoder.probe(data).frameCount }

    @Test func animationsStayAnimatedInGIFAndWebP() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(), type: "image/gif")
        let server = try await ServerHarness()
        let url = origin.url("/a.gif")
        let gif = try await server.request(Self.path("rs:fit:4:4", url))
        #expect(gif.status == 200 && gif.header("Content-Type") == "image/gif")
        #expect(try Self.frameCount(gif.body) == 3 && gif.imageSize! == (4, 3))
        let webp = try await server.request(Self.path("rs:fit:4:4/f:webp", url))
        #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
        #expect(try Self.frameCount(webp.body) == 3)
        let png = try await server.request(Self.path("rs:fit:4:4/f:png", url))
        let pngFrames = try Self.frameCount(png.body)
        #expect(png.status == 200 && pngFrames == nil)
        #expect(try ImageDecoder.decode(png.body)[1, 1] == [255, 0, 0], "the first frame")
        // da: the first frame, in GIF, as a variant of its own.
        let still = try await server.request(Self.path("rs:fit:4:4/da:1", url))
        let stillFrames = try Self.frameCount(still.body)
        #expect(still.status == 200 && still.header("Content-Type") == "image/gif" && stillFrames == 1)
        let again = try await server.request(Self.path("rs:fit:4:4", url))
        #expect(again.header("X-Thumbcache") == "memory" && again.body == gif.body)
        await server.stop()
        await origin.stop()
    }

    @Test func animationLimitsRefuseWith422NamingThemAndCacheNothing() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(), type: "image/gif")
        let server = try await ServerHarness(pipeline: { $0.maxAnimationFrameResolution = 40 })
        let url = origin.url("/a.gif")
        let refused = try await server.request(Self.path("rs:fit:4:4", url))
        #expect(refused.status == 422 && refused.json["error"] == "too_many_pixels")
        #expect(refused.json["message"]?.contains("--max-animation-frame-resolution") == true, "\(refused.json)")
        // The first frame alone is not an animation: answered.
        let still = try await server.request(Self.path("rs:fit:4:4/f:png", url))
        #expect(still.status == 200)
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 1, "the refusal rendered nothing")
        let retried = try await server.request(Self.path("rs:fit:4:4", url))
        #expect(retried.status == 422, "nothing was cached")
        await server.stop()
        let counted = try await ServerHarness(pipeline: { $0.maxPixels = 100 })
        let total = try await counted.request(Self.path("rs:fit:4:4", url))
        #expect(total.status == 422 && total.json["message"]?.contains("--max-animation-frames") == true, "\(total.json)")
        await counted.stop()
        let fewer = try await ServerHarness(pipeline: { $0.maxPixels = 100; $0.maxAnimationFrames = 2 })
        let two = try await fewer.request(Self.path("rs:fit:4:4", url))
        let twoFrames = try Self.frameCount(two.body)
        #expect(two.status == 200 && twoFrames == 2)
        await fewer.stop()
        await origin.stop()
    }

    /// imgproxy's `max_animation_frames` and `max_animation_frame_resolution` in the URL: security options (403
    /// without `--allow-security-options`), lowering the server's limits and never raising them.
    @Test func urlAnimationLimitsLowerTheServersOnly() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(), type: "image/gif")
        let url = origin.url("/a.gif")
        let closed = try await ServerHarness()
        for option in ["maf:2", "mafr:0.001", "max_animation_frames:2", "max_animation_frame_resolution:1"] {
            let refused = try await closed.request(Self.path("rs:fit:4:4/\(option)", url))
            #expect(refused.status == 403, "\(option): \(refused.status)")
        }
        await closed.stop()
        let server = try await ServerHarness(configure: { $0.allowSecurityOptions = true }, pipeline: { $0.maxAnimationFrames = 2 })
        let two = try await server.request(Self.path("rs:fit:4:4/maf:1000", url))
        let twoFrames = try Self.frameCount(two.body)
        #expect(two.status == 200 && twoFrames == 2, "a URL does not raise the server's 2")
        let one = try await server.request(Self.path("rs:fit:4:4/maf:1", url))
        let oneFrame = try Self.frameCount(one.body)
        #expect(one.status == 200 && oneFrame == 1 && one.header("Content-Type") == "image/gif")
        // One pixel more than a frame has is enough; one fewer refuses the animation, naming the option.
        let fits = try await server.request(Self.path("rs:fit:4:4/mafr:0.000048", url))
        let fitFrames = try Self.frameCount(fits.body)
        #expect(fits.status == 200 && fitFrames == 2)
        let over = try await server.request(Self.path("rs:fit:4:4/mafr:0.000047", url))
        #expect(over.status == 422 && over.json["message"]?.contains("max_animation_frame_resolution (mafr)") == true,
                "\(over.json)")
        // 0 is no limit of its own, as imgproxy reads it.
        let unlimited = try await server.request(Self.path("rs:fit:4:4/mafr:0", url))
        let unlimitedFrames = try Self.frameCount(unlimited.body)
        #expect(unlimited.status == 200 && unlimitedFrames == 2)
        // A still answer is not held to it (imgproxy checks frames only when it renders an animation).
        #expect(try await server.request(Self.path("rs:fit:4:4/mafr:0.000047/f:png", url)).status == 200)
        for bad in ["maf:0", "maf:-1", "maf:x", "mafr:-1", "mafr:x"] {
            #expect(try await server.request(Self.path("rs:fit:4:4/\(bad)", url)).status == 400, "\(bad)")
        }
        await server.stop()
        await origin.stop()
    }

    @Test func anotherFrameLimitAfterARestartRendersAgain() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.gif", try Self.animation(), type: "image/gif")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-anim-\(UUID().uuidString)")
        let url = origin.url("/a.gif")
        /// Frames answered, and how many renders the server made (0: the stored variant answered).
        func frames(limit: Int) async throws -> (frames: Int?, renders: Int) {
            let server = try await ServerHarness(directory: directory, pipeline: { $0.maxAnimationFrames = limit })
            let answer = try await server.request(Self.path("rs:fit:4:4", url))
            let renders = server.metric("thumbcache_render_duration_seconds_count")
            await server.stop(removingDirectory: false)
            return (try Self.frameCount(answer.body), renders)
        }
        let two = try await frames(limit: 2)
        #expect(two.frames == 2 && two.renders == 1)
        let same = try await frames(limit: 2)
        #expect(same.frames == 2 && same.renders == 0, "the stored variant: \(same)")
        let all = try await frames(limit: 256)
        #expect(all.frames == 3 && all.renders == 1, "another limit renders again: \(all)")
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
