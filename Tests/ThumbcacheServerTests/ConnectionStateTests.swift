import NIOCore
import NIOEmbedded
import Testing
@testable import ThumbcacheServer

/// The rules of one connection (`ConnectionState`), driven event by event on an `EmbeddedChannel`, whose clock
/// moves only when the test moves it: every verdict here is independent of the machine's speed.
@Suite struct ConnectionStateTests {
    static let deadline = TimeAmount.seconds(10)

    /// A connected embedded channel and its state, opened.
    static func open(connections: OpenConnections? = nil) throws -> (EmbeddedChannel, ConnectionState) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        let state = ConnectionState(channel: channel, headDeadline: deadline, connections: connections)
        state.opened()
        return (channel, state)
    }

    static func isOpen(_ channel: EmbeddedChannel) -> Bool { channel.isActive }

    @Test func aConnectionThatSendsNoHeadClosesAtTheDeadline() throws {
        let (channel, _) = try Self.open()
        channel.embeddedEventLoop.advanceTime(by: Self.deadline - .nanoseconds(1))
        #expect(Self.isOpen(channel))
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!Self.isOpen(channel))
    }

    @Test func aHeadThatArrivesStopsTheDeadlineAndTheAnswerStartsTheNext() throws {
        let (channel, state) = try Self.open()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        state.headFramed()
        #expect(state.deadline == nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))  // a long render: no deadline meanwhile
        #expect(Self.isOpen(channel))
        state.answeredFromBytes()
        // The first timer fires at the first deadline (long past) and moves to the new one, 10 s from the answer.
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.isOpen(channel))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!Self.isOpen(channel))
    }

    @Test func theWireWaitsWhileARoutedRequestIsUnanswered() throws {
        let (channel, state) = try Self.open()
        #expect(state.mayAnswerFromBytes(isWritable: true))
        state.headFramed()
        state.handedToDecoder()
        state.decoderProducedHead()  // the same head, out of the decoder: not a second request
        #expect(state.routedUnanswered == 1 && !state.mayAnswerFromBytes(isWritable: true))
        state.headFramed()
        state.handedToDecoder()  // a second one behind it
        #expect(!state.routedAnswerEnded())
        #expect(!state.mayAnswerFromBytes(isWritable: true), "one still unanswered")
        #expect(state.deadline == nil, "no deadline while a request is outstanding")
        state.decoderProducedHead()
        #expect(!state.routedAnswerEnded())
        #expect(state.routedUnanswered == 0 && state.mayAnswerFromBytes(isWritable: true))
        #expect(state.deadline != nil)
        #expect(Self.isOpen(channel))
    }

    @Test func nothingIsAnsweredFromBytesOnAConnectionThatCannotTakeMore() throws {
        let (_, state) = try Self.open()
        #expect(!state.mayAnswerFromBytes(isWritable: false))
    }

    @Test func headsTheDecoderFramesAloneAreCountedOnce() throws {
        let (_, state) = try Self.open()
        state.headFramed()
        state.handedToDecoder()
        state.decoderTakesOver()  // e.g. the next head has a body
        state.decoderProducedHead()  // the framed one
        state.decoderProducedHead()  // one the decoder framed alone
        state.decoderProducedHead()
        #expect(state.routedUnanswered == 3)
        #expect(!state.mayAnswerFromBytes(isWritable: true))
        for _ in 0..<3 { #expect(!state.routedAnswerEnded()) }
        #expect(state.routedUnanswered == 0)
        #expect(!state.mayAnswerFromBytes(isWritable: true), "the decoder owns the bytes for good")
    }

    @Test func aFailedDecoderEndsTheWireAndTheConnectionAfterItsAnswer() throws {
        let (_, state) = try Self.open()
        state.headFramed()
        state.handedToDecoder()
        state.decoderFailed()
        #expect(state.decoderOwnsBytes && state.closing)
        #expect(!state.mayAnswerFromBytes(isWritable: true))
        #expect(state.routedAnswerEnded(), "the connection closes after the error answer")
    }

    @Test func anAnswerThatSaysCloseIsTheLast() throws {
        let (_, state) = try Self.open()
        state.decoderProducedHead()
        state.routedAnswerBegins(closesConnection: true)
        #expect(!state.mayAnswerFromBytes(isWritable: true))
        #expect(state.routedAnswerEnded())
    }

    @Test func anAnswerThatKeepsTheConnectionDoesNotCloseIt() throws {
        let (_, state) = try Self.open()
        state.decoderProducedHead()
        state.routedAnswerBegins(closesConnection: false)
        #expect(!state.routedAnswerEnded())
        #expect(state.mayAnswerFromBytes(isWritable: true))
    }

    /// Backpressure: when the channel stops being writable (the client is not reading its answers) reading
    /// pauses, reported once with the unsent bytes; a read asked for meanwhile is held, and goes on when the
    /// channel is writable again; reads pass while it is writable.
    @Test func readingPausesWhileTheClientDoesNotReadItsAnswers() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        let reported = ReportedPauses()
        let state = ConnectionState(channel: channel, headDeadline: Self.deadline, connections: nil,
                                    readPaused: { reported.unsent.append($0) })
        #expect(state.readRequested())
        #expect(!state.writabilityChanged(isWritable: true, unsentAnswerBytes: 0), "no read held: none to issue")
        #expect(!state.writabilityChanged(isWritable: false, unsentAnswerBytes: 70_000))
        #expect(state.readingPaused && state.readPauses == 1 && reported.unsent == [70_000])
        #expect(!state.writabilityChanged(isWritable: false, unsentAnswerBytes: 80_000))
        #expect(state.readPauses == 1 && reported.unsent == [70_000], "one pause")
        #expect(!state.readRequested() && state.readHeld)
        #expect(!state.readRequested(), "still held")
        #expect(state.writabilityChanged(isWritable: true, unsentAnswerBytes: 0), "the held read goes on")
        #expect(!state.readingPaused && !state.readHeld)
        #expect(!state.writabilityChanged(isWritable: true, unsentAnswerBytes: 0), "once")
        #expect(state.readRequested())
        #expect(!state.writabilityChanged(isWritable: false, unsentAnswerBytes: 66_000))
        #expect(!state.writabilityChanged(isWritable: true, unsentAnswerBytes: 0), "no read was asked for meanwhile")
        #expect(state.readPauses == 2 && reported.unsent == [70_000, 66_000])
    }

    /// `RouterTraffic` applies the rule to the channel's reads: none reaches the socket while the channel is not
    /// writable, and the held one does when it is writable again.
    @Test func routerTrafficHoldsReadsWhileTheChannelIsNotWritable() throws {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        let state = ConnectionState(channel: channel, headDeadline: Self.deadline, connections: nil)
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(RouterTraffic(connection: state, serverName: nil, isStopping: { false }))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        channel.read()
        #expect(reads.count == 1)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.read()
        channel.read()
        #expect(reads.count == 1 && state.readPauses == 1)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(reads.count == 2 && !state.readHeld)
        channel.read()
        #expect(reads.count == 3)
        _ = try? channel.finish()
    }

    /// `--max-connections` learns when the connection waits for a head and when it stops.
    @Test func waitingIsReportedToTheConnectionLimit() throws {
        let connections = OpenConnections(maximum: 10)
        let (_, state) = try Self.open(connections: connections)
        #expect(connections.idleCount == 1)
        state.headFramed()
        #expect(connections.idleCount == 0)
        state.answeredFromBytes()
        #expect(connections.idleCount == 1)
        state.closed()
        #expect(connections.idleCount == 0)
    }

    @Test func aClosedConnectionHasNoTimerLeft() throws {
        let (channel, state) = try Self.open()
        state.closed()
        #expect(state.deadline == nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(Self.isOpen(channel), "the timer was cancelled, not fired")
    }
}

/// The pauses a `ConnectionState` reported (on the test's thread only).
private final class ReportedPauses {
    var unsent: [Int] = []
}

/// Counts the reads that reach the front of the pipeline (the socket, on a real channel).
private final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    var count = 0

    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
