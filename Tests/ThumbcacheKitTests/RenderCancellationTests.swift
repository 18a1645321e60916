import Foundation
import ImageDecode
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// Issue 33 §2: a render whose every waiter has gone is cancelled at its next row or stage, on the worker thread
/// that runs it; and an effect costlier than the limit is refused from the header, before any render. Real origin
/// on 127.0.0.1; the waits are hang guards, never verdicts.
@Suite(.serialized) struct RenderCancellationTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    /// Runs each render on a thread of its own, as a server's render workers do (so the task awaiting it can be
    /// cancelled meanwhile), and records how each one ended.
    final class ObservingGate: RenderGate {
        private let state = Locked<(started: Int, endings: [String])>((0, []))

        var started: Int { state.withLock { $0.started } }
        var endings: [String] { state.withLock { $0.endings } }

        func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                              _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
            state.withLock { $0.started += 1 }
            let result: Result<T, PipelineError> = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: Result { () throws(PipelineError) in try body() })
                }
            }
            let ending = switch result {
            case .success: "finished"
            case .failure(.image(_, .cancelled)): "cancelled"
            case .failure(let error): "failed: \(error)"
            }
            state.withLock { $0.endings.append(ending) }
            return try result.get()
        }
    }

    static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline && !condition() { try? await Task.sleep(for: .milliseconds(20)) }
        return condition()
    }

    /// Enlarged to 3000 px, blurred and sharpened at sigma 100: about 18 billion operations, tens of seconds of
    /// CPU in a release build and minutes in a debug one, so it ends within the guard only when cancelled.
    static let endless = "rs:fit:3000:3000/el:1/bl:100/sh:100"

    @Test func aRenderNobodyWaitsForStopsOnItsWorker() async throws {
        server.route("/e.jpg") { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        let gate = ObservingGate()
        let harness = try PipelineHarness {
            $0.renderGate = gate
            $0.maxEffectWork = .max
            $0.maxDecodeMemory = 1 << 30
        }
        let source = try ImageSource(server.url("/e.jpg"))
        let options = try ProcessingOptions(parsing: Self.endless)
        let pipeline = harness.pipeline
        let request = Task { try await pipeline.processed(for: source, options: options) }
        #expect(await Self.eventually(within: 600) { gate.started == 1 })
        request.cancel()
        #expect(await Self.eventually(within: 600) { !gate.endings.isEmpty }, "the render stopped")
        #expect(gate.endings == ["cancelled"])
        await #expect(throws: (any Error).self) { try await request.value }
        // The download it was given is stored all the same (the next request reads it from disk), the render not.
        #expect(await Self.eventually(within: 600) { harness.pipeline.store.storedOriginalDigest(key: source.cacheKey) != nil })
        #expect(harness.pipeline.rendersCancelled == 1 && VariantStoreTests.variantFiles(harness).isEmpty)

        // The next request for it starts afresh (and is refused at the default limit, before any render).
        try await harness.reopen { $0.maxEffectWork = RenderLimits.defaultMaxEffectWork }
        let refusal = await #expect(throws: PipelineError.self) {
            try await harness.pipeline.processed(for: source, options: options)
        }
        #expect(refusal?.description.contains("blur") == true, "\(String(describing: refusal))")
        #expect(gate.started == 1, "refused from the header: no render started")
        await harness.close()
        server.shutdown()
    }

    @Test func aCancelledTokenStopsEveryStage() throws {
        let cancelled = RenderCancellation()
        cancelled.cancel()
        let options = try ProcessingOptions(parsing: "w:100/bl:2/sh:2/pix:4")
        let info = try ImageDecoder.probe(Fixtures.jpeg)
        let plan = try options.plan(for: info, maxResultSide: 8192)
        #expect(throws: ImageDecodeError.cancelled) {
            try PlanRenderer().render(from: .data(Fixtures.jpeg), plan: plan, effects: options.renderEffects,
                                      cancellation: cancelled)
        }
        #expect(throws: ImageDecodeError.cancelled) {
            try Thumbnailer().makeThumbnail(from: .data(Fixtures.png), ThumbnailRequest(size: 64), cancellation: cancelled)
        }
        // Not cancelled: the same calls render.
        let image = try PlanRenderer().render(from: .data(Fixtures.jpeg), plan: plan, effects: options.renderEffects,
                                              cancellation: RenderCancellation())
        #expect(image.width == 100)
    }
}
