import DiskLru
import Foundation

/// A cache directory read without changing it: no lock is taken, nothing is created, renamed or deleted.
/// The journal is `journal`, or `journal.bkp` when only the backup exists (every implementation restores it at open).
struct ReadOnlyCacheDirectory {
    let path: String
    /// `journal`, or `journal.bkp` when there is no journal.
    let journalName: String
    let journalSize: Int
    let scan: DiskLruJournalScan
    /// Every name in the directory, sorted.
    let files: [DirectoryFile]
    private let filesByName: [String: DirectoryFile]

    init(path: String) throws(InspectError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such directory")
        }
        guard isDirectory.boolValue else { throw .notADirectory(path: path) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        self.path = path
        files = names.map { DirectoryFile(directory: path, name: $0) }
        filesByName = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let regular = Set(files.filter { $0.kind == .regular }.map(\.name))
        if regular.contains(DiskLruCache.journalFileName) {
            journalName = DiskLruCache.journalFileName
        } else if regular.contains(DiskLruCache.journalBackupFileName) {
            journalName = DiskLruCache.journalBackupFileName
        } else {
            throw .noJournal(path: path)
        }
        let journalPath = path + "/" + journalName
        guard let data = FileManager.default.contents(atPath: journalPath) else {
            throw .unreadable(path: journalPath, reason: "permission denied or I/O error")
        }
        journalSize = data.count
        do {
            scan = try DiskLruJournalScan(journal: [UInt8](data))
        } catch {
            throw .corruptJournal(path: journalPath, reason: error.reason)
        }
    }

    func file(named name: String) -> DirectoryFile? { filesByName[name] }
}
