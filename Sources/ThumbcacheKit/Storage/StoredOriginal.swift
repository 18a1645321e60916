import DiskLru
import Foundation
import ImageDecode

/// A stored original opened for decoding in place: a descriptor of its own on the snapshot's file (through
/// `/proc/self/fd`), so the decoder reads it as it goes, whatever happens to the entry meanwhile, and a large
/// original is never loaded whole. Where `/proc` is missing it falls back to reading the value into memory.
final class StoredOriginal: Sendable {
    let image: EncodedImage
    private let descriptor: Int32

    init(_ snapshot: DiskLruSnapshot, index: Int) throws(PipelineError) {
        let fd: Int32
        do {
            fd = try snapshot.withFileDescriptor(at: index) { open("/proc/self/fd/\($0)", O_RDONLY | O_CLOEXEC) }
        } catch {
            throw .cache(error)
        }
        if fd >= 0 {
            descriptor = fd
            image = .file("/proc/self/fd/\(fd)")
        } else {
            descriptor = -1
            do { image = .data(try snapshot.data(at: index)) } catch { throw .cache(error) }
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
