import BombTestSupport
import Foundation
import ImageDecode
import SeededRandom
import Testing
@testable import ThumbcacheKit

/// Issue 14, B5: the process-wide bound on decode memory. Reservations that do not fit wait, in order, and
/// the bytes reserved at once never exceed the capacity.
@Suite struct DecodeBudgetTests {
    /// Waits until `condition` holds (another task reaching a state). Bounded by 60 s of the clock, which only a
    /// failing run reaches: a count of yields could run out on a busy machine before the other task ran.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(600)  // a hang guard, never a verdict
        while !condition(), ContinuousClock.now < deadline {
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    @Test func aReservationThatDoesNotFitWaitsForARelease() async throws {
        let budget = DecodeBudget(capacity: 100)
        let first = try await budget.reserve(70)
        let admitted = Locked(false)
        let second = Task {
            let bytes = try await budget.reserve(50)
            admitted.withLock { $0 = true }
            return bytes
        }
        #expect(await Self.eventually { budget.waiting == 1 })
        #expect(!admitted.withLock { $0 } && budget.inUse == 70)
        budget.release(first)
        #expect(try await second.value == 50)
        #expect(budget.inUse == 50 && budget.waiting == 0)
        budget.release(50)
        #expect(budget.inUse == 0 && budget.peak == 70)
    }

    @Test func waitersAreServedInOrder() async throws {
        let budget = DecodeBudget(capacity: 100)
        let held = try await budget.reserve(100)
        // A large reservation first, then a small one: the small one must not overtake it.
        let large = Task { try await budget.reserve(90) }
        #expect(await Self.eventually { budget.waiting == 1 })
        let small = Task { try await budget.reserve(10) }
        #expect(await Self.eventually { budget.waiting == 2 })
        // Room for the small one but not the large one: both wait. (Checked by state: the order in which the two
        // tasks resume after being admitted together is the scheduler's.)
        budget.release(10)
        #expect(budget.waiting == 2 && budget.inUse == 90)
        budget.release(held - 10)
        let (a, b) = (try await large.value, try await small.value)
        #expect((a, b) == (90, 10) && budget.inUse == 100)
        budget.release(a)
        budget.release(b)
        #expect(budget.inUse == 0)
    }

    @Test func concurrentReservationsNeverExceedTheCapacity() async throws {
        let budget = DecodeBudget(capacity: 1000)
        var random = SplitMix64(seed: 5)
        let sizes = (0..<200).map { _ in Int.random(in: 1...1200, using: &random) }  // some above the capacity
        let overlapping = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for size in sizes {
                group.addTask {
                    try await budget.withReservation(size) {
                        let reserved = min(size, 1000)
                        overlapping.withLock { $0.now += reserved; $0.most = max($0.most, $0.now) }
                        await Task.yield()
                        overlapping.withLock { $0.now -= reserved }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlapping.withLock { $0.most } <= 1000)
        #expect(budget.peak <= 1000 && budget.inUse == 0 && budget.waiting == 0)
    }

    @Test func aReservationLargerThanTheCapacityRunsAlone() async throws {
        let budget = DecodeBudget(capacity: 100)
        #expect(try await budget.reserve(5000) == 100)
        #expect(budget.inUse == 100)
        budget.release(100)
    }

    @Test func cancellingAWaiterReservesNothingAndLetsOthersIn() async throws {
        let budget = DecodeBudget(capacity: 100)
        let held = try await budget.reserve(60)
        let blocked = Task { try await budget.reserve(80) }
        #expect(await Self.eventually { budget.waiting == 1 })
        let behind = Task { try await budget.reserve(30) }  // fits, but waits behind the first in line
        #expect(await Self.eventually { budget.waiting == 2 })
        blocked.cancel()
        await #expect(throws: CancellationError.self) { try await blocked.value }
        #expect(try await behind.value == 30)
        #expect(budget.inUse == 90)
        budget.release(held)
        budget.release(30)
        #expect(budget.inUse == 0 && budget.waiting == 0)
    }
}

/// The pipeline reserves each render's estimate from its budget and refuses a decode over its limit.
@Suite struct PipelineDecodeMemoryTests {
    /// The one renderer's estimate for `rendition` of `input` (the original), from its header.
    static func estimate(of rendition: Rendition, from input: EncodedImage) throws -> Int {
        let options = rendition.options
        let plan = try options.plan(for: try ImageDecoder.probe(input), maxResultSide: ThumbnailRequest.maxSize)
        return try PlanRenderer().workingMemory(for: input, plan: plan, effects: options.renderEffects, autoRotate: options.autoRotate)
    }

    @Test func rendersReserveTheirEstimateAndReturnIt() async throws {
        let budget = DecodeBudget(capacity: 64 << 20)
        let harness = try PipelineHarness { $0.decodeBudget = budget }
        let source = harness.directory.appendingPathExtension("jpg")
        defer { try? FileManager.default.removeItem(at: source) }
        try Data(CraftedJPEG.flat(width: 2000, height: 1000, layout: .progressive)).write(to: source)
        let result = try await harness.pipeline.thumbnail(for: ImageSource(source.path), size: 64)
        #expect((result.width, result.height) == (64, 32))
        let expected = try Self.estimate(of: .thumbnail(size: 64), from: .file(source.path))
        #expect(budget.peak == expected && budget.inUse == 0)
        await harness.close()
    }

    /// A render gate that records what it is handed, then runs the render at once.
    struct RecordingGate: RenderGate {
        /// Per render: the bytes to reserve, and the budget's bytes in use when the render reached the gate.
        let seen = Locked<[(bytes: Int, inUseAtEntry: Int)]>([])

        func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                              _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
            seen.withLock { $0.append((bytes, budget?.inUse ?? -1)) }
            return try await UnboundedRenderGate().run(reserving: bytes, of: budget, body)
        }
    }

    /// Issue 11 §5: the decode memory is reserved once the render has its slot, not before it waits for one, so
    /// renders queued for a server's workers hold none.
    @Test func rendersReserveInsideTheRenderGate() async throws {
        let budget = DecodeBudget(capacity: 64 << 20)
        let gate = RecordingGate()
        let harness = try PipelineHarness { $0.decodeBudget = budget; $0.renderGate = gate }
        let source = harness.directory.appendingPathExtension("jpg")
        defer { try? FileManager.default.removeItem(at: source) }
        try Data(CraftedJPEG.flat(width: 2000, height: 1000, layout: .progressive)).write(to: source)
        _ = try await harness.pipeline.thumbnail(for: ImageSource(source.path), size: 64)
        let expected = try Self.estimate(of: .thumbnail(size: 64), from: .file(source.path))
        let seen = gate.seen.withLock { $0 }
        #expect(seen.count == 1 && seen.first?.bytes == expected)
        #expect(seen.first?.inUseAtEntry == 0, "nothing reserved before the gate")
        #expect(budget.peak == expected && budget.inUse == 0)
        await harness.close()
    }

    @Test func aDecodeOverTheLimitIsRefusedWithExitCode6() async throws {
        // A budget of its own: the shared one is also used by tests running in parallel.
        let budget = DecodeBudget(capacity: 64 << 20)
        let harness = try PipelineHarness { $0.maxDecodeMemory = 1 << 20; $0.decodeBudget = budget }
        let source = harness.directory.appendingPathExtension("jpg")
        try Data(CraftedJPEG.flat(width: 2000, height: 1000, layout: .progressive)).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let error = await #expect(throws: PipelineError.self) {
            try await harness.pipeline.thumbnail(for: ImageSource(source.path), size: 64)
        }
        guard case .image(_, .overMemoryBudget(let needed, let limit)) = error else {
            Issue.record("expected overMemoryBudget, got \(String(describing: error))")
            return
        }
        #expect(limit == 1 << 20 && needed > limit)
        #expect(error?.exitCode == 6)
        #expect(budget.inUse == 0 && budget.peak == 0, "a refused decode reserves nothing")
        await harness.close()
    }
}
