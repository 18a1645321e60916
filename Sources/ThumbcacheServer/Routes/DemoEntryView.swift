import Foundation
import ThumbcacheKit

/// `/demo`'s third panel: one source's DiskLru entry as the cache sees it, as JSON. Its key, each value (the
/// metadata JSON, the original, each ladder size with its formats and their byte counts) and the journal lines
/// that name the key. Read through the pipeline's public API (`info(for:)`, `journalFile()`), and bounded: the
/// journal's last `journalTailBytes`, at most `maxJournalLines` lines of them, the metadata as parsed.
struct DemoEntryView: Sendable {
    let pipeline: ThumbnailPipeline
    static let journalTailBytes = 1 << 20
    static let maxJournalLines = 40

    func json(for source: ImageSource) throws(PipelineError) -> [String: Any] {
        guard let info = try pipeline.info(for: source) else {
            let key = source.keyed(by: pipeline.configuration.cacheKeyRule).cacheKey
            return ["source": source.normalized, "stored": false, "key": key, "journal": journalLines(naming: key)]
        }
        let metadata = info.metadata
        let lengths = info.valueLengths
        var values: [[String: Any]] = [
            ["index": 0, "name": "metadata", "bytes": lengths.first ?? 0,
             "json": (try? JSONSerialization.jsonObject(with: metadata.encoded())) ?? [:]],
            ["index": 1, "name": "original", "bytes": lengths.count > 1 ? lengths[1] : 0,
             "format": metadata.original.format, "width": metadata.original.width, "height": metadata.original.height],
        ]
        let ladder = pipeline.configuration.ladder
        for size in ladder.sizes {
            guard let index = ladder.valueIndex(of: size) else { continue }
            let parts = metadata.thumbnails.first { $0.size == size }?.parts ?? []
            values.append(["index": index, "name": "\(size) px", "bytes": index < lengths.count ? lengths[index] : 0,
                           "formats": parts.map { ["format": $0.format, "bytes": $0.bytes] }])
        }
        return ["source": source.normalized, "stored": true, "key": info.cacheKey, "values": values,
                "processed": info.processed.map(\.dictionary),
                "fresh": info.freshness.isFresh, "journal": journalLines(naming: info.cacheKey)]
    }

    /// The journal's lines that name `key` (`DIRTY`, `CLEAN` with the value lengths, `READ`, `REMOVE`), from its
    /// last `journalTailBytes`, the latest `maxJournalLines`.
    func journalLines(naming key: String) -> [String] {
        guard let handle = try? FileHandle(forReadingFrom: pipeline.journalFile()) else { return [] }
        defer { try? handle.close() }
        let end = (try? handle.seekToEnd()) ?? 0
        let start = end > UInt64(Self.journalTailBytes) ? end - UInt64(Self.journalTailBytes) : 0
        try? handle.seek(toOffset: start)
        let tail = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        let lines = tail.split(separator: "\n").filter { $0.split(separator: " ").dropFirst().first == Substring(key) }
        return lines.suffix(Self.maxJournalLines).map(String.init)
    }
}
