import Foundation

/// Originals downloaded and not yet stored, by cache key. A source's origin flight ends when its download does,
/// but its entry is written only once the first thumbnail has decoded: a request for the source arriving in
/// between would otherwise download it again, and its save would replace the entry, dropping the thumbnail
/// the first request stored. Such a request takes the download from here instead (its save then adds a size).
///
/// A held original goes when a render of it ends, stored or not; one whose render never ran (every waiter
/// left first) expires, so a download file is never kept for long.
final class UnstoredOriginals: Sendable {
    private struct Held {
        let origin: ThumbnailPipeline.Origin
        let since: ContinuousClock.Instant
    }

    private let held = Locked<[String: Held]>([:])
    private let maxAge: Duration

    init(maxAge: Duration = .seconds(60)) {
        self.maxAge = maxAge
    }

    /// Holds a just-downloaded, storable origin until a render of it ends.
    func hold(_ origin: ThumbnailPipeline.Origin, for key: String) {
        guard origin.downloaded != nil, origin.storable else { return }
        // The render place belongs to the flight that asked for it, not to later requests that reuse the download.
        var origin = origin
        origin.admission = nil
        let now = ContinuousClock.now
        held.withLock { held in
            held = held.filter { now - $0.value.since < maxAge }
            held[key] = Held(origin: origin, since: now)
        }
    }

    /// The held download of `key`, if one is held and not expired.
    func origin(for key: String) -> ThumbnailPipeline.Origin? {
        held.withLock { held in
            guard let entry = held[key] else { return nil }
            guard ContinuousClock.now - entry.since < maxAge else {
                held[key] = nil
                return nil
            }
            return entry.origin
        }
    }

    /// Lets go of the download of `key` made at `responseTime` (not of a newer one held since).
    func release(_ key: String, fetchedAt responseTime: Double) {
        held.withLock { held in
            if held[key]?.origin.metadata.responseTime == responseTime { held[key] = nil }
        }
    }

    func removeAll() {
        held.withLock { $0.removeAll() }
    }

    /// How many downloads are held (for tests).
    var count: Int { held.withLock { $0.count } }
}
