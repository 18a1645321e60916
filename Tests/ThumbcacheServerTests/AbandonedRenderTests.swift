import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 33 §2 on a real server: a render whose requests all timed out stops on its worker rather than run on for
/// no one (four such renders pushed the next cheap thumbnail to a 504), and a URL whose effects cost more than the
/// limit is a 400 naming the option, before any render. The waits are hang guards, never verdicts.
@Suite(.serialized) struct AbandonedRenderTests {
    static func path(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, ext: nil, signer: URLSigner(key: nil))
    }

    @Test func rendersWhoseRequestsTimedOutStopAndFreeTheirWorker() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        // The first render is started through the server's own pipeline and seen running before any request is
        // sent, so neither the 504s nor its cancellation depend on how fast a busy machine reaches the render.
        let server = try await ServerHarness(configure: { $0.timeout = .seconds(1); $0.workers = 1; $0.maxSize = 4096 },
                                             pipeline: { $0.maxEffectWork = .max; $0.maxDecodeMemory = 1 << 30 })
        let source = origin.url("/a.jpg")
        let limiter = server.endpoints.limiter
        let pipeline = server.endpoints.pipeline
        // Minutes of CPU each unless cancelled (as ThumbcacheKitTests.RenderCancellationTests.endless).
        let options = [100, 99].map { "rs:fit:3000:3000/el:1/bl:\($0)/sh:100" }
        let first = try ProcessingOptions(parsing: options[0]), image = try ImageSource(source)
        let direct = Task { try await pipeline.processed(for: image, options: first) }
        #expect(await CancellationTests.eventually(within: 600) { limiter.load.running == 1 })
        // One request shares the running render, the other waits for the worker behind it: both pass their deadline.
        let answers = try await withThrowingTaskGroup(of: ServerHarness.Answer.self) { group in
            for list in options {
                group.addTask { try await server.request(Self.path(list, source)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        direct.cancel()
        await #expect(throws: (any Error).self) { try await direct.value }
        #expect(answers.map(\.status) == [504, 504], "\(answers.map(\.json))")
        #expect(await CancellationTests.eventually(within: 600) {
            let load = limiter.load
            return load.running == 0 && load.queued == 0 && load.promised == 0
        }, "\(limiter.load)")
        // The running render was cancelled once its last waiter left (the queued one left its queue at its deadline,
        // never having run): it could not end otherwise within the guard, with minutes of CPU.
        #expect((1...2).contains(pipeline.rendersCancelled), "\(pipeline.rendersCancelled) of \(limiter.rendersStarted)")
        let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
        let gauge = metrics.split(separator: "\n").first { $0.hasPrefix("thumbcache_renders_cancelled ") }
        #expect(gauge.flatMap { Double($0.split(separator: " ").last ?? "") } == Double(pipeline.rendersCancelled), "\(String(describing: gauge))")
        // The download is kept though no render finished: the source is on disk for the next request (stored by the
        // cancelled render's task once its worker is free: waited for, a hang guard).
        #expect(await CancellationTests.eventually(within: 600) { (try? pipeline.info(for: image)) != nil })
        #expect(origin.count("/a.jpg") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func costlyEffectsAreRefusedFromTheHeaderNamingTheOption() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)  // 227×149
        let server = try await ServerHarness { $0.maxSize = 4096 }
        let source = origin.url("/a.jpg")
        for (options, option) in [("rs:fit:2000:2000/el:1/bl:100", "blur"), ("rs:fit:3000:3000/el:1/sh:100", "sharpen"),
                                  ("rs:fit:1500:1500/el:1/bl:100/sh:100", "blur")] {
            let answer = try await server.request(Self.path(options, source))
            #expect(answer.status == 400 && answer.json["error"] == "too_costly", "\(options): \(answer.json)")
            #expect(answer.json["message"]?.contains(option) == true, "\(options): \(answer.json)")
        }
        #expect(server.endpoints.limiter.rendersStarted == 0, "refused from the header, nothing rendered")
        let allowed = try await server.request(Self.path("w:200/bl:100/sh:100", source))
        #expect(allowed.status == 200 && allowed.imageSize?.width == 200, "\(allowed.json)")
        await server.stop()
        await origin.stop()
    }
}
