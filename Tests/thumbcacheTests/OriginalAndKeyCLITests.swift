import BombTestSupport
import Foundation
import OriginTestSupport
import Testing
import ThumbcacheKit

/// `thumbcache get --original` and `--cache-key-ignore-query` (and its variable) as a user runs them.
@Suite(.serialized) struct OriginalAndKeyCLITests {
    @Test func getOriginalWritesTheOriginsBytesAndAsksOnce() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("/photo.jpg") { _ in
            .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: Fixtures.jpeg)
        }
        let cache = directory.appendingPathComponent("cache").path, output = directory.appendingPathComponent("o.jpg").path
        let first = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--original", "-o", output, "--cache-dir", cache, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.contents(atPath: output) == Fixtures.jpeg)
        let report = try JSONSerialization.jsonObject(with: first.stdout) as? [String: Any]
        #expect(report?["servedFrom"] as? String == "network" && report?["contentType"] as? String == "image/jpeg")
        let second = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--original", "-o", "-", "--cache-dir", cache])
        #expect(second.status == 0 && second.stdout == Fixtures.jpeg, "\(second.stderr)")
        #expect(second.stderr.contains("[disk]"), "\(second.stderr)")
        #expect(server.requestCount("/photo.jpg") == 1)
        let both = try ThumbcacheChild.run(["get", server.url("/photo.jpg"), "--original", "--size", "64", "--cache-dir", cache])
        #expect(both.status == 64, "--size does not apply to --original: \(both.stderr)")
    }

    @Test func theIgnoredQueryOptionAndItsVariableShareOneEntry() throws {
        let server = try OriginServer()
        defer { server.shutdown() }
        let directory = try ThumbcacheChild.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = ["/k.jpg?X-Amz-Signature=1&v=1", "/k.jpg?X-Amz-Signature=2&v=1", "/k.jpg?X-Amz-Signature=3&v=1"]
        for path in paths {
            server.route(path) { _ in
                .respond(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: Fixtures.jpeg)
            }
        }
        let cache = directory.appendingPathComponent("cache").path
        func get(_ path: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> String? {
            let run = try ThumbcacheChild.run(["get", server.url(path), "--size", "64", "-o", "/dev/null", "--json", "--cache-dir", cache] + extra,
                                              environment: environment)
            return (try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["servedFrom"] as? String
        }
        #expect(try get(paths[0], ["--cache-key-ignore-query", "X-Amz-*"]) == "network")
        #expect(try get(paths[1], ["--cache-key-ignore-query", "X-Amz-*"]) == "disk")
        #expect(try get(paths[2], environment: ["THUMBCACHE_CACHE_KEY_IGNORE_QUERY": "X-Amz-Signature,token"]) == "disk")
        #expect(try get(paths[2]) == "network", "without the rule the signature is part of the key")
        #expect(server.requestedPaths == [paths[0], paths[2]])
        let empty = try ThumbcacheChild.run(["get", server.url(paths[0]), "--size", "64", "-o", "/dev/null", "--cache-dir", cache],
                                            environment: ["THUMBCACHE_CACHE_KEY_IGNORE_QUERY": ","])
        #expect(empty.status == 64, "\(empty.stderr)")
    }
}
