import ImageDecode
import ThumbcacheKit

/// One checked path's `Content-Disposition` values, built once per format it is answered in and then reused: a
/// hit's answer only looks its value up, whatever the URL put into it (building it per answer cost a memory hit up
/// to 47 ms of CPU for a long non-ASCII `fn`: issue 33). Held by the path's entry in `ThumbnailChecks`, so it goes
/// when that does.
final class PreparedDisposition: Sendable {
    let disposition: ContentDisposition

    private struct State {
        var values: [ImageFormat: String] = [:]
        var builds = 0
    }

    private let state = Locked(State())

    /// Roughly what one path's values hold at most: one per format, and each in the memory-hit heads kept.
    static let maximumBytes = (ImageFormat.allCases.count + PreparedHeads.kept) * ContentDisposition.maximumValueBytes

    init(_ disposition: ContentDisposition) {
        self.disposition = disposition
    }

    /// The value for an answer in `format`, built the first time it is asked for.
    func value(for format: ImageFormat) -> String {
        // Built under the lock (a bounded few microseconds, once per format) so it is built exactly once.
        state.withLock { state in
            if let value = state.values[format] { return value }
            let value = disposition.value(for: format)
            state.values[format] = value
            state.builds += 1
            return value
        }
    }

    /// How many values were built: one per format answered, however many answers (what tests check).
    var builds: Int { state.withLock { $0.builds } }
}
