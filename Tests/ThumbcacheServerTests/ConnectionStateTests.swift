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

    /// An open connection that has answered a head from the bytes with `bytes` of answer, of which the flush
    /// left `unsent`; and the time it started waiting for the next head.
    static func answered(_ bytes: Int, flushLeaving unsent: Int,
                         connections: OpenConnections? = nil) throws -> (ConnectionState, NIODeadline) {
        let (channel, state) = try open(connections: connections)
        state.headFramed()
        state.queued(answerBytes: bytes)
        state.answeredFromBytes()
        state.flushed(unsentAnswerBytes: unsent)
        return (state, channel.embeddedEventLoop.now)
    }

    /// An open connection whose last answer (`Connection: close`), `bytes` long, has ended, of which the flush left
    /// `unsent`; and the time it ended.
    static func lastAnswerEnded(_ bytes: Int, flushLeaving unsent: Int) throws -> (ConnectionState, NIODeadline) {
        let (channel, state) = try open()
        state.decoderProducedHead()
        state.routedAnswerBegins(closesConnection: true)
        state.queued(answerBytes: bytes)
        #expect(state.routedAnswerEnded())
        state.flushed(unsentAnswerBytes: unsent)
        return (state, channel.embeddedEventLoop.now)
    }

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
        #expect(connections.idleCount == 0, "idle from the flush that writes the answer")
        state.flushed(unsentAnswerBytes: 0)
        #expect(connections.idleCount == 1)
        state.closed()
        #expect(connections.idleCount == 0)
    }

    /// A connection whose client is still taking an answer is not idle: `--max-connections` would cut the answer.
    /// It is idle once a judgement finds everything taken.
    @Test func aConnectionStillTakingAnAnswerIsNotIdle() throws {
        let connections = OpenConnections(maximum: 10)
        let (state, start) = try Self.answered(1000, flushLeaving: 600, connections: connections)
        #expect(connections.idleCount == 0)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 0) == .judgeAgain(at: start + .seconds(20)))
        #expect(connections.idleCount == 1)
    }

    // MARK: - The deadline judges progress (explicit clock values and unsent bytes: no time passes)

    /// A client that takes bytes of a long answer within each deadline keeps its connection, however many
    /// deadlines the answer takes; one that takes none for a whole deadline is closed.
    @Test func aClientTakingAnAnswerSlowlyKeepsTheConnectionUntilItStops() throws {
        let (state, start) = try Self.answered(1_000_000, flushLeaving: 900_000)  // 100,000 taken at once
        #expect(state.deadline == start + Self.deadline && state.awaitingHead)
        #expect(state.sentAtMark == 100_000)
        #expect(state.judge(now: start + .seconds(5), unsentAnswerBytes: 800_000) == .judgeAgain(at: start + Self.deadline),
                "not due yet")
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 500_000) == .judgeAgain(at: start + .seconds(20)))
        #expect(state.judge(now: start + .seconds(20), unsentAnswerBytes: 499_999) == .judgeAgain(at: start + .seconds(30)),
                "one byte in a deadline is progress")
        // A judgement made late (a busy loop) counts the deadline from when it was made.
        #expect(state.judge(now: start + .seconds(33), unsentAnswerBytes: 400_000) == .judgeAgain(at: start + .seconds(43)))
        #expect(state.judge(now: start + .seconds(43), unsentAnswerBytes: 400_000) == .close(.notReading))
    }

    /// What one flush writes at once is the server's doing, not the client's progress: an answer the socket took
    /// whole leaves the connection idle, closed a deadline later when no head came.
    @Test func whatAFlushWritesAtOnceIsNotProgress() throws {
        let (state, start) = try Self.answered(1000, flushLeaving: 0)
        #expect(state.sentAtMark == 1000 && !state.marksAtFlush)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 0) == .close(.noHead))
    }

    /// A client that took the last bytes of its answer within the deadline gets another whole one for its next
    /// head (it has not had a deadline with nothing pending yet), and is closed when none comes in it; one that
    /// arrives stops the deadline.
    @Test(arguments: [false, true])
    func aClientThatTookTheLastBytesGetsAWholeDeadlineForItsNextHead(headArrives: Bool) throws {
        let (state, start) = try Self.answered(200_000, flushLeaving: 150_000)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 0) == .judgeAgain(at: start + .seconds(20)))
        if headArrives { state.headFramed() }
        #expect(state.judge(now: start + .seconds(20), unsentAnswerBytes: 0) == (headArrives ? .none : .close(.noHead)))
    }

    /// Reading paused (answers past the high watermark) is judged even while a request is being answered: a
    /// pipelining client whose next head is not read meanwhile is not cut while it takes bytes, and is when it stops.
    @Test func aPausedConnectionIsJudgedByItsProgressEvenWithARequestOutstanding() throws {
        let (channel, state) = try Self.open()
        let start = channel.embeddedEventLoop.now
        state.decoderProducedHead()
        #expect(state.deadline == nil, "a request is being answered")
        state.queued(answerBytes: 300_000)
        #expect(!state.writabilityChanged(isWritable: false, unsentAnswerBytes: 300_000))
        #expect(state.deadline == start + Self.deadline)
        state.flushed(unsentAnswerBytes: 250_000)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 200_000) == .judgeAgain(at: start + .seconds(20)))
        #expect(!state.routedAnswerEnded())  // the answer's end is queued: the next head is awaited, still paused
        #expect(state.awaitingHead && state.deadline == start + .seconds(20), "one wait: the deadline and its mark stay")
        #expect(state.judge(now: start + .seconds(20), unsentAnswerBytes: 100_000) == .judgeAgain(at: start + .seconds(30)))
        #expect(state.judge(now: start + .seconds(30), unsentAnswerBytes: 100_000) == .close(.notReading))
    }

    /// Writable again with a request outstanding: nothing is awaited from the client, so no deadline.
    @Test func writableAgainWithARequestOutstandingEndsTheJudgement() throws {
        let (channel, state) = try Self.open()
        let start = channel.embeddedEventLoop.now
        state.decoderProducedHead()
        state.queued(answerBytes: 100_000)
        _ = state.writabilityChanged(isWritable: false, unsentAnswerBytes: 100_000)
        #expect(state.deadline != nil)
        _ = state.writabilityChanged(isWritable: true, unsentAnswerBytes: 30_000)
        #expect(state.deadline == nil && state.judge(now: start + Self.deadline, unsentAnswerBytes: 30_000) == .none)
    }

    /// The last answer (`Connection: close`) is judged until written: a client that stops taking it is cut, so it
    /// cannot hold the connection for ever.
    @Test func aLastAnswerIsJudgedUntilWritten() throws {
        let (state, start) = try Self.lastAnswerEnded(5000, flushLeaving: 5000)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 5000) == .close(.notReading))
    }

    @Test func aLastAnswerWrittenNeedsNoJudgement() throws {
        let (state, start) = try Self.lastAnswerEnded(5000, flushLeaving: 5000)
        #expect(state.judge(now: start + Self.deadline, unsentAnswerBytes: 1000) == .judgeAgain(at: start + .seconds(20)))
        #expect(state.judge(now: start + .seconds(20), unsentAnswerBytes: 0) == .judgeAgain(at: start + .seconds(30)))
        #expect(state.judge(now: start + .seconds(30), unsentAnswerBytes: 0) == .none, "written: its write closes the connection")
    }

    /// The timer applies the rule on the channel's clock with what the channel holds unsent, and reports why it
    /// closed.
    @Test func theTimerClosesOnlyAfterAWholeDeadlineWithoutProgress() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        let socket = FakeSocket()
        let state = ConnectionState(channel: channel, headDeadline: Self.deadline, connections: nil,
                                    unsentAnswerBytes: { socket.unsent }, closedByDeadline: { socket.closes.append($0) })
        state.opened()
        state.headFramed()
        state.queued(answerBytes: 1_000_000)
        socket.unsent = 1_000_000
        state.answeredFromBytes()
        state.flushed(unsentAnswerBytes: socket.unsent)
        for _ in 0..<5 {  // five deadlines, each with some bytes taken
            socket.unsent -= 10_000
            channel.embeddedEventLoop.advanceTime(by: Self.deadline)
            #expect(Self.isOpen(channel))
        }
        channel.embeddedEventLoop.advanceTime(by: Self.deadline - .nanoseconds(1))
        #expect(Self.isOpen(channel))
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!Self.isOpen(channel) && socket.closes == [.notReading])
    }

    /// `SocketWrites` counts the bytes of every write and gives the deadline its mark after the flush.
    @Test func socketWritesCountsWritesAndMarksAfterTheFlush() throws {
        let channel = EmbeddedChannel()
        let state = ConnectionState(channel: channel, headDeadline: Self.deadline, connections: nil)
        try channel.pipeline.syncOperations.addHandler(SocketWrites(connection: state))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        state.opened()
        state.headFramed()
        channel.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"), promise: nil)
        channel.write(ByteBuffer(repeating: 7, count: 100), promise: nil)
        #expect(state.answerBytesQueued == 119)
        state.answeredFromBytes()
        #expect(state.marksAtFlush && state.sentAtMark == 119)
        channel.flush()
        #expect(!state.marksAtFlush && state.sentAtMark == 119, "all written by the flush: the mark holds it all")
        _ = try? channel.finish()
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

/// What a test's socket holds unsent, and the deadline's closes (on the test's thread only).
private final class FakeSocket {
    var unsent = 0
    var closes: [ConnectionState.CloseReason] = []
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
