import Foundation

/// This process's folder for downloads in flight, `downloads/process-XXXXXX/`, so that processes sharing a
/// cache never delete each other's downloads. The folder holds an `owner` file that the process keeps
/// `flock`ed while it lives; the kernel drops the lock when the process dies, which is how a later process
/// tells an abandoned folder from a live one. The owner file is locked before it takes its name, so an owner file
/// nobody locks is a dead process's at once (a restarted server clears its crashed predecessor's partial downloads
/// when it opens the cache). Created on the first download only: a disk hit writes nothing here.
final class DownloadFolder: Sendable {
    static let prefix = "process-"
    static let ownerName = "owner"
    /// The owner file's name until it is locked.
    static let unlockedOwnerName = "owner.new"
    /// A folder without an owner file, or a loose download file, is only judged abandoned after this long
    /// untouched, so a folder being created is never taken for dead.
    static let graceSeconds: TimeInterval = 60

    let url: URL
    private let ownerDescriptor: Int32

    init(in downloads: URL) throws(PipelineError) {
        if mkdir(downloads.path, 0o755) != 0 && errno != EEXIST {
            throw .cache(.io(operation: "create directory", path: downloads.path, errno: errno))
        }
        var template = Array(downloads.appendingPathComponent(Self.prefix + "XXXXXX").path.utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .cache(.io(operation: "create directory in", path: downloads.path, errno: errno))
        }
        url = URL(fileURLWithPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        let owner = url.appendingPathComponent(Self.ownerName).path
        let unlocked = url.appendingPathComponent(Self.unlockedOwnerName).path
        let fd = open(unlocked, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0, rename(unlocked, owner) == 0 else {
            let failure = errno
            if fd >= 0 { close(fd) }
            Self.remove(url)
            throw .cache(.io(operation: "lock", path: owner, errno: failure))
        }
        ownerDescriptor = fd
    }

    deinit {
        Self.remove(url)
        close(ownerDescriptor)
    }

    /// Removes the folders of processes that are gone, and loose `download-XXXXXX` files that versions before
    /// the per-process folders left. Only names thumbcache makes are touched.
    static func removeAbandoned(in downloads: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: downloads.path) else { return }
        let now = Date().timeIntervalSince1970
        for name in names {
            let path = downloads.appendingPathComponent(name)
            var info = stat()
            guard lstat(path.path, &info) == 0 else { continue }
            let pastGrace = now - TimeInterval(info.st_mtim.tv_sec) > graceSeconds
            if isDownloadFileName(name), (info.st_mode & S_IFMT) == S_IFREG, pastGrace {
                unlink(path.path)
            } else if name.hasPrefix(prefix), name.count == prefix.count + 6, (info.st_mode & S_IFMT) == S_IFDIR,
                      isAbandoned(path, pastGrace: pastGrace) {
                remove(path)
            }
        }
    }

    /// `download-XXXXXX`, as `DownloadFile` names them (mkstemp's six characters).
    static func isDownloadFileName(_ name: String) -> Bool {
        name.hasPrefix("download-") && name.count == "download-".count + 6
    }

    /// Nobody holds the owner lock (or there is no owner file, and the folder is past its grace time).
    private static func isAbandoned(_ folder: URL, pastGrace: Bool) -> Bool {
        let fd = open(folder.appendingPathComponent(ownerName).path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return errno == ENOENT && pastGrace }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) == 0  // released with the descriptor
    }

    /// Deletes our download files and owner file in `folder`, then the folder if that leaves it empty.
    private static func remove(_ folder: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where isDownloadFileName(name) || name == ownerName || name == unlockedOwnerName {
            unlink(folder.appendingPathComponent(name).path)
        }
        rmdir(folder.path)
    }
}
