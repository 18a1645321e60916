import Foundation
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// `WireHitHandler` reads request heads itself, in front of NIO's decoder; it must never change what a client
/// sees. Every stream of `SmugglingCorpus` goes to a server with it and to one without it (both holding the same
/// thumbnail in memory), each on its own connection that the client half-closes once everything is sent; the
/// answers (`ResponseStream`) must be the same, in number, order, status, framing, body and closing. A request
/// smuggled past one parser but not the other shows as an extra, missing or different answer.
@Suite(.serialized) struct SmugglingDifferentialTests {
    /// Streams in flight at once (each on both servers).
    static let parallelStreams = 8

    @Test func everyStreamIsAnsweredAlikeWithAndWithoutTheWirePath() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let token = "differential-token"
        let configure = { (wirePath: Bool) in
            { (configuration: inout ServeConfiguration) in
                configuration.adminToken = token
                configuration.answersHitsFromBytes = wirePath
                // Every stream ends with the client's half-close, never with a timer: on a busy machine a 10 s
                // head deadline could cut one server's connection and not the other's.
                configuration.headerTimeout = .seconds(600)
                configuration.idleTimeout = .seconds(600)
            }
        }
        let wire = try await ServerHarness(configure: configure(true))
        let decoder = try await ServerHarness(configure: configure(false))
        let hit = wire.path(origin.url("/a.jpg"), size: 64)
        let notFound = wire.path(origin.url("/missing.jpg"), size: 64)
        #expect(decoder.path(origin.url("/a.jpg"), size: 64) == hit, "the same bytes address the same thumbnail on both")
        for server in [wire, decoder] {
            #expect(try await server.request(hit).status == 200)
            #expect(try await server.request(hit).header("X-Thumbcache") == "memory")
            #expect(try await server.request(notFound).status == 404)
        }
        let corpus = SmugglingCorpus(
            hit: hit, badSignature: "/forged" + hit.drop { $0 == "/" }.drop { $0 != "/" },
            notFound: notFound, purge: "/admin/purge/\(Base64URL.encode("http://127.0.0.1:1/none.jpg"))", adminToken: token)
        let streams = corpus.streams
        #expect(streams.count >= 200)
        let wireAnswersBefore = wire.hitsFromBytes

        let started = ContinuousClock.now
        var differences = 0, hung = 0, answers = 0
        try await withThrowingTaskGroup(of: (Int, ResponseStream, ResponseStream).self) { group in
            var next = 0
            func start() {
                guard next < streams.count else { return }
                let index = next, pieces = streams[next].pieces
                next += 1
                group.addTask {
                    async let viaWire = Self.exchange(wire.port, pieces)
                    async let viaDecoder = Self.exchange(decoder.port, pieces)
                    return (index, try await viaWire, try await viaDecoder)
                }
            }
            for _ in 0..<Self.parallelStreams { start() }
            while let (index, viaWire, viaDecoder) = try await group.next() {
                let stream = streams[index]
                if !viaWire.closed || !viaDecoder.closed { hung += 1 }
                answers += viaWire.answers.count
                if viaWire != viaDecoder {
                    differences += 1
                    Issue.record("""
                        \(stream.family): \(stream.name)
                        stream (\(stream.pieces.count) pieces): \(ResponseStream.escaped(stream.bytes.prefix(600)))
                        with the wire path:
                        \(viaWire)
                        without:
                        \(viaDecoder)
                        """)
                }
                start()
            }
        }
        let elapsed = started.duration(to: .now)
        #expect(differences == 0, "\(differences) of \(streams.count) streams answered differently")
        #expect(hung == 0, "\(hung) streams were not closed by the server within the hang guard")
        // The comparison compared something: the wire path answered many of the hits itself, the other never.
        let wireAnswers = wire.hitsFromBytes - wireAnswersBefore
        #expect(wireAnswers >= streams.filter { $0.family == "splits" }.count)
        #expect(decoder.hitsFromBytes == 0)
        let families = Dictionary(grouping: streams, by: \.family).map { "\($0.key) \($0.value.count)" }.sorted()
        print("SmugglingDifferential: \(streams.count) streams (\(families.joined(separator: ", "))), \(answers) answers each, "
              + "\(wireAnswers) of them by the wire path, \(elapsed)")

        await wire.stop()
        await decoder.stop()
        await origin.stop()
    }

    /// The stream sent on a new connection, half-closed, and what came back until the server closed.
    static func exchange(_ port: Int, _ pieces: [[UInt8]]) async throws -> ResponseStream {
        let (received, closed) = try await RawConnection.halfClosedExchange(port, pieces: pieces)
        return ResponseStream(parsing: received, closed: closed)
    }
}
