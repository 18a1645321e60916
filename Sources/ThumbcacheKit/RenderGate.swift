/// Where the pipeline's renders (decode, resize, encode) wait for a worker. A server bounds them
/// (`ThumbcacheServer.RenderLimiter`); the CLI does not.
public protocol RenderGate: Sendable {
    /// Runs `body` once a slot is free, holding `bytes` of `budget` while it runs: the decode memory is reserved
    /// only once the render has its slot, so renders waiting for one hold none. Throws `PipelineError.overloaded`
    /// without running `body` when refused, and `.cancelled` when the calling task is cancelled before `body` starts.
    func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?,
                          _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T
}

extension RenderGate {
    /// Runs `body` once a slot is free, reserving no decode memory.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try await run(reserving: 0, of: nil, body)
    }
}

/// Runs every render at once (after its decode memory is reserved).
public struct UnboundedRenderGate: RenderGate {
    public init() {}

    public func run<T: Sendable>(reserving bytes: Int, of budget: DecodeBudget?,
                                 _ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        let reserved = try await budget?.reserveForRender(bytes) ?? 0
        defer { budget?.release(reserved) }
        return try body()
    }
}
