import Foundation
import OriginTestSupport
import Testing
@testable import ThumbcacheKit

/// A pressure source the test sets by hand: the monitor is driven with `check()`, no interval, no sleeps.
final class SetPressure: MemoryPressureSource {
    private let reading = Locked<MemoryPressureReading?>(nil)
    func set(_ value: MemoryPressureReading?) { reading.withLock { $0 = value } }
    func read() -> MemoryPressureReading? { reading.withLock { $0 } }
}

/// The library's memory-pressure rules: sources and their parsers on the kernel's text, the order they are
/// picked in, thresholds, and the caches (MemoryCache, DataCache, ThumbnailPipeline) trimming themselves.
@Suite struct MemoryPressureMonitorTests {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("pressure-kit-\(UUID().uuidString)")

    static let high = MemoryPressureReading.stall(someAverage10: 40)
    static let calm = MemoryPressureReading.stall(someAverage10: 0)

    func monitor(_ source: SetPressure, calmPolls: Int = 1, enabled: Bool = true) -> MemoryPressureMonitor {
        var configuration = MemoryPressureConfiguration()
        (configuration.source, configuration.interval, configuration.calmPolls, configuration.isEnabled) = (source, nil, calmPolls, enabled)
        return MemoryPressureMonitor(configuration: configuration)
    }

    func write(_ text: String, _ name: String) throws {
        let url = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    final class Counting: MemoryPressureResponder {
        func shrinkForMemoryPressure() {}
        func recoverFromMemoryPressure() {}
    }

    /// Registrations racing on a monitor that polls start one timer: a second timer made and dropped before it was
    /// resumed crashed the whole process (libdispatch refuses to release an inactive source). Many monitors, each
    /// with many registrations at once; the verdict is that the process lives and every cache is registered.
    @Test func racingRegistrationsStartOneTimerAndNothingCrashes() async {
        var configuration = MemoryPressureConfiguration()
        (configuration.source, configuration.interval) = (SetPressure(), .seconds(3600))
        for _ in 0..<50 {
            let monitor = MemoryPressureMonitor(configuration: configuration)
            let caches = (0..<16).map { _ in Counting() }
            await withTaskGroup(of: Void.self) { group in
                for cache in caches { group.addTask { monitor.register(cache) } }
            }
            #expect(monitor.registeredCount == 16)
        }
    }

    // MARK: Parsers, on text as the kernel writes it (Linux 6.x; written here, no machine's files are read)

    static let procPressure = """
        some avg10=12.50 avg60=3.10 avg300=0.84 total=48224155
        full avg10=4.02 avg60=1.00 avg300=0.27 total=19710366

        """
    static let memInfo = """
        MemTotal:       16326012 kB
        MemFree:          422868 kB
        MemAvailable:     612340 kB
        Buffers:          181232 kB
        Cached:          5012348 kB
        SwapTotal:       2097148 kB

        """

    @Test func parsersReadTheKernelsText() {
        #expect(PressureStallSource.someAverage10(Self.procPressure) == 12.5)
        #expect(PressureStallSource.someAverage10("full avg10=4.02 avg60=1.00 avg300=0.27 total=1\n") == nil)
        #expect(CgroupUsageSource.parse(current: "805306368\n", limit: "1073741824\n") == .usage(current: 805_306_368, limit: 1 << 30))
        #expect(CgroupUsageSource.parse(current: "805306368\n", limit: "max\n") == nil, "no limit: the machine is the bound")
        #expect(CgroupUsageSource.parse(current: "", limit: "1073741824\n") == nil)
        #expect(MemInfoSource.parse(Self.memInfo) == .available(available: 612_340 * 1024, total: 16_326_012 * 1024))
        #expect(MemInfoSource.parse("MemTotal: 100 kB\n") == nil, "no MemAvailable (Linux before 3.14)")
    }

    @Test func thresholdsClassifyEachKindOfReading() {
        let configuration = MemoryPressureConfiguration()
        #expect(configuration.level(of: .stall(someAverage10: 10)) == .high)
        #expect(configuration.level(of: .stall(someAverage10: 5)) == .moderate)
        #expect(configuration.level(of: .stall(someAverage10: 0.5)) == .low)
        #expect(configuration.level(of: .usage(current: 95, limit: 100)) == .high)
        #expect(configuration.level(of: .usage(current: 85, limit: 100)) == .moderate)
        #expect(configuration.level(of: .usage(current: 50, limit: 100)) == .low)
        #expect(configuration.level(of: .available(available: 4, total: 100)) == .high)
        #expect(configuration.level(of: .available(available: 7, total: 100)) == .moderate)
        #expect(configuration.level(of: .available(available: 30, total: 100)) == .low)
    }

    /// PSI first (the higher of the machine's and the cgroup's), else the cgroup's usage, else meminfo, else nothing.
    @Test func theAutomaticSourceFollowsTheOrder() throws {
        let (proc, root) = (work.appendingPathComponent("proc"), work.appendingPathComponent("cgroup"))
        let membership = work.appendingPathComponent("self-cgroup")
        try write("0::/app.slice/thumbcache.service\n", "self-cgroup")
        func automatic() -> MemoryPressureReading? {
            MemoryPressureSources.automatic(proc: proc, cgroupRoot: root, selfCgroup: membership)?.read()
        }
        #expect(automatic() == nil, "nothing readable: nothing watched")
        try write(Self.memInfo, "proc/meminfo")
        #expect(automatic() == .available(available: 612_340 * 1024, total: 16_326_012 * 1024))
        try write("max\n", "cgroup/app.slice/thumbcache.service/memory.max")
        try write("1000\n", "cgroup/app.slice/thumbcache.service/memory.current")
        #expect(automatic() == .available(available: 612_340 * 1024, total: 16_326_012 * 1024), "no cgroup limit: meminfo")
        try write("4000\n", "cgroup/app.slice/thumbcache.service/memory.max")
        #expect(automatic() == .usage(current: 1000, limit: 4000))
        try write("some avg10=2.00 avg60=0 avg300=0 total=1\nfull avg10=0 avg60=0 avg300=0 total=0\n",
                  "cgroup/app.slice/thumbcache.service/memory.pressure")
        #expect(automatic() == .stall(someAverage10: 2))
        try write(Self.procPressure, "proc/pressure/memory")
        #expect(automatic() == .stall(someAverage10: 12.5), "the worse of the machine's and the cgroup's stalls")
    }

    @Test func cgroupMemoryMaxIsReadFromTheOwnCgroup() throws {
        try write("0::/app.slice/thumbcache.service\n", "self-cgroup")
        try write("536870912\n", "cgroup/app.slice/thumbcache.service/memory.max")
        #expect(CgroupMemoryLimit.read(root: work.appendingPathComponent("cgroup"), selfCgroup: work.appendingPathComponent("self-cgroup")) == 512 << 20)
        #expect(CgroupDirectory.own(root: work, selfCgroup: work.appendingPathComponent("absent")) == nil)
    }

    // MARK: Caches trimming themselves

    @Test func aMemoryCacheHalvesUnderPressureAndRecoversWhenCalm() {
        let source = SetPressure()
        let monitor = monitor(source, calmPolls: 3)
        let cache = MemoryCache<Int, Int>(limits: .init(totalCost: 64 << 20, count: 1000, entryCost: 1 << 20), memoryPressure: monitor)
        for key in 0..<128 { cache.set(key, forKey: key, cost: 256 << 10) }  // 32 MiB in 128 entries
        source.set(Self.high)
        #expect(monitor.check() == .high)
        #expect(cache.count == 64 && cache.totalCost == 16 << 20, "half of what it held, least recently used first")
        #expect(cache.value(forKey: 0) == nil && cache.value(forKey: 127) != nil)
        for _ in 0..<10 { monitor.check() }
        #expect(cache.limits.totalCost == 2 << 20 && cache.count == 8, "a sixteenth of what it held, no lower")
        #expect(cache.isTrimmedForMemoryPressure)

        source.set(Self.calm)
        monitor.check()
        monitor.check()
        #expect(cache.limits.totalCost == 2 << 20, "fewer calm polls than calmPolls: no growth")
        monitor.check()
        #expect(cache.limits.totalCost == 4 << 20)
        for _ in 0..<9 { monitor.check() }
        #expect(cache.limits.totalCost == 64 << 20 && cache.limits.count == 1000 && !cache.isTrimmedForMemoryPressure)
        #expect(cache.count == 8, "recovering frees room; it refills nothing")
    }

    @Test func anUnboundedCacheGivesMemoryBackToo() {
        let source = SetPressure()
        let monitor = monitor(source)
        let cache = MemoryCache<Int, Int>(limits: .init(totalCost: .max, count: .max, entryCost: .max), memoryPressure: monitor)
        for key in 0..<1000 { cache.set(key, forKey: key, cost: 10) }
        source.set(Self.high)
        monitor.check()
        #expect(cache.count == 500)
        monitor.check()
        #expect(cache.count == 250)
    }

    @Test func disabledOrUnreadableChangesNothing() {
        let source = SetPressure()
        source.set(Self.high)
        let off = monitor(source, enabled: false)
        let cache = MemoryCache<Int, Int>(limits: .init(totalCost: 64 << 20, count: 1000), memoryPressure: off)
        for key in 0..<100 { cache.set(key, forKey: key, cost: 1 << 20 / 2) }
        #expect(off.check() == nil && cache.count == 100)
        let unreadable = SetPressure()
        let blind = monitor(unreadable)
        blind.register(cache)
        #expect(blind.check() == nil && cache.count == 100)
        let optedOut = MemoryCache<Int, Int>(limits: .init(totalCost: 64 << 20, count: 1000), memoryPressure: nil)
        for key in 0..<100 { optedOut.set(key, forKey: key, cost: 1 << 20 / 2) }
        let pressed = monitor(source)
        #expect(pressed.check() == .high && optedOut.count == 100 && pressed.registeredCount == 0)
    }

    @Test func cachesAreHeldWeakly() {
        let monitor = monitor(SetPressure())
        var cache: MemoryCache<Int, Int>? = MemoryCache(memoryPressure: monitor)
        #expect(monitor.registeredCount == 1)
        _ = cache
        cache = nil
        #expect(monitor.registeredCount == 0)
    }

    @Test func cachesTrimByDefaultThroughTheSharedMonitor() {
        #expect(DataCacheConfiguration().memoryPressure === MemoryPressureMonitor.shared)
        #expect(PipelineConfiguration(cacheDirectory: work).memoryPressure === MemoryPressureMonitor.shared)
        let before = MemoryPressureMonitor.shared.registeredCount
        let cache = MemoryCache<Int, Int>()
        #expect(MemoryPressureMonitor.shared.registeredCount >= 1)
        _ = (cache, before)
    }

    @Test func aDataCacheTrimsItsMemoryTier() async throws {
        let server = try OriginServer()
        let source = SetPressure()
        var configuration = DataCacheFixture.loopback
        configuration.memoryPressure = monitor(source)
        let cache = DataCache<ProfileOwner>(maxCount: 1000, configuration: configuration)
        for index in 0..<64 {
            let body = DataCacheFixture.body("u\(index)")
            server.route("/p/\(index).json") { _ in DataCacheFixture.json(body) }
            _ = await cache.fetchData(for: DataCacheFixture.owner("u\(index)", server, "/p/\(index).json"))
        }
        #expect(cache.count == 64)
        source.set(Self.high)
        configuration.memoryPressure?.check()
        #expect(cache.count == 32)
        #expect(cache.memory.keysInLruOrder.first == "u32", "the least recently used went")
        await cache.close()
        server.shutdown()
    }

    @Test func aPipelineTrimsItsMemoryCache() async throws {
        let source = SetPressure()
        let monitor = monitor(source)
        var configuration = PipelineConfiguration(cacheDirectory: work.appendingPathComponent("pipeline"))
        configuration.memoryPressure = monitor
        let pipeline = try ThumbnailPipeline(configuration: configuration)
        #expect(monitor.registeredCount == 1)
        source.set(Self.high)
        monitor.check()
        // Empty, it keeps room for the floor only (1 MiB, 16 entries) until the pressure has gone.
        #expect(pipeline.memory.isTrimmedForMemoryPressure)
        #expect(pipeline.memory.limits.totalCost == 1 << 20 && pipeline.memory.limits.count == 16)
        source.set(Self.calm)
        monitor.check()
        #expect(pipeline.memory.limits.totalCost == configuration.memoryLimits.totalCost)
        await pipeline.close()
    }
}
