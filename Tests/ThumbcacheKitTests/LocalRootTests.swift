import Foundation
import Testing
@testable import ThumbcacheKit

/// `SourcePolicy.localRoot` and `FileFetcher`'s open beneath it: the files under the root are read whatever
/// `allowLoopback` says, and no path or link reaches outside, even one that reaches the fetcher un-normalised.
@Suite struct LocalRootTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-root-\(UUID().uuidString)")
    var root: String { base.appendingPathComponent("root").path }

    init() throws {
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try files.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("ImageDecodeTests/Fixtures/testorig.jpg"))
        try jpeg.write(to: URL(fileURLWithPath: root + "/sub/a.jpg"))
        try jpeg.write(to: base.appendingPathComponent("outside/b.jpg"))
        // A link that stays inside is refused too: the open follows none.
        try files.createSymbolicLink(atPath: root + "/inside.jpg", withDestinationPath: root + "/sub/a.jpg")
        try files.createSymbolicLink(atPath: root + "/out", withDestinationPath: base.appendingPathComponent("outside").path)
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
    }

    func fetch(_ path: String) throws(PipelineError) -> FetchOutcome {
        try FileFetcher(limits: .originals, policy: SourcePolicy(allowLoopback: false, allowPrivate: false, localRoot: root))
            .fetch(path, conditional: [])
    }

    func refusal(_ path: String) -> PipelineError? {
        do { _ = try fetch(path); return nil } catch { return error }
    }

    @Test func filesUnderTheRootAreRead() throws {
        guard case .body(let original, _, _, _, _) = try fetch(root + "/sub/a.jpg") else { Issue.record("no body"); return }
        #expect(original.byteCount > 0)
        try? FileManager.default.removeItem(at: base)
    }

    @Test func nothingOutsideIsReached() {
        defer { try? FileManager.default.removeItem(at: base) }
        let outside = base.appendingPathComponent("outside/b.jpg").path
        guard case .sourceRefused(_, let reason)? = refusal(outside) else { Issue.record("\(String(describing: refusal(outside)))"); return }
        #expect(reason.contains("local files are not allowed"))
        for path in [root + "/inside.jpg", root + "/out/b.jpg"] {
            guard case .sourceRefused(_, let reason)? = refusal(path) else { Issue.record("\(path): \(String(describing: refusal(path)))"); continue }
            #expect(reason.contains("symbolic link"), "\(path)")
        }
        // A path that reaches the fetcher with dot segments (ImageSource would have removed them) is not walked.
        guard case .fileNotFound? = refusal(root + "/sub/../../outside/b.jpg") else { Issue.record("dot segments"); return }
        guard case .fileUnreadable(_, let fifo)? = refusal(root + "/fifo") else { Issue.record("fifo"); return }
        #expect(fifo.contains("FIFO"))
        guard case .fileUnreadable(_, let directory)? = refusal(root + "/sub") else { Issue.record("directory"); return }
        #expect(directory.contains("directory"))
    }
}
