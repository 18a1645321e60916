import Synchronization

/// Set when nobody waits for a render any more (every request left, or its deadline passed): the render stops at
/// its next row or stage rather than spend seconds of CPU on an image no one will receive. The C libraries cannot
/// be interrupted inside one call, so a check sits between their calls (each row a decoder hands out, each line
/// a filter convolves, each stage) and before the encoder. Shared by the task that may cancel and the thread
/// that renders.
public final class RenderCancellation: Sendable {
    private let cancelled = Atomic(false)

    public init() {}

    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    public var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }

    /// Throws `ImageDecodeError.cancelled` once `cancel` was called.
    public func check() throws(ImageDecodeError) {
        if isCancelled { throw .cancelled }
    }
}

extension Optional where Wrapped == RenderCancellation {
    /// A render without a token cannot be cancelled.
    func check() throws(ImageDecodeError) {
        try self?.check()
    }
}
