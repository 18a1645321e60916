import Foundation
import ThumbcacheKit

/// Images from the ImageDecode test fixtures (licenses in Tests/ImageDecodeTests/Fixtures/LICENSES.md).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ImageDecodeTests/Fixtures")

    /// libjpeg-turbo's testorig.jpg: 227x149 baseline JPEG.
    static let jpeg = try! Data(contentsOf: directory.appendingPathComponent("testorig.jpg"))
    /// The same picture as a PNG.
    static let png = try! Data(contentsOf: directory.appendingPathComponent("testorig.png"))
    /// libjpeg-turbo's testimgint.jpg: a different JPEG, for "the image changed" cases.
    static let otherJpeg = try! Data(contentsOf: directory.appendingPathComponent("testimgint.jpg"))
}

/// A pipeline on a fresh temporary cache directory.
final class PipelineHarness {
    let directory: URL
    var pipeline: ThumbnailPipeline

    init(configure: (inout PipelineConfiguration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-tests-\(UUID().uuidString)")
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        // The machine's memory pressure must not evict what a test asserts on (MemoryPressureMonitorTests drive it).
        configuration.memoryPressure = nil
        configure(&configuration)
        pipeline = try ThumbnailPipeline(configuration: configuration)
    }

    /// Closes and reopens the pipeline, as a new process would (empty memory cache), `configure`d anew.
    func reopen(configure: (inout PipelineConfiguration) -> Void = { _ in }) async throws {
        var configuration = pipeline.configuration
        configure(&configuration)
        await pipeline.close()
        pipeline = try ThumbnailPipeline(configuration: configuration)
    }

    func close() async {
        await pipeline.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Download files in flight, or left behind (there should be none once a get returns).
    /// Files in process folders count, their owner lock files do not.
    var downloadFiles: [String] {
        let downloads = directory.appendingPathComponent("downloads")
        var files: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? [] {
            guard name.hasPrefix("process-") else {
                files.append(name)
                continue
            }
            let folder = downloads.appendingPathComponent(name).path
            files += ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != "owner" }.map { name + "/" + $0 }
        }
        return files
    }

    /// Files of the DiskLru directory, lock and journal aside.
    var entryFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path)) ?? []
        return names.filter { !$0.hasPrefix("journal") }.sorted()
    }
}
