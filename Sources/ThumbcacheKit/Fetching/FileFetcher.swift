import Foundation
import ImageDecode

/// Reads originals from local files. The file's size and modification time play the validators' role:
/// an unchanged file is "not modified", a changed one is read again.
struct FileFetcher: Sendable {
    let maxBytes: Int
    let policy: SourcePolicy

    func fetch(_ path: String, conditional: [(String, String)]) throws(PipelineError) -> FetchOutcome {
        let url = "file://" + path
        if let reason = policy.refusal(ofFile: url) { throw .sourceRefused(url: url, reason: reason) }
        let requestTime = Date()
        // Opened first and checked on the descriptor, so what is checked is what is read. O_NONBLOCK: opening a
        // FIFO must not wait for a writer (it is refused below, as every non-regular file is); regular files
        // ignore it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "not a regular file (\(Self.describeType(info.st_mode)))")
        }
        let size = Int(info.st_size)
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        let etag = "\"\(size)-\(Int64(info.st_mtim.tv_sec) &* 1_000_000 &+ Int64(info.st_mtim.tv_nsec / 1000))\""
        // Files are always revalidated (cheap: one stat), so they carry no freshness lifetime.
        let headers = ["etag": etag, "last-modified": HTTPDate.format(Date(timeIntervalSince1970: modified)), "cache-control": "no-cache"]
        if conditional.contains(where: { $0.0 == "If-None-Match" && $0.1 == etag }) {
            return .notModified(headers: headers, requestTime: requestTime, responseTime: Date())
        }
        guard size <= maxBytes else { throw .downloadTooLarge(url: url, limit: maxBytes) }
        let data = try readAll(fd, path: path, url: url)
        guard ImageFormat.sniff(data) != nil else { throw .notAnImage(url: url, contentType: nil) }
        return .body(FetchedOriginal(data: data), headers: headers, requestTime: requestTime, responseTime: Date())
    }

    /// The whole file, refusing it if it grew past the limit since `fstat`.
    private func readAll(_ fd: Int32, path: String, url: String) throws(PipelineError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { return data }
            guard data.count + n <= maxBytes else { throw .downloadTooLarge(url: url, limit: maxBytes) }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    private static func describeType(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }
}
