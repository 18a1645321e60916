import Foundation
import Hummingbird
import NIOCore
import ThumbcacheKit

/// A real origin on 127.0.0.1 (Hummingbird, port chosen by the system): scripted answers per path, and a
/// count of every request it got, so a test can prove that a refused origin was never contacted.
final class TestOrigin: Sendable {
    typealias Route = @Sendable (Request) async -> Response

    private let routes = Locked<[String: Route]>([:])
    private let counts = Locked<[String: Int]>([:])
    private let task: Task<Void, any Error>
    let port: Int

    init() async throws {
        let routes = self.routes, counts = self.counts
        let router = Router()
        router.get("**") { request, _ -> Response in
            counts.withLock { $0[request.uri.path, default: 0] += 1 }
            guard let route = routes.withLock({ $0[request.uri.path] }) else {
                return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "not found")))
            }
            return await route(request)
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        port = await iterator.next() ?? 0
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func route(_ path: String, _ route: @escaping Route) {
        routes.withLock { $0[path] = route }
    }

    /// Serves `data` at `path`, fresh for `maxAge` seconds, with a Last-Modified.
    func image(_ path: String, _ data: Data, type: String = "image/jpeg", maxAge: Int = 3600, delay: Duration = .zero) {
        route(path) { _ in
            if delay > .zero { try? await Task.sleep(for: delay) }
            return Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=\(maxAge)",
                                                   .lastModified: "Tue, 24 Nov 2026 10:00:00 GMT"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
}

/// Images from the ImageDecode test fixtures (licenses in Tests/ImageDecodeTests/Fixtures/LICENSES.md).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ImageDecodeTests/Fixtures")
    /// libjpeg-turbo's testorig.jpg: 227x149 baseline JPEG.
    static let jpeg = try! Data(contentsOf: directory.appendingPathComponent("testorig.jpg"))
    static let png = try! Data(contentsOf: directory.appendingPathComponent("testorig.png"))
}
