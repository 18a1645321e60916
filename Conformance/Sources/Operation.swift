import Foundation

/// One vector step's action, decoded from its JSON object (field names are listed in Conformance/README.md).
indirect enum Operation: Sendable {
    case open(params: OpenParams, options: [String: String])
    case reopen(options: [String: String])
    case simple(String)  // close, flush, evictAll, runCleanup: commands without arguments whose success is `ok`
    case size
    case iterate
    case snapshots
    case edit(key: String, handle: String)
    case write(handle: String, index: Int, value: Data)
    case set(key: String, values: [Data])
    case finishEdit(command: String, handle: String)  // commit, abort, abortUnlessCommitted
    case editorRead(handle: String, index: Int)
    case get(key: String)
    case snapshot(key: String, handle: String)
    case snapshotRead(handle: String, index: Int)
    case snapshotEdit(handle: String, editor: String)
    case snapshotClose(handle: String)
    case remove(key: String)
    case setMaxSize(Int64)
    case journal
    case files(names: [String])
    case file(name: String)
    case writeFile(name: String, content: Data)
    case deleteFile(name: String)
    case wipeDirectory
    case journalFault(on: Bool)
    case repeatSteps(times: Int, steps: [Step])

    /// Decodes `fields` (the step object minus expectations); throws a message naming the bad field.
    init(fields f: StepFields, params: OpenParams) throws(StepFields.Failure) {
        let op = try f.string("op")
        switch op {
        case "open":
            self = .open(
                params: OpenParams(
                    appVersion: try f.optionalInt("appVersion").map(Int.init) ?? params.appVersion,
                    valueCount: try f.optionalInt("valueCount").map(Int.init) ?? params.valueCount,
                    maxSize: try f.optionalInt("maxSize") ?? params.maxSize),
                options: try f.options())
        case "reopen": self = .reopen(options: try f.options())
        case "close", "flush", "evictAll", "runCleanup": self = .simple(op)
        case "size": self = .size
        case "iterate": self = .iterate
        case "snapshots": self = .snapshots
        case "edit":
            let key = try f.string("key")
            self = .edit(key: key, handle: try f.optionalString("as") ?? key)
        case "write":
            self = .write(handle: try f.handle("editor"), index: try f.int("index"), value: try f.value("value"))
        case "set": self = .set(key: try f.string("key"), values: try f.values("values"))
        case "commit", "abort", "abortUnlessCommitted": self = .finishEdit(command: op, handle: try f.handle("editor"))
        case "editorRead": self = .editorRead(handle: try f.handle("editor"), index: try f.int("index"))
        case "get": self = .get(key: try f.string("key"))
        case "snapshot":
            let key = try f.string("key")
            self = .snapshot(key: key, handle: try f.optionalString("as") ?? key)
        case "snapshotRead": self = .snapshotRead(handle: try f.string("snapshot"), index: try f.int("index"))
        case "snapshotEdit": self = .snapshotEdit(handle: try f.string("snapshot"), editor: try f.string("as"))
        case "snapshotClose": self = .snapshotClose(handle: try f.string("snapshot"))
        case "remove": self = .remove(key: try f.string("key"))
        case "setMaxSize": self = .setMaxSize(try f.int64("value"))
        case "journal": self = .journal
        case "files": self = .files(names: try f.strings("present") + f.strings("absent"))
        case "file": self = .file(name: try f.string("name"))
        case "writeFile": self = .writeFile(name: try f.string("name"), content: try f.value("content"))
        case "deleteFile": self = .deleteFile(name: try f.string("name"))
        case "wipeDirectory": self = .wipeDirectory
        case "journalFault":
            switch try f.string("state") {
            case "on": self = .journalFault(on: true)
            case "off": self = .journalFault(on: false)
            case let other: throw .init("journalFault state must be \"on\" or \"off\", not \"\(other)\"")
            }
        case "repeat":
            self = .repeatSteps(times: try f.int("times"), steps: try f.steps("steps", params: params))
        default: throw .init("unknown op \"\(op)\"")
        }
        try f.rejectUnused()
    }

    /// The name shown in diffs.
    var label: String {
        switch self {
        case .open: "open"
        case .reopen: "reopen"
        case .simple(let command): command
        case .size: "size"
        case .iterate: "iterate"
        case .snapshots: "snapshots"
        case .edit(let key, _): "edit \(key)"
        case .write(let h, let i, _): "write \(h)[\(i)]"
        case .set(let key, _): "set \(key)"
        case .finishEdit(let command, let h): "\(command) \(h)"
        case .editorRead(let h, let i): "editorRead \(h)[\(i)]"
        case .get(let key): "get \(key)"
        case .snapshot(let key, _): "snapshot \(key)"
        case .snapshotRead(let h, let i): "snapshotRead \(h)[\(i)]"
        case .snapshotEdit(let h, _): "snapshotEdit \(h)"
        case .snapshotClose(let h): "snapshotClose \(h)"
        case .remove(let key): "remove \(key)"
        case .setMaxSize(let n): "setMaxSize \(n)"
        case .journal: "journal"
        case .files: "files"
        case .file(let name): "file \(name)"
        case .writeFile(let name, _): "writeFile \(name)"
        case .deleteFile(let name): "deleteFile \(name)"
        case .wipeDirectory: "wipeDirectory"
        case .journalFault(let on): "journalFault \(on ? "on" : "off")"
        case .repeatSteps(let times, _): "repeat \(times)"
        }
    }
}
