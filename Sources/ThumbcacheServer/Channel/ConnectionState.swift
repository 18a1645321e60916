import NIOCore

/// What one connection's handlers share, and the rules they follow, in one object on the connection's event loop
/// (`ThumbcacheHTTP1Channel` makes one per connection and hands it to each handler; no handler holds another).
///
/// Two ways answer a request: `WireHitHandler` answers memory hits from the request's bytes, in front of NIO's
/// HTTP/1 decoder; everything else goes through the decoder to Hummingbird's router. The rules:
/// - **Order**: the wire may answer only while no request it handed to the decoder is still unanswered, so no
///   answer overtakes an earlier request's (`mayAnswerFromBytes`).
/// - **Who owns the bytes**: once a head the wire cannot frame (a body, another method, a line outside its
///   grammar) has gone to the decoder, or the decoder has failed, every later byte is the decoder's
///   (`decoderOwnsBytes`): the wire never reads a request out of bytes the decoder reads differently.
/// - **Closing**: after an answer that says `Connection: close`, nothing more is answered, and the connection closes
///   once that answer is written.
/// - **Backpressure**: nothing is answered from bytes while the channel is not writable; Hummingbird's writer waits.
///   And no more requests are read while it is not writable: answers unsent past the channel's high watermark mean
///   the client is not reading them, and every request read would add one. Reading pauses when the channel stops
///   being writable (`writabilityChanged`; reported, with the answer bytes unsent then: the high watermark and the
///   write that crossed it) and resumes when it is writable again (below the low watermark); a read asked for
///   meanwhile is held (`readRequested`). Hummingbird's own backpressure (a request it cannot answer yet holds the
///   next) stops reading too, but only once it has read ahead; this stops it at the write that crossed the mark.
/// - **The deadline** judges progress, not wall time alone. The connection is judged while it waits on its client:
///   for the next head (from when it opens, or its last answer ends with nothing else outstanding), or to take
///   answer bytes (reading paused, or the last answer, one that says `Connection: close`, still being written).
///   Each deadline (`headDeadline`) the rule (`judge`) asks what the socket took meanwhile (`SocketWrites` counts
///   the bytes written, the channel says what is unsent): some, and the client is reading, however slowly, so it
///   gets one more deadline; none, and the connection closes, whether answer bytes are unsent (the client stopped
///   reading: it is cut one to two deadlines after the last bytes it took) or not (no head came in a whole
///   deadline with nothing pending: a client that trickles its headers cannot hold it; an idle one is let go).
///   While a request is being answered and nothing waits on the client there is no deadline.
///
/// Heads are counted once each: the wire counts the heads it hands over (`handedToDecoder`); a head the decoder
/// produces (`decoderProducedHead`) is one of those, in byte order, or, once the decoder owns the bytes, a new one.
final class ConnectionState {
    /// Why the deadline closed a connection (`thumbcache_deadline_closes_total`'s reasons).
    enum CloseReason: String, CaseIterable, Sendable {
        /// No head arrived in a whole deadline while nothing was unsent.
        case noHead = "no_head"
        /// Answer bytes were unsent and the socket took none of them in a whole deadline.
        case notReading = "not_reading"
    }

    /// What the deadline's rule decides when asked (`judge`).
    enum Verdict: Equatable {
        /// Not due yet, or the client made progress: asked again then.
        case judgeAgain(at: NIODeadline)
        case close(CloseReason)
        /// Nothing is awaited from the client: no deadline.
        case none
    }

    /// Requests handed to the router whose answers have not ended.
    private(set) var routedUnanswered = 0
    /// Heads the wire handed to the decoder that the decoder has not produced yet.
    private var handedOverNotProduced = 0
    private(set) var decoderOwnsBytes = false
    /// An answer said `Connection: close`: nothing more is answered, and the connection closes after it.
    private(set) var closing = false
    /// When the connection is next judged; nil while nothing is awaited from the client.
    private(set) var deadline: NIODeadline?
    /// The connection waits for a request head: none is outstanding and the last answer has ended.
    private(set) var awaitingHead = false
    /// The last answer (it said `Connection: close`) has ended; the connection closes once it is written.
    private var lastAnswerEnded = false
    /// Reading is paused: the channel is not writable (the client is not reading its answers, or one is that long).
    private(set) var readingPaused = false
    /// A read the channel asked for while reading was paused, issued when it resumes.
    private(set) var readHeld = false
    /// How many times reading paused.
    private(set) var readPauses = 0
    /// Answer bytes handed to the socket since the connection opened (`SocketWrites` counts every write).
    private(set) var answerBytesQueued = 0
    /// How many of them the socket had taken when the deadline was set or last extended: progress is taking more.
    private(set) var sentAtMark = 0
    /// The deadline started with bytes not flushed yet: its mark is taken after the flush (`flushed`), so what
    /// the flush writes at once is not counted as the client's progress.
    private(set) var marksAtFlush = false

    private let channel: any Channel
    private let headDeadline: TimeAmount
    /// Told when the connection waits for a head with nothing unsent, and when it stops (`--max-connections`
    /// closes the longest idle; one still taking an answer is not idle).
    private let connections: OpenConnections?
    private let entry: OpenConnections.Entry?
    /// Whether `opened` was told (both the handler's addition to an active channel and its activation tell it).
    private var hasOpened = false
    /// Whether `connections` was last told the connection is idle.
    private var reportedIdle = false
    private var timer: Scheduled<Void>?
    /// Answer bytes the channel holds unwritten (its `bufferedWritableBytes`; tests give their own).
    private let unsentBytes: () -> Int
    /// Told of each pause in reading, with the answer bytes unsent then (the metrics count them).
    private let readPaused: (_ unsentAnswerBytes: Int) -> Void
    /// Told when the deadline closes the connection, and why (the metrics count them).
    private let closedByDeadline: (CloseReason) -> Void

    init(channel: any Channel, headDeadline: TimeAmount, connections: OpenConnections?,
         unsentAnswerBytes: (() -> Int)? = nil,
         readPaused: @escaping (_ unsentAnswerBytes: Int) -> Void = { _ in },
         closedByDeadline: @escaping (CloseReason) -> Void = { _ in }) {
        self.channel = channel
        self.headDeadline = headDeadline
        self.connections = connections
        self.unsentBytes = unsentAnswerBytes ?? { (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0 }
        self.readPaused = readPaused
        self.closedByDeadline = closedByDeadline
        entry = connections?.register(channel)
    }

    /// Answer bytes the channel holds unwritten now.
    func unsentAnswerBytes() -> Int { unsentBytes() }

    // MARK: - Events

    /// The connection is open: the first head's deadline starts.
    func opened() {
        guard !hasOpened else { return }
        hasOpened = true
        awaitingHead = true
        startJudging()
        marksAtFlush = false  // nothing written: the mark (0) is exact
        if let entry {
            reportedIdle = true
            connections?.idle(entry, arriving: true)
        }
    }

    /// The wire read a whole head.
    func headFramed() {
        stopAwaitingHead()
    }

    /// The wire hands a head it framed to the decoder (the router will answer it).
    func handedToDecoder() {
        routedUnanswered += 1
        handedOverNotProduced += 1
    }

    /// The wire hands the decoder a head it cannot frame, or bytes it cannot read: the decoder owns every byte
    /// from here on.
    func decoderTakesOver() {
        decoderOwnsBytes = true
    }

    /// The decoder produced a request head (on its way to the router).
    func decoderProducedHead() {
        if handedOverNotProduced > 0 {
            handedOverNotProduced -= 1
        } else {
            routedUnanswered += 1
            stopAwaitingHead()
        }
    }

    /// The decoder failed (a head it rejects): its error answer is the connection's last.
    func decoderFailed() {
        decoderOwnsBytes = true
        closing = true
    }

    /// An answer from the bytes was written.
    func answeredFromBytes() {
        if routedUnanswered == 0 { awaitHead() }
    }

    /// The router's answer to a request begins; `closesConnection`: it says `Connection: close`.
    func routedAnswerBegins(closesConnection: Bool) {
        if closesConnection { closing = true }
    }

    /// The router's answer to a request has ended. Returns whether the connection closes now (once the answer
    /// is written: until then the client must keep taking it).
    func routedAnswerEnded() -> Bool {
        routedUnanswered = max(0, routedUnanswered - 1)
        guard !closing else {
            lastAnswerEnded = true
            startJudging()
            return true
        }
        if routedUnanswered == 0 { awaitHead() }
        return false
    }

    /// `bytes` of answers were handed to the socket (`SocketWrites`, for every write).
    func queued(answerBytes bytes: Int) {
        answerBytesQueued += bytes
    }

    /// The channel was flushed: the socket took what it could, `unsentAnswerBytes` are left. A deadline that
    /// started since the last flush takes its mark now.
    func flushed(unsentAnswerBytes: Int) {
        guard marksAtFlush else { return }
        marksAtFlush = false
        guard deadline != nil else { return }
        sentAtMark = answerBytesQueued - unsentAnswerBytes
        if unsentAnswerBytes == 0 { reportIdleIfAwaitingHead() }
    }

    /// The channel asks to read more requests. Returns whether to read now: not while reading is paused (the
    /// read is held).
    func readRequested() -> Bool {
        guard readingPaused else { return true }
        readHeld = true
        return false
    }

    /// The channel's writability changed: not writable, reading pauses (reported once, with `unsentAnswerBytes`,
    /// what the channel holds unwritten, asked only then) and the client is judged by its progress; writable,
    /// it resumes. Returns whether to issue a read held meanwhile now.
    func writabilityChanged(isWritable: Bool, unsentAnswerBytes: @autoclosure () -> Int) -> Bool {
        guard isWritable else {
            if !readingPaused {
                readingPaused = true
                readPauses += 1
                readPaused(unsentAnswerBytes())
                startJudging()
            }
            return false
        }
        readingPaused = false
        stopJudgingUnlessAwaited()
        defer { readHeld = false }
        return readHeld
    }

    /// The connection has closed, or its handlers are leaving.
    func closed() {
        deadline = nil
        timer?.cancel()
        timer = nil
        if let entry { connections?.unregister(entry) }
    }

    // MARK: - Rules

    /// Whether the wire may answer a request it read now.
    func mayAnswerFromBytes(isWritable: Bool) -> Bool {
        !decoderOwnsBytes && !closing && routedUnanswered == 0 && isWritable
    }

    /// The deadline's rule, asked at `now` with `unsentAnswerBytes` held unwritten. Before the deadline: asked
    /// again then. At it: if the socket took bytes since the mark, the client is reading (however slowly) and gets
    /// one more deadline; if not, the connection closes: answer bytes unsent, the client stopped reading; none,
    /// no head came while nothing was pending.
    func judge(now: NIODeadline, unsentAnswerBytes: @autoclosure () -> Int) -> Verdict {
        guard let due = deadline else { return .none }
        guard now >= due else { return .judgeAgain(at: due) }
        let unsent = unsentAnswerBytes()
        let sent = answerBytesQueued - unsent
        if sent > sentAtMark {
            sentAtMark = sent
            marksAtFlush = false
            let next = now + headDeadline
            deadline = next
            if unsent == 0 { reportIdleIfAwaitingHead() }
            return .judgeAgain(at: next)
        }
        if unsent > 0 { return .close(.notReading) }
        if awaitingHead { return .close(.noHead) }
        deadline = nil  // the last answer is written (it closes the connection itself)
        return .none
    }

    // MARK: - The deadline

    /// Whether anything is awaited from the client: a head, or taking answer bytes.
    private var awaitsClient: Bool { awaitingHead || readingPaused || lastAnswerEnded }

    private func awaitHead() {
        awaitingHead = true
        startJudging()
    }

    private func stopAwaitingHead() {
        guard awaitingHead else { return }
        awaitingHead = false
        if reportedIdle, let entry {
            reportedIdle = false
            connections?.busy(entry)
        }
        stopJudgingUnlessAwaited()
    }

    /// Starts a deadline unless one runs (waiting for a head while the client takes an answer is one wait). Its
    /// mark, until the flush that follows takes it, assumes every byte queued was taken.
    private func startJudging() {
        guard deadline == nil else { return }
        deadline = channel.eventLoop.now + headDeadline
        sentAtMark = answerBytesQueued
        marksAtFlush = true
        if timer == nil { schedule() }
    }

    private func stopJudgingUnlessAwaited() {
        guard !awaitsClient else { return }
        deadline = nil
        marksAtFlush = false
    }

    private func reportIdleIfAwaitingHead() {
        guard awaitingHead, !reportedIdle, let entry else { return }
        reportedIdle = true
        connections?.idle(entry, arriving: false)
    }

    // One timer per connection, moved lazily: a keep-alive connection answering thousands of requests a second
    // would otherwise cancel and schedule a timer for each. A deadline only ever moves later than the timer.
    private func schedule() {
        guard let deadline else { return }
        let channel = self.channel
        timer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            switch judge(now: channel.eventLoop.now, unsentAnswerBytes: unsentBytes()) {
            case .judgeAgain: schedule()
            case .close(let reason):
                closedByDeadline(reason)
                channel.close(promise: nil)
            case .none: break
            }
        }
    }
}
