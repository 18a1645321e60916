import Foundation
import ImageDecode

/// Reads originals from local files. The file's size and modification time play the validators' role:
/// an unchanged file is "not modified", a changed one is read again.
struct FileFetcher: Sendable {
    let limits: FetchLimits
    let policy: SourcePolicy

    func fetch(_ path: String, conditional: [(String, String)]) throws(PipelineError) -> FetchOutcome {
        let url = "file://" + path
        if let reason = policy.refusal(ofFile: url) { throw .sourceRefused(url: url, reason: reason) }
        let requestTime = Date()
        // Opened first and checked on the descriptor, so what is checked is what is read. O_NONBLOCK: opening a
        // FIFO must not wait for a writer (it is refused below, as every non-regular file is); regular files
        // ignore it.
        let fd = policy.pathBelowLocalRoot(path).map { Self.openBeneath(policy.localRoot ?? "/", $0) }
            ?? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            if errno == ELOOP { throw .sourceRefused(url: url, reason: "a symbolic link under the local root: local sources follow none") }
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
        try limits.checkSize(size, url: url)
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
            try limits.checkSize(data.count + n, url: url)
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// Opens `relative` beneath `root` one component at a time, following no symbolic link (`O_NOFOLLOW`: a link
    /// fails with ELOOP) and no `.` or `..` (refused before any open), so no spelling and no link reaches a file
    /// outside the root. A descriptor, or -1 with errno set.
    static func openBeneath(_ root: String, _ relative: String) -> Int32 {
        let components = relative.split(separator: "/")
        guard !components.isEmpty, !components.contains(where: { $0 == "." || $0 == ".." }) else { errno = ENOENT; return -1 }
        var directory = open(root, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard directory >= 0 else { return -1 }
        for (index, component) in components.enumerated() {
            let last = index == components.count - 1
            let name = String(component)
            let next = openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (last ? O_NONBLOCK : O_DIRECTORY))
            var failure = errno
            // A link to a directory fails O_DIRECTORY as ENOTDIR: told apart, so it is refused as the link it is.
            var info = stat()
            if next < 0, failure == ENOTDIR, fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
               info.st_mode & S_IFMT == S_IFLNK { failure = ELOOP }
            close(directory)
            guard next >= 0 else { errno = failure; return -1 }
            directory = next
        }
        return directory
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
