#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One name in the cache directory, as `stat` sees it (symbolic links followed, as the caches' `open` does).
struct DirectoryFile: Sendable {
    enum Kind: Sendable { case regular, directory, other, missing }

    let name: String
    let kind: Kind
    let size: Int64

    init(directory: String, name: String) {
        self.name = name
        var info = stat()
        guard stat(directory + "/" + name, &info) == 0 else {
            kind = .missing
            size = 0
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        default: kind = .other
        }
        size = Int64(info.st_size)
    }
}
