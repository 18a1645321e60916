import Synchronization

/// Where the pipeline's renders (decode, resize, encode) wait for a worker. A server bounds them
/// (`ThumbcacheServer.RenderLimiter`); the CLI does not.
package protocol RenderGate: Sendable {
    /// Asked before a download or revalidation: a gate that bounds renders promises the render that may follow a
    /// place, or refuses at once (`PipelineError.overloaded`) when running, queued and promised renders fill it,
    /// so a refused request costs no download. nil: nothing to promise (an unbounded gate).
    func admit() throws(PipelineError) -> RenderAdmission?

    /// Runs `body` once a slot is free, holding `bytes` of `budget` while it runs: the decode memory is reserved
    /// only once the render has its slot, so renders waiting for one hold none. A render that brings an unused
    /// `admission` takes its promised place and is never refused. Throws `PipelineError.overloaded` without
    /// running `body` when refused, and `.cancelled` when the calling task is cancelled before `body` starts.
    /// Must not return before `body` has returned: a cancelled render's memory, descriptors and cancellation token
    /// are released by the caller once this returns.
    func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                          _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T
}

extension RenderGate {
    package func admit() throws(PipelineError) -> RenderAdmission? { nil }

    /// Runs `body` once a slot is free, with no promised place.
    package func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?,
                                 _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try await run(reserving: bytes, of: budget, admission: nil, body)
    }

    /// Runs `body` once a slot is free, reserving no decode memory.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try await run(reserving: 0, of: nil, admission: nil, body)
    }
}

/// A place a `RenderGate` promised before a download: used once, by the first render of that download
/// (`take`), or given back (`release`) when no render follows (a 304 with the thumbnail stored, a failure).
/// Either happens once, whichever comes first, so the gate's count of promises stays exact. One that is
/// dropped unused gives its place back: a download whose every request left before it ended (the coalescer
/// then hands its result to no one) must not hold a place for ever.
package final class RenderAdmission: Sendable {
    private let settled = Atomic(false)
    private let onRelease: @Sendable () -> Void

    /// `onRelease` runs once if the place is given back unused.
    package init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    /// Claims the place for a render; false when it was already used or given back.
    package func take() -> Bool {
        !settled.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Gives the place back if it was not used.
    package func release() {
        if take() { onRelease() }
    }

    deinit { release() }
}

/// Runs every render at once (after its decode memory is reserved).
package struct UnboundedRenderGate: RenderGate {
    package init() {}

    package func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?, admission: RenderAdmission?,
                                 _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        let reserved = try await budget?.reserveForRender(bytes) ?? 0
        defer { budget?.release(reserved) }
        return try body()
    }
}
