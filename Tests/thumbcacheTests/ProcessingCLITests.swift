import BombTestSupport
import Foundation
import ImageDecode
import OriginTestSupport
import Testing
import ThumbcacheKit

/// `get --options` and `--variant-disk-size` as a user runs them: a processed image written and stored as a
/// variant (a second get reads it from disk, `info` lists it), `--variant-disk-size 0` keeping variants off the disk, and a
/// variant budget larger than the whole refused.
@Suite(.serialized) struct ProcessingCLITests {
    @Test func getWithOptionsStoresAVariantAndZeroKeepsThemOffTheDisk() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("/photo.jpg") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: Fixtures.jpeg)
        }
        let cache = directory.appendingPathComponent("cache").path, output = directory.appendingPathComponent("o.webp").path
        let arguments = ["get", server.url("/photo.jpg"), "--options", "rs:fill:80:60/g:sm", "-o", output, "--cache-dir", cache]
        let first = try ThumbcacheChild.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let written = try ImageDecoder.probe(.data(try Data(contentsOf: URL(fileURLWithPath: output))))
        #expect(written.format == .webp && written.width == 80 && written.height == 60)
        let second = try ThumbcacheChild.run(arguments)
        #expect(second.status == 0 && second.stderr.contains("[disk]"), "\(second.stderr)")
        #expect(server.requestCount("/photo.jpg") == 1)
        // `info` lists the stored variant by its canonical options, without touching the origin.
        let canonical = try ProcessingOptions(parsing: "rs:fill:80:60/g:sm").canonical
        let info = try ThumbcacheChild.run(["info", server.url("/photo.jpg"), "--cache-dir", cache])
        let text = String(decoding: info.stdout, as: UTF8.self)
        #expect(info.status == 0 && text.contains("processed: \(canonical) as webp: webp 80x60, "), "\(text)")
        let json = try ThumbcacheChild.run(["info", server.url("/photo.jpg"), "--cache-dir", cache, "--json"])
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let processed = object?["processed"] as? [[String: Any]]
        #expect(processed?.count == 1 && processed?.first?["options"] as? String == canonical && processed?.first?["width"] as? Int == 80)
        #expect(server.requestCount("/photo.jpg") == 1)

        let memoryOnly = directory.appendingPathComponent("memory-only").path
        let zero = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--options", "w:40", "-o", output,
                                            "--cache-dir", memoryOnly, "--variant-disk-size", "0"])
        #expect(zero.status == 0, "\(zero.stderr)")
        #expect(!FileManager.default.fileExists(atPath: memoryOnly + "/variants"), "no variants directory with a budget of 0")

        let tooLarge = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--options", "w:40", "--cache-dir", cache,
                                                "--max-disk-size", "1MB", "--variant-disk-size", "2MB"])
        #expect(tooLarge.status == 64 && tooLarge.stderr.contains("--variant-disk-size"), "\(tooLarge.stderr)")
        let bad = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--options", "bogus:1", "--cache-dir", cache])
        #expect(bad.status == 64 && bad.stderr.contains("bogus"), "\(bad.stderr)")
    }
}
