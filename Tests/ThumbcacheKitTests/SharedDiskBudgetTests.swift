import DiskLru
import Foundation
import OriginTestSupport
import Processing
import Testing
@testable import ThumbcacheKit

/// `--max-disk-size` shared by `entries/` and `variants/` (`SharedDiskBudget`): the entries never get less than the
/// total minus the variants' share, the variants pay for their own overshoot, and whatever is on disk counts at start
/// (a lowered total or share, a `variants/` the configuration no longer uses) and at purge-all. Every trim asserted
/// on is synchronous: the caches trim in the background as in production, and no verdict waits for that queue.
@Suite(.serialized) struct SharedDiskBudgetTests {
    let server: OriginServer

    init() throws { server = try OriginServer() }

    static let total: Int64 = 8 << 20

    /// Bytes of the value files under `folder` (DiskLru's journal and lock aside): what the directory holds on disk.
    static func valueBytes(_ folder: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix("journal") }.reduce(0) { sum, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return sum + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    static func onDisk(_ harness: PipelineHarness) -> Int64 {
        valueBytes(harness.directory.appendingPathComponent("entries")) + valueBytes(harness.directory.appendingPathComponent("variants"))
    }

    static func variantsFolder(_ harness: PipelineHarness) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: harness.directory.appendingPathComponent("variants").path)) ?? []).sorted()
    }

    /// `path` served by the test origin (the fixture JPEG, fresh for an hour).
    func served(_ path: String) throws -> ImageSource {
        server.route(path) { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=3600")], body: Fixtures.jpeg) }
        return try ImageSource(server.url(path))
    }

    /// A pipeline with `total` and `share`, and `w:<width>` variants of `path` stored in it (their bytes > 0).
    func harnessWithVariants(total: Int64, share: Int64, of path: String,
                             widths: [Int]) async throws -> (harness: PipelineHarness, source: ImageSource, variants: DiskLruCache) {
        let harness = try PipelineHarness { $0.maxDiskSize = total; $0.maxVariantDiskSize = share }
        let source = try served(path)
        try await Self.variants(of: source, widths: widths, in: harness)
        let variants = try #require(harness.pipeline.store.variants).cache
        #expect(variants.size > 0)
        return (harness, source, variants)
    }

    /// `w:<width>` variants of `source`, rendered and stored in this order.
    @discardableResult
    static func variants(of source: ImageSource, widths: [Int], in harness: PipelineHarness) async throws -> [ThumbnailResult] {
        var made: [ThumbnailResult] = []
        for width in widths { made.append(try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:\(width)"))) }
        return made
    }

    /// Issue 33's case and the other shares: originals filling the entries up to their floor, then variants
    /// written to three times their share (or 6 MB), checked after every write.
    @Test(arguments: [1, 2 << 20, 4 << 20, 8 << 20] as [Int64])
    func variantWritesNeverTakeTheEntriesBelowTheirFloor(share: Int64) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-budget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = try DiskLruCache(directory: directory.appendingPathComponent("entries"), appVersion: 1, valueCount: 1,
                                       maxSize: Self.total, options: DiskLruOptions(cleanup: .inline))
        let budget = SharedDiskBudget(total: Self.total, share: share, entries: entries)
        // The variants as a server opens them: trimmed in the background, so only the writer's own trim is asserted on.
        let variants = try VariantStore(directory: directory.appendingPathComponent("variants"), maxSize: share,
                                        access: StoreAccess(lockTimeout: .seconds(5)), sharing: budget)
        let floor = Self.total - share
        let original = 256 << 10
        let originals = Int(floor / Int64(original))
        for index in 0..<originals { try entries.setData([Data(count: original)], forKey: "original\(index)") }
        #expect(entries.size <= floor && entries.entryCount == originals)

        let variant = 512 << 10
        let writes = Int(3 * max(share, 2 << 20) / Int64(variant))
        for index in 0..<writes {
            // What `VariantStore.save` does after its write, with bytes of a known size rather than a render.
            try variants.cache.setData([Data("{}".utf8), Data(count: variant)], forKey: "source-\(index)")
            budget.variantsChanged(variants.cache)
            #expect(variants.cache.size <= share, "write \(index): the variants keep to their share at once")
            #expect(entries.maxSize >= max(1, floor), "write \(index): the entries' bound stays at or above the floor")
            #expect(entries.entryCount == originals, "write \(index): no original evicted while the entries keep to their floor")
            #expect(entries.size + variants.cache.size <= Self.total, "write \(index)")
        }
        // The floor holds even while the variants are over their share (a trim skips a variant being written).
        #expect(budget.entriesBound(whileVariantsHold: 3 * share) == max(1, floor))
        #expect(budget.entriesBound(whileVariantsHold: 0) == Self.total)
        try variants.cache.close()
        try entries.close()
    }

    @Test func withoutAShareTheEntriesHaveTheWholeTotal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-budget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = try DiskLruCache(directory: directory, appVersion: 1, valueCount: 1, maxSize: Self.total)
        let budget = SharedDiskBudget(total: Self.total, share: 0, entries: entries)
        #expect(budget.entriesBound(whileVariantsHold: 0) == Self.total)
        #expect(budget.entriesBound(whileVariantsHold: Self.total) == Self.total)
        try entries.close()
    }

    /// End to end through `VariantStore.save`: entries at their floor plus 1 KB, then rendered variants to more
    /// than twice the share.
    @Test func renderedVariantsPayForTheirOwnOvershoot() async throws {
        let share: Int64 = 16 << 10
        let harness = try PipelineHarness { $0.maxVariantDiskSize = share }
        let source = try served("/f.jpg")
        _ = try await harness.pipeline.thumbnail(for: source, size: 128)
        let entriesBytes = harness.pipeline.store.entries.cache.size
        let total = entriesBytes + share + 1024
        try await harness.reopen { $0.maxDiskSize = total }
        let entries = harness.pipeline.store.entries.cache
        let variants = try #require(harness.pipeline.store.variants)
        var written: Int64 = 0
        for width in stride(from: 40, through: 220, by: 10) {
            let made = try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:\(width)"))
            #expect(made.rendered && made.bytesStored > 0, "w:\(width)")
            written += Int64(made.bytesStored)
            #expect(variants.cache.size <= share, "w:\(width)")
            #expect(entries.maxSize >= total - share, "w:\(width)")
            #expect(entries.entryCount == 1 && entries.size == entriesBytes, "w:\(width): the source's entry stays whole")
            #expect(entries.size + variants.cache.size <= total, "w:\(width)")
        }
        #expect(written > 2 * share, "the variants were written well past their share")
        await harness.close()
        server.shutdown()
    }

    /// `--variant-disk-size 0` over a `variants/` a run with a share left: deleted at start (through DiskLru, so
    /// under its lock), its lock file aside, and nothing is left outside the budget.
    @Test func aVariantsFolderTheConfigurationNoLongerUsesIsDeletedAtStart() async throws {
        let total: Int64 = 64 << 10
        let (harness, source, _) = try await harnessWithVariants(total: total, share: 16 << 10, of: "/z.jpg", widths: [30, 60, 90])
        try await harness.reopen { $0.maxVariantDiskSize = 0 }
        #expect(harness.pipeline.store.variants == nil)
        #expect(Self.variantsFolder(harness) == [DiskLruCache.lockFileName], "journal and value files deleted")
        #expect(harness.pipeline.store.entries.cache.maxSize == total && Self.onDisk(harness) <= total)
        #expect(try await harness.pipeline.processed(for: source, options: try ProcessingOptions(parsing: "w:30")).rendered, "not served from the deleted variants")
        // A later start finds nothing to delete and leaves the lock file alone.
        try await harness.reopen()
        #expect(Self.variantsFolder(harness) == [DiskLruCache.lockFileName])
        await harness.close()
        server.shutdown()
    }

    /// With variants off, purge-all also deletes a `variants/` written since the start by a process sharing the
    /// directory with a share of its own, and counts its bytes; that process, still open, finds an empty cache it
    /// can write to, not a corrupt one (the deletion took its lock).
    @Test func purgeAllDeletesVariantsEvenWhenTheyAreOff() async throws {
        let harness = try PipelineHarness { $0.maxVariantDiskSize = 0 }
        _ = try await harness.pipeline.thumbnail(for: try served("/p.jpg"), size: 64)
        let entriesBytes = harness.pipeline.store.entries.cache.size
        let other = try VariantStore(directory: harness.directory.appendingPathComponent("variants"), maxSize: 1 << 20,
                                     access: StoreAccess(lockMode: .perAccess, lockTimeout: .seconds(5), cleanup: .inline))
        try other.cache.setData([Data("{}".utf8), Data(count: 10_000)], forKey: "other-process")
        let variantBytes = other.cache.size

        let removed = try harness.pipeline.removeAll()
        #expect(removed.entries == 1 && removed.bytes == entriesBytes + variantBytes)
        #expect(Self.variantsFolder(harness) == [DiskLruCache.lockFileName])
        #expect(Self.onDisk(harness) == 0 && harness.pipeline.store.entries.cache.size == 0)
        #expect(other.cache.keys().isEmpty && other.cache.size == 0 && other.cache.recoveredCorruption == nil)
        try other.cache.setData([Data("{}".utf8), Data(count: 100)], forKey: "after-the-purge")
        #expect(other.cache.keys() == ["after-the-purge"])
        try other.cache.close()
        await harness.close()
        server.shutdown()
    }

    /// A smaller share at the next start: the variants are trimmed to it during the start, the entries' bound follows,
    /// and the most recently used variants are the ones kept. A larger one keeps them all.
    @Test func aChangedShareAcrossARestartIsAppliedAtStart() async throws {
        let total: Int64 = 1 << 20
        // The largest first, so the newest (kept by the trim, least recently used go first) fits in half of them.
        let widths = [200, 160, 120, 80, 40]
        let (harness, _, before) = try await harnessWithVariants(total: total, share: 256 << 10, of: "/s.jpg", widths: widths)
        let (variantBytes, newest) = (before.size, before.keys().last)

        try await harness.reopen { $0.maxVariantDiskSize = variantBytes * 4 }
        let larger = try #require(harness.pipeline.store.variants).cache
        #expect(larger.size == variantBytes && larger.maxSize == variantBytes * 4, "a larger share keeps every variant")

        let smaller = variantBytes / 2
        try await harness.reopen { $0.maxVariantDiskSize = smaller }
        let variants = try #require(harness.pipeline.store.variants).cache
        let entries = harness.pipeline.store.entries.cache
        #expect(variants.size > 0 && variants.size <= smaller, "trimmed to the new share during the start")
        #expect(variants.keys().last == newest && variants.entryCount < widths.count)
        #expect(entries.maxSize == total - variants.size)
        #expect(entries.size + variants.size <= total && Self.onDisk(harness) <= total)
        await harness.close()
        server.shutdown()
    }

    /// A lowered `--max-disk-size` at the next start: what is on disk is trimmed to it during the start, the
    /// variants to their share of the new total and the entries to what is left.
    @Test func aLoweredTotalIsAppliedAtStart() async throws {
        let harness = try PipelineHarness { $0.maxDiskSize = 8 << 20 }
        for index in 0..<6 {
            let source = try served("/t\(index).jpg")
            _ = try await harness.pipeline.thumbnail(for: source, size: 128)
            try await Self.variants(of: source, widths: [50, 100], in: harness)
        }
        let stored = harness.pipeline.store.entries.cache.size + (try #require(harness.pipeline.store.variants).cache.size)
        let entryCount = harness.pipeline.store.entries.cache.entryCount

        let lowered = stored / 2
        try await harness.reopen { $0.maxDiskSize = lowered }
        let entries = harness.pipeline.store.entries.cache
        let variants = try #require(harness.pipeline.store.variants).cache
        #expect(variants.size <= lowered / 4, "the default share, a quarter of the new total")
        #expect(entries.size + variants.size <= lowered, "trimmed during the start")
        #expect(entries.entryCount > 0 && entries.entryCount < entryCount)
        #expect(Self.onDisk(harness) <= lowered)
        await harness.close()
        server.shutdown()
    }
}
