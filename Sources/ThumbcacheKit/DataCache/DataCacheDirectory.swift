import DiskLru
import Foundation

/// A `DataCache` disk tier's directory and what proves it is one: a `CACHEDIR.TAG` naming thumbcache's DataCache
/// (so backup tools skip it), written when the directory is made or found empty, beside DiskLru's journal and
/// values. Anything else is refused untouched: DiskLru deletes the files of a journal it does not recognise, and a
/// data cache may only delete its own (a thumbnail cache directory is refused the same way, and the pipeline
/// refuses a DataCache directory).
enum DataCacheDirectory {
    static let markerPhrase = "thumbcache's DataCache"
    static let markerText = """
        \(CacheDirectory.signature)
        # This file is a cache directory tag created by \(markerPhrase).
        # For information about cache directory tags, see https://bford.info/cachedir/

        """

    /// Creates `url` and its marker if it is missing or empty; accepts it if marked; refuses anything else.
    static func prepare(_ url: URL) throws(DataCacheError) {
        let marker = url.appendingPathComponent(CacheDirectory.markerName).path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .notADataCacheDirectory(path: url.path, reason: "it is a file") }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else {
                throw .disk(directory: url.path, .io(operation: "list", path: url.path, errno: EACCES))
            }
            if !names.isEmpty {
                let text = FileManager.default.contents(atPath: marker).map { String(decoding: $0, as: UTF8.self) } ?? ""
                guard text.hasPrefix(CacheDirectory.signature), text.contains(markerPhrase) else {
                    throw .notADataCacheDirectory(path: url.path, reason: "it is not empty and has no DataCache CACHEDIR.TAG")
                }
                return
            }
        } else {
            do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
                throw .disk(directory: url.path, .io(operation: "create directory", path: url.path, errno: EACCES))
            }
        }
        do { try CacheDirectory.createMarker(at: marker, text: markerText) } catch { throw .disk(directory: url.path, error) }
    }
}
