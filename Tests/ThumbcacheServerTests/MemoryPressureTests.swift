import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// The memory cache gives memory back under pressure (an injected PSI file) and sizes itself from a cgroup limit
/// (an injected cgroup tree).
@Suite struct MemoryPressureTests {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("pressure-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }

    func write(_ text: String, _ name: String) throws -> URL {
        let url = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func psi(_ some: Double) -> String {
        "some avg10=\(some) avg60=0.00 avg300=0.00 total=1234\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    }

    /// The monitor `serve --memory-pressure-file FILE` builds, polled by hand (no interval: nothing polls behind
    /// the test's back).
    func monitor(watching file: URL, calmPolls: Int = 10) -> MemoryPressureMonitor {
        var configuration = ServeConfiguration()
        configuration.memoryPressureFile = file.path
        var monitorConfiguration = configuration.memoryPressureMonitor!.configuration
        (monitorConfiguration.interval, monitorConfiguration.calmPolls) = (nil, calmPolls)
        return MemoryPressureMonitor(configuration: monitorConfiguration)
    }

    @Test func psiParsing() {
        #expect(PressureStallSource.someAverage10(Self.psi(37.5)) == 37.5)
        #expect(PressureStallSource.someAverage10("full avg10=3.00\n") == nil)
        #expect(PressureStallSource.someAverage10("") == nil)
    }

    @Test func serveFlagsChooseTheMonitor() throws {
        var configuration = ServeConfiguration()
        #expect(configuration.memoryPressureMonitor === MemoryPressureMonitor.shared, "default: the library's shared monitor")
        configuration.memoryPressureFile = "/some/psi"
        let source = try #require(configuration.memoryPressureMonitor?.configuration.source as? PressureStallSource)
        #expect(source.files == [URL(fileURLWithPath: "/some/psi")])
        configuration.watchesMemoryPressure = false
        #expect(configuration.memoryPressureMonitor == nil, "--memory-pressure-file \"\": off")
    }

    @Test func cacheShrinksUnderPressureAndGrowsBackWhenCalm() throws {
        let file = try write(Self.psi(0), "pressure")
        let monitor = monitor(watching: file, calmPolls: 2)
        let cache = MemoryCache<String, Int>(limits: .init(totalCost: 64 << 20, count: 10_000, entryCost: 1 << 20),
                                             memoryPressure: monitor)
        for index in 0..<64 { cache.set(index, forKey: "k\(index)", cost: 1 << 20) }  // 64 MiB, full
        #expect(cache.totalCost == 64 << 20)
        #expect(monitor.check() == .low)
        #expect(cache.limits.totalCost == 64 << 20 && cache.count == 64, "no pressure: nothing changes")

        _ = try write(Self.psi(42), "pressure")
        #expect(monitor.check() == .high)
        #expect(cache.limits.totalCost == 32 << 20)
        #expect(cache.totalCost <= 32 << 20 && cache.count == 32)
        #expect(cache.value(forKey: "k63") != nil && cache.value(forKey: "k0") == nil, "the least recently used go first")
        monitor.check()
        #expect(cache.limits.totalCost == 16 << 20)
        for _ in 0..<10 { monitor.check() }
        #expect(cache.limits.totalCost == 4 << 20, "never below a sixteenth of the configured size")
        #expect(cache.totalCost <= 4 << 20)

        _ = try write(Self.psi(5), "pressure")  // between the thresholds: hold
        for _ in 0..<4 { #expect(monitor.check() == .moderate) }
        #expect(cache.limits.totalCost == 4 << 20)
        _ = try write(Self.psi(0), "pressure")
        monitor.check()
        #expect(cache.limits.totalCost == 4 << 20, "one calm poll is not enough")
        monitor.check()
        #expect(cache.limits.totalCost == 8 << 20)
        for _ in 0..<20 { monitor.check() }
        #expect(cache.limits.totalCost == 64 << 20 && cache.limits.count == 10_000, "back to the configured size, never above")
    }

    @Test func unreadablePressureChangesNothing() {
        let monitor = monitor(watching: work.appendingPathComponent("missing"))
        let cache = MemoryCache<String, Int>(limits: .init(totalCost: 1 << 20), memoryPressure: monitor)
        #expect(monitor.check() == nil)
        #expect(cache.limits.totalCost == 1 << 20)
    }

    @Test func cgroupLimits() throws {
        let v2 = work.appendingPathComponent("v2")
        let membership = try write("0::/system.slice/thumbcache.service\n", "self-cgroup")
        _ = try write("536870912\n", "v2/system.slice/thumbcache.service/memory.max")
        #expect(CgroupMemoryLimit.read(root: v2, selfCgroup: membership) == 512 << 20)
        #expect(CgroupMemoryLimit.suggestedCacheSize(limit: 512 << 20) == 64 << 20)

        let unlimited = work.appendingPathComponent("unlimited")
        _ = try write("max\n", "unlimited/memory.max")
        #expect(CgroupMemoryLimit.read(root: unlimited, selfCgroup: work.appendingPathComponent("none")) == nil)
        #expect(CgroupMemoryLimit.suggestedCacheSize(limit: nil) == 64 << 20)

        let v1 = work.appendingPathComponent("v1")
        _ = try write("268435456\n", "v1/memory/memory.limit_in_bytes")
        #expect(CgroupMemoryLimit.read(root: v1, selfCgroup: work.appendingPathComponent("none")) == 256 << 20)
        _ = try write("9223372036854771712\n", "v1/memory/memory.limit_in_bytes")  // v1's "no limit"
        #expect(CgroupMemoryLimit.read(root: v1, selfCgroup: work.appendingPathComponent("none")) == nil)

        #expect(CgroupMemoryLimit.suggestedCacheSize(limit: 64 << 20) == 16 << 20, "at least 16 MiB")
        #expect(CgroupMemoryLimit.suggestedCacheSize(limit: 64 << 30) == 1 << 30, "at most 1 GiB")
    }

    @Test func demoOnAPublicAddressNeedsLoopbackSourcesSaidOutright() {
        var configuration = ServeConfiguration()
        (configuration.host, configuration.demo, configuration.allowUnsigned) = ("0.0.0.0", true, true)
        #expect(configuration.problem()?.contains("--demo opens loopback sources") == true)
        configuration.allowLoopbackSources = true
        #expect(configuration.problem() == nil)
        (configuration.host, configuration.allowLoopbackSources) = ("127.0.0.1", false)
        #expect(configuration.problem() == nil)
    }
}
