import Foundation
import ImageDecode

/// A response body being written to a new file under `<cache>/downloads`, so a large original is never held
/// in memory. `finish()` hands the file over as a `FetchedOriginal`; dropped before that (an error, a
/// cancellation, a refused body), it removes the file itself.
final class DownloadFile {
    let path: String
    private var fd: Int32
    private(set) var byteCount = 0
    /// The first bytes, for sniffing the format before the rest arrives.
    private(set) var head = Data()
    private var handedOver = false

    init(in directory: URL) throws(PipelineError) {
        var template = Array(directory.appendingPathComponent("download-XXXXXX").path.utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard fd >= 0 else { throw .cache(.io(operation: "create", path: path, errno: errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !handedOver { unlink(path) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(PipelineError) {
        let wanted = ImageFormat.signatureLength
        if head.count < wanted { head.append(contentsOf: bytes.prefix(wanted - head.count)) }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw .cache(.io(operation: "write", path: path, errno: errno))
            }
            offset += n
        }
        byteCount += bytes.count
    }

    func finish() throws(PipelineError) -> FetchedOriginal {
        guard close(fd) == 0 else {
            fd = -1
            throw .cache(.io(operation: "close", path: path, errno: errno))
        }
        fd = -1
        handedOver = true
        return FetchedOriginal(downloadedTo: path, byteCount: byteCount)
    }
}
