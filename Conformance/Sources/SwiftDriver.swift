import DiskLru
import Foundation

/// Our DiskLru, in-process, behind the same line protocol as the Java driver (Conformance/README.md), so every
/// implementation is replayed by identical commands. Cleanup is manual: jobs run only on `runCleanup`, like
/// the Java driver's queued executor.
final class SwiftDriver: Driver {
    let name = "swift"
    /// Every instance opened since the last reset; the last one is the current cache.
    private var caches: [DiskLruCache] = []
    private var editors: [String: DiskLruEditor] = [:]
    private var snapshots: [String: DiskLruSnapshot] = [:]
    private var faultActive = false

    private struct ProtocolError: Error { let message: String }

    func send(_ command: String) -> String {
        let tokens = command.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        do {
            return try execute(tokens)
        } catch let error as DiskLruError {
            return "error \(SwiftDriver.kind(error)) " + "\(error)".replacingOccurrences(of: "\n", with: " ")
        } catch let error as ProtocolError {
            return "error protocol \(error.message)"
        } catch {
            return "error internal \(error)"
        }
    }

    func reset() {
        if faultActive { try? JournalFault.disable() }
        faultActive = false
        for s in snapshots.values { s.close() }
        for c in caches { try? c.close() }
        caches = []
        editors = [:]
        snapshots = [:]
    }

    private func execute(_ t: [String]) throws -> String {
        func arity(_ n: Int) throws { if t.count != n { throw ProtocolError(message: "\(t[0]) takes \(n - 1) arguments") } }
        switch t[0] {
        case "hello": return "ok swift"
        case "open": return try open(t)
        case "reset": reset(); return "ok"
        case "close": try cache().close(); return "ok"
        case "edit":
            try arity(3)
            guard let editor = try cache().edit(try key(t[2])) else { return "null" }
            editors[t[1]] = editor
            return "ok"
        case "write":
            try arity(4)
            try editor(t[1]).set(try hex(t[3]), at: try index(t[2]))
            return "ok"
        case "editorRead":
            try arity(3)
            return try editor(t[1]).publishedData(at: try index(t[2])).map { "ok " + Hex.encode($0) } ?? "null"
        case "commit": try arity(2); try editor(t[1]).commit(); return "ok"
        case "abort": try arity(2); try editor(t[1]).abort(); return "ok"
        case "abortUnlessCommitted": try arity(2); try editor(t[1]).abortUnlessCommitted(); return "ok"
        case "get":
            try arity(2)
            guard let s = try cache().snapshot(forKey: try key(t[1])) else { return "null" }
            defer { s.close() }
            return "ok " + (try values(s)).joined(separator: " ")
        case "snapshot":
            try arity(3)
            guard let s = try cache().snapshot(forKey: try key(t[2])) else { return "null" }
            snapshots[t[1]] = s
            return (["ok"] + (0..<(try cache().valueCount)).map { String(s.length(at: $0)) }).joined(separator: " ")
        case "snapshotRead": try arity(3); return "ok " + Hex.encode(try snapshot(t[1]).data(at: try index(t[2])))
        case "snapshotEdit":
            try arity(3)
            guard let editor = try snapshot(t[1]).edit() else { return "null" }
            editors[t[2]] = editor
            return "ok"
        case "snapshotClose": try arity(2); try snapshot(t[1]).close(); snapshots[t[1]] = nil; return "ok"
        case "remove": try arity(2); return "ok \(try cache().remove(try key(t[1])))"
        case "size": return "ok \(try cache().size)"
        case "setMaxSize":
            try arity(2)
            guard let n = Int64(t[1]) else { throw ProtocolError(message: "setMaxSize needs an integer") }
            try cache().setMaxSize(n)
            return "ok"
        case "flush": try cache().flush(); return "ok"
        case "evictAll": try cache().evictAll(); return "ok"
        case "journalFault":
            try arity(2)
            switch t[1] {
            case "on": try JournalFault.enable(journal: try cache().directory.appendingPathComponent("journal"))
            case "off": try JournalFault.disable()
            default: throw ProtocolError(message: "expected on or off, got \(t[1])")
            }
            faultActive = t[1] == "on"
            return "ok"
        case "runCleanup":
            // Like a background job: its failures are not the caller's (the Java driver's jobs swallow them too);
            // their effects (journal not compacted, editors refused) are what vectors check.
            _ = try? cache().performCleanup()
            return "ok"
        case "snapshots":
            var out = ["ok"]
            for s in try cache().snapshots() {
                defer { s.close() }
                out.append(KeyToken.encode(s.key) + "=" + (try values(s)).joined(separator: ","))
            }
            return out.joined(separator: " ")
        default: throw ProtocolError(message: "unknown command \(t[0])")
        }
    }

    /// `open <dir> <appVersion> <valueCount> <maxSize> [locking=none|failFast] [durability=none|fsync]`.
    private func open(_ t: [String]) throws -> String {
        guard t.count >= 5, let appVersion = Int(t[2]), let valueCount = Int(t[3]), let maxSize = Int64(t[4]) else {
            throw ProtocolError(message: "usage: open <dir> <appVersion> <valueCount> <maxSize> [option=value...]")
        }
        var options = DiskLruOptions(cleanup: .manual)
        for option in t.dropFirst(5) {
            switch option {
            case "locking=none": options.locking = .none
            case "locking=failFast": options.locking = .failFast
            case "durability=none": options.durability = .none
            case "durability=fsync": options.durability = .fsync
            default: throw ProtocolError(message: "unknown open option \(option)")
            }
        }
        caches.append(try DiskLruCache(directory: URL(fileURLWithPath: t[1]), appVersion: appVersion,
                                       valueCount: valueCount, maxSize: maxSize, options: options))
        return "ok"
    }

    private func values(_ s: DiskLruSnapshot) throws -> [String] {
        let count = try cache().valueCount
        return try (0..<count).map { "\(s.length(at: $0)):" + Hex.encode(try s.data(at: $0)) }
    }

    private func cache() throws -> DiskLruCache {
        guard let c = caches.last else { throw ProtocolError(message: "no cache is open") }
        return c
    }

    private func editor(_ handle: String) throws -> DiskLruEditor {
        guard let e = editors[handle] else { throw ProtocolError(message: "unknown editor \(handle)") }
        return e
    }

    private func snapshot(_ handle: String) throws -> DiskLruSnapshot {
        guard let s = snapshots[handle] else { throw ProtocolError(message: "unknown snapshot \(handle)") }
        return s
    }

    private func key(_ token: String) throws -> String {
        guard let k = KeyToken.decode(token) else { throw ProtocolError(message: "bad key token \(token)") }
        return k
    }

    private func hex(_ token: String) throws -> Data {
        guard let d = Hex.decode(token) else { throw ProtocolError(message: "bad hex \(token)") }
        return d
    }

    private func index(_ token: String) throws -> Int {
        guard let i = Int(token) else { throw ProtocolError(message: "bad index \(token)") }
        return i
    }

    /// The protocol's error kinds are DiskLruError's case names (README, "Error kinds").
    static func kind(_ error: DiskLruError) -> String {
        switch error {
        case .invalidKey: "invalidKey"
        case .invalidArgument: "invalidArgument"
        case .closed: "closed"
        case .editorFinished: "editorFinished"
        case .snapshotClosed: "snapshotClosed"
        case .editInProgress: "editInProgress"
        case .incompleteEntry: "incompleteEntry"
        case .entryNotFound: "entryNotFound"
        case .locked: "locked"
        case .lockTimeout: "lockTimeout"
        case .readOnly: "readOnly"
        case .io: "io"
        }
    }
}
