import Foundation
import ImageDecode

/// Fills the cache for a list of URLs: every requested size of every URL, at most `concurrency` URLs in
/// flight (so at most that many downloads), through the same pipeline as `get` (HTTP semantics, coalescing).
/// Only counters and a sample of failures are kept; decodes in flight hold at most the pipeline's
/// `decodeBudget` together (a progressive JPEG's coefficients count), whatever `concurrency` is.
package struct CacheWarmer: Sendable {
    package let pipeline: ThumbnailPipeline
    package let sizes: [Int]
    package let concurrency: Int

    package init(pipeline: ThumbnailPipeline, sizes: [Int], concurrency: Int) {
        self.pipeline = pipeline
        self.sizes = Array(Set(sizes)).sorted(by: >)
        self.concurrency = max(1, concurrency)
    }

    /// Reads a URL list: one per line (LF or CRLF); blank lines and `#` comments are skipped; a UTF-8
    /// byte-order mark (as Windows editors write) is not part of the first URL; repeats are dropped (keeping
    /// the first), so a duplicated URL is fetched once.
    package static func parseList(_ text: String) -> [String] {
        var seen = Set<String>()
        var urls: [String] = []
        func add(_ line: Substring) {
            let url = line.trimmingCharacters(in: .whitespaces)
            guard !url.isEmpty, !url.hasPrefix("#"), seen.insert(url).inserted else { return }
            urls.append(url)
        }
        // The bytes are scanned for LF and CR: no second copy of the list (as `split` makes), no grapheme breaking.
        let bytes = text.utf8
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.index(bytes.startIndex, offsetBy: 3) : bytes.startIndex
        for index in bytes[start...].indices where bytes[index] == 0x0A || bytes[index] == 0x0D {
            add(text[start..<index])
            start = bytes.index(after: index)
        }
        add(text[start...])
        return urls
    }

    /// Warms every URL; `onProgress` is called after each one, `onFailure` with each failure as it happens
    /// (the report keeps only a sample, so memory does not grow with the failures). Cancelling the calling
    /// task stops the run: no new URL is started, in-flight ones are abandoned (nothing half-written is
    /// kept), and the report says how far it got.
    package func run(_ urls: [String], onProgress: (WarmReport) -> Void = { _ in },
                    onFailure: (WarmReport.Failure) -> Void = { _ in }) async -> WarmReport {
        await Self.run(urls, concurrency: concurrency, warm: { await self.warm($0) }, onProgress: onProgress, onFailure: onFailure)
    }

    /// The sliding window shared by every way of warming (this cache, or a running service through
    /// `ServerWarmer`): `warm` does one URL; at most `concurrency` are in flight; cancelling stops the run.
    package static func run(_ urls: [String], concurrency: Int, warm: @escaping @Sendable (String) async -> WarmReport.Outcome,
                           onProgress: (WarmReport) -> Void = { _ in },
                           onFailure: (WarmReport.Failure) -> Void = { _ in }) async -> WarmReport {
        let concurrency = max(1, concurrency)
        var report = WarmReport(total: urls.count)
        let started = ContinuousClock.now
        await withTaskGroup(of: (String, WarmReport.Outcome).self) { group in
            var next = urls.startIndex
            // A sliding window: a new URL starts only when one finishes, so at most `concurrency` are in flight.
            func startNext() {
                guard next < urls.endIndex, !Task.isCancelled else { return }
                let url = urls[next]
                next += 1
                group.addTask { (url, await warm(url)) }
            }
            for _ in 0..<concurrency { startNext() }
            while let (url, outcome) = await group.next() {
                if let failure = report.record(HTTPLocation.redacting(url), outcome) { onFailure(failure) }
                report.elapsed = ContinuousClock.now - started
                onProgress(report)
                startNext()
            }
        }
        report.elapsed = ContinuousClock.now - started
        report.interrupted = report.done < report.total
        return report
    }

    /// One URL, every size, largest first.
    private func warm(_ url: String) async -> WarmReport.Outcome {
        let source: ImageSource
        do { source = try ImageSource(url) } catch { return .failed(error.description) }
        var served: [ServedFrom] = []
        var downloaded = 0, stored = 0
        for size in sizes {
            do {
                let result = try await pipeline.thumbnail(for: source, size: size)
                // The cache still holds the old copy, but warming did not refresh it: the run must say so.
                if let stale = result.staleBecause { return .failed("stale copy kept: \(stale.originError)") }
                // Made but not stored (a full disk): the point of warming was the cache.
                if let reason = result.notCachedBecause { return .failed("not cached: \(reason)") }
                served.append(result.servedFrom)
                downloaded += result.bytesDownloaded
                stored += result.bytesStored
            } catch {
                if Task.isCancelled { return .cancelled }
                return .failed(error.description)
            }
        }
        if served.contains(.network) { return .fetched(downloaded: downloaded, stored: stored) }
        if served.contains(.revalidated) { return .revalidated(stored: stored) }
        return .fresh(stored: stored)
    }
}

/// What a warm run did: outcome counts, and the first failures as a sample (the full list goes to
/// `run`'s `onFailure`); also its progress while it runs.
package struct WarmReport: Sendable, Encodable {
    /// What warming one URL did.
    package enum Outcome: Sendable {
        case fetched(downloaded: Int, stored: Int)
        case revalidated(stored: Int)
        case fresh(stored: Int)
        case failed(String)
        case cancelled
    }

    package struct Failure: Sendable, Codable {
        package var url: String
        package var reason: String
    }

    package var total: Int
    package var fetched = 0
    /// Already fresh in the cache: nothing was fetched (missing sizes may still have been made).
    package var fresh = 0
    package var revalidated = 0
    package var failedCount = 0
    /// The first `Self.failureSampleSize` failures, for a report a person reads.
    package var failureSample: [Failure] = []
    package var bytesDownloaded: Int64 = 0
    package var bytesStored: Int64 = 0
    package var interrupted = false
    package var elapsed: Duration = .zero

    package static let failureSampleSize = 100

    init(total: Int) { self.total = total }

    package var done: Int { fetched + fresh + revalidated + failedCount }

    package var seconds: Double {
        elapsed / .seconds(1)
    }

    /// URLs per second so far.
    package var rate: Double { seconds > 0 ? Double(done) / seconds : 0 }

    /// Counts the outcome; returns the failure, if it is one.
    mutating func record(_ url: String, _ outcome: Outcome) -> Failure? {
        switch outcome {
        case .fetched(let downloaded, let stored):
            fetched += 1
            bytesDownloaded += Int64(downloaded)
            bytesStored += Int64(stored)
        case .revalidated(let stored):
            revalidated += 1
            bytesStored += Int64(stored)
        case .fresh(let stored):
            fresh += 1
            bytesStored += Int64(stored)
        case .failed(let reason):
            let failure = Failure(url: url, reason: reason)
            failedCount += 1
            if failureSample.count < Self.failureSampleSize { failureSample.append(failure) }
            return failure
        case .cancelled:
            break
        }
        return nil
    }

    /// The counts; the failures themselves are written by `WarmReportFile` as they happen.
    enum CodingKeys: String, CodingKey {
        case total, fetched, fresh, revalidated, failedCount, bytesDownloaded, bytesStored, interrupted, seconds
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(total, forKey: .total)
        try container.encode(fetched, forKey: .fetched)
        try container.encode(fresh, forKey: .fresh)
        try container.encode(revalidated, forKey: .revalidated)
        try container.encode(failedCount, forKey: .failedCount)
        try container.encode(bytesDownloaded, forKey: .bytesDownloaded)
        try container.encode(bytesStored, forKey: .bytesStored)
        try container.encode(interrupted, forKey: .interrupted)
        try container.encode(seconds, forKey: .seconds)
    }
}
