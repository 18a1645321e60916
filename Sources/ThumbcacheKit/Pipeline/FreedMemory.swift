import Foundation

/// Hands memory freed by a large decode back to the system. glibc keeps freed heap pages in its arenas (one
/// per thread that decoded) and raises its mmap threshold after large frees, so without this a process that
/// once decoded a progressive 7000x7000 JPEG can keep hundreds of megabytes resident for good.
enum FreedMemory {
    /// Below this a decode's buffers are not worth a pass over the arenas.
    static let trimThreshold = 16 << 20

    private typealias Trim = @convention(c) (Int) -> Int32

    static func release(afterDecodeOf bytes: Int) {
        guard bytes >= trimThreshold else { return }
        // glibc's malloc_trim, looked up rather than imported: <malloc.h> is not in the Glibc module, and
        // other C libraries (musl, Darwin) have no such call.
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
