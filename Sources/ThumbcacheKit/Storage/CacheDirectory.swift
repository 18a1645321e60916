import DiskLru
import Foundation

/// The cache root and what proves it is ours. A cache directory is marked at creation with a `CACHEDIR.TAG`
/// (the Cache Directory Tagging standard, so backup tools skip it) that names thumbcache. thumbcache uses a
/// directory that is missing, empty or so marked; a cache made before the marker existed is adopted when its
/// layout and journal show it is one. Anything else is refused untouched: thumbcache deletes only files it can
/// prove are its own.
///
/// Layout: `CACHEDIR.TAG`, `entries/` (DiskLru), `variants/` (DiskLru), `downloads/` (one folder per running process), `stats.json`.
package struct CacheDirectory: Sendable {
    package static let markerName = "CACHEDIR.TAG"
    static let signature = "Signature: 8a477f597d28d172789f06886806bc55"
    static let markerText = """
        \(signature)
        # This file is a cache directory tag created by thumbcache.
        # For information about cache directory tags, see https://bford.info/cachedir/

        """
    /// Every name thumbcache writes in the root.
    static let ownNames: Set<String> = [markerName, "entries", "variants", "downloads", "stats.json"]
    /// The appVersions this program and its earlier versions wrote in `entries/journal`.
    static let knownAppVersions = 1...EntryStore.appVersion

    package let url: URL
    var entries: URL { url.appendingPathComponent("entries") }
    /// Processed images (`VariantStore`), a DiskLru of their own.
    var variants: URL { url.appendingPathComponent("variants") }
    var downloads: URL { url.appendingPathComponent("downloads") }
    var stats: URL { url.appendingPathComponent("stats.json") }

    /// For a read-write pipeline: creates the directory and its marker if needed, adopts a pre-marker cache
    /// (writing the marker), refuses anything else.
    static func prepare(_ url: URL) throws(PipelineError) -> CacheDirectory {
        let directory = CacheDirectory(url: url)
        if try directory.isOurs(allowEmpty: true) {
            guard !FileManager.default.fileExists(atPath: directory.markerPath) else { return directory }
        } else {
            throw .notACacheDirectory(path: url.path, reason: "it is not empty and has no thumbcache CACHEDIR.TAG")
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw .cache(.io(operation: "create directory", path: url.path, errno: (error as NSError).code == 0 ? EIO : EACCES))
        }
        do { try createMarker(at: directory.markerPath, text: markerText) } catch { throw .cache(error) }
        return directory
    }

    /// Writes a `CACHEDIR.TAG` holding `text` at `path` unless one is there. Exclusive creation: two processes
    /// adopting the same directory write it once.
    static func createMarker(at path: String, text: String) throws(DiskLruError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0 {
            guard errno == EEXIST else { throw .io(operation: "create", path: path, errno: errno) }
            return
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            let failure = errno
            unlink(path)
            throw .io(operation: "write", path: path, errno: failure)
        }
    }

    /// For a read-only pipeline: nil when there is nothing to read (missing or empty); refuses a directory
    /// that is not a cache. Creates and writes nothing, and never adopts.
    static func inspect(_ url: URL) throws(PipelineError) -> CacheDirectory? {
        let directory = CacheDirectory(url: url)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard try directory.isOurs(allowEmpty: true) else {
            throw .notACacheDirectory(path: url.path, reason: "it is not empty and has no thumbcache CACHEDIR.TAG")
        }
        return directory
    }

    private var markerPath: String { url.appendingPathComponent(Self.markerName).path }

    /// Ours: marked by thumbcache, missing or empty (when allowed), or a pre-marker cache (only our names at
    /// the root, and `entries/` holding a journal with our header or nothing but DiskLru's own files).
    private func isOurs(allowEmpty: Bool) throws(PipelineError) -> Bool {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: url.path) } catch {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) { return allowEmpty }
            if !isDirectory.boolValue {
                throw .notACacheDirectory(path: url.path, reason: "it is a file, not a directory")
            }
            throw .cache(.io(operation: "list", path: url.path, errno: EACCES))
        }
        if names.isEmpty { return allowEmpty }
        if let marker = FileManager.default.contents(atPath: markerPath),
           let text = String(data: marker, encoding: .utf8) {
            // A `DataCache` directory is thumbcache's too, but another layout: the pipeline leaves it alone.
            return text.hasPrefix(Self.signature) && text.contains("thumbcache") && !text.contains(DataCacheDirectory.markerPhrase)
        }
        guard Set(names).isSubset(of: Self.ownNames) else { return false }
        return Self.holdsOurJournal(entries)
    }

    /// Whether `entries` is missing, or holds our journal (or its backup) or only DiskLru's lock file.
    static func holdsOurJournal(_ entries: URL) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: entries.path) else {
            return !FileManager.default.fileExists(atPath: entries.path)
        }
        for name in [DiskLruCache.journalFileName, DiskLruCache.journalBackupFileName] where names.contains(name) {
            return hasOurHeader(entries.appendingPathComponent(name))
        }
        return names.allSatisfy { $0 == DiskLruCache.lockFileName }
    }

    /// The journal header as EntryStore writes it: DiskLru magic and version, one of our appVersions,
    /// and a value count that a size ladder gives (metadata, original, at least one size).
    private static func hasOurHeader(_ journal: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: journal.path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 64)) ?? Data(), as: UTF8.self)
        let lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 5, lines[0] == "libcore.io.DiskLruCache", lines[1] == "1",
              let appVersion = Int(lines[2]), knownAppVersions.contains(appVersion),
              let valueCount = Int(lines[3]), (3...64).contains(valueCount), lines[4].isEmpty else { return false }
        return true
    }
}
