import Foundation
import ImageDecode

/// An original just fetched and not yet stored: in memory (a local file, read whole), or in a download file
/// under `<cache>/downloads`, which the decoder reads as it goes. The download file is deleted when the last
/// reference goes, whether the original was stored, refused or superseded.
final class FetchedOriginal: Sendable {
    /// Where the bytes are: never an opened image, so reading them needs no case for one.
    private enum Bytes {
        case memory(Data)
        case file(String)
    }

    private let bytes: Bytes
    let image: EncodedImage
    /// `image` opened once (`OpenedImage`): the probe made when it arrives and the renders of it that follow share one
    /// open, so an SVG download is parsed once for its header and its first render. Kept as long as the download is.
    let opened: EncodedImage
    let byteCount: Int
    private let temporaryPath: String?

    init(data: Data) {
        bytes = .memory(data)
        image = .data(data)
        opened = image.openedOnce()
        byteCount = data.count
        temporaryPath = nil
    }

    /// Takes ownership of the file at `path`.
    init(downloadedTo path: String, byteCount: Int) {
        bytes = .file(path)
        image = .file(path)
        opened = image.openedOnce()
        self.byteCount = byteCount
        temporaryPath = path
    }

    deinit {
        if let temporaryPath { unlink(temporaryPath) }
    }

    /// The bytes when they are held in memory (a local file's, a `DataCache` fetch's); nil for a download file.
    var inMemoryData: Data? {
        guard case .memory(let data) = bytes else { return nil }
        return data
    }

    /// All the bytes in memory (`raw` answers stream the original whole).
    func wholeData() throws(PipelineError) -> Data {
        if let inMemoryData { return inMemoryData }
        var data = Data(capacity: byteCount)
        try forEachChunk { chunk in
            data.append(contentsOf: chunk)
            return true
        }
        return data
    }

    /// SHA-256 of the bytes, lowercase hex: the identity of this original, recorded in its entry's metadata and
    /// with everything rendered from it, so nothing made from another original (even of the same length) is
    /// ever served for it.
    func digest() throws(PipelineError) -> String {
        try SHA256Digest.hex { (update: (UnsafeRawBufferPointer) -> Void) throws(PipelineError) in
            try forEachChunk { chunk in
                update(chunk)
                return true
            }
        }
    }

    /// Hands the bytes to `consume` in order, a chunk at a time, so storing or comparing a large original
    /// never needs it in memory whole. `consume` returns false to stop early.
    func forEachChunk(_ consume: (UnsafeRawBufferPointer) throws(PipelineError) -> Bool) throws(PipelineError) {
        switch bytes {
        case .memory(let data):
            _ = try data.withUnsafeBytes { bytes in Result { () throws(PipelineError) in try consume(bytes) } }.get()
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .cache(.io(operation: "open", path: path, errno: errno)) }
            defer { close(fd) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .cache(.io(operation: "read", path: path, errno: errno))
                }
                if n == 0 { return }
                guard try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) else { return }
            }
        }
    }
}
