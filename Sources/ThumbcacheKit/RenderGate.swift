/// Where the pipeline's renders (decode, resize, encode) wait for a worker. A server bounds them
/// (`ThumbcacheServer.RenderLimiter`); the CLI does not.
public protocol RenderGate: Sendable {
    /// Runs `body` once a slot is free, or throws `PipelineError.overloaded` without running it.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T
}

/// Runs every render at once.
public struct UnboundedRenderGate: RenderGate {
    public init() {}

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws(PipelineError) -> T) async throws(PipelineError) -> T {
        try body()
    }
}
