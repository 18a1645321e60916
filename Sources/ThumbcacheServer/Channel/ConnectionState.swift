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
/// - **The head deadline**: from when the connection opens, or its last answer ends with nothing else outstanding,
///   the next head must arrive whole within `headDeadline`, or the connection closes (a client that trickles its
///   headers cannot hold it; an idle one is let go). While a request is outstanding there is no deadline.
///
/// Heads are counted once each: the wire counts the heads it hands over (`handedToDecoder`); a head the decoder
/// produces (`decoderProducedHead`) is one of those, in byte order, or, once the decoder owns the bytes, a new one.
final class ConnectionState {
    /// Requests handed to the router whose answers have not ended.
    private(set) var routedUnanswered = 0
    /// Heads the wire handed to the decoder that the decoder has not produced yet.
    private var handedOverNotProduced = 0
    private(set) var decoderOwnsBytes = false
    /// An answer said `Connection: close`: nothing more is answered, and the connection closes after it.
    private(set) var closing = false
    /// When the awaited head must have arrived; nil while a request is outstanding.
    private(set) var deadline: NIODeadline?
    /// Reading is paused: the channel is not writable (the client is not reading its answers, or one is that long).
    private(set) var readingPaused = false
    /// A read the channel asked for while reading was paused, issued when it resumes.
    private(set) var readHeld = false
    /// How many times reading paused.
    private(set) var readPauses = 0

    private let channel: any Channel
    private let headDeadline: TimeAmount
    /// Told when the connection waits for a head and when it stops (`--max-connections` closes the longest idle).
    private let connections: OpenConnections?
    private let entry: OpenConnections.Entry?
    private var timer: Scheduled<Void>?
    /// Whether the connection has waited for a head before (false: it has just opened).
    private var waitedBefore = false
    /// Told of each pause in reading, with the answer bytes unsent then (the metrics count them).
    private let readPaused: (_ unsentAnswerBytes: Int) -> Void

    init(channel: any Channel, headDeadline: TimeAmount, connections: OpenConnections?,
         readPaused: @escaping (_ unsentAnswerBytes: Int) -> Void = { _ in }) {
        self.channel = channel
        self.headDeadline = headDeadline
        self.connections = connections
        self.readPaused = readPaused
        entry = connections?.register(channel)
    }

    // MARK: - Events

    /// The connection is open: the first head's deadline starts.
    func opened() {
        if !waitedBefore { waitForHead() }
    }

    /// The wire read a whole head.
    func headFramed() {
        stopWaitingForHead()
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
            stopWaitingForHead()
        }
    }

    /// The decoder failed (a head it rejects): its error answer is the connection's last.
    func decoderFailed() {
        decoderOwnsBytes = true
        closing = true
    }

    /// An answer from the bytes was written.
    func answeredFromBytes() {
        if routedUnanswered == 0 { waitForHead() }
    }

    /// The router's answer to a request begins; `closesConnection`: it says `Connection: close`.
    func routedAnswerBegins(closesConnection: Bool) {
        if closesConnection { closing = true }
    }

    /// The router's answer to a request has ended. Returns whether the connection closes now.
    func routedAnswerEnded() -> Bool {
        routedUnanswered = max(0, routedUnanswered - 1)
        guard !closing else { return true }
        if routedUnanswered == 0 { waitForHead() }
        return false
    }

    /// The channel asks to read more requests. Returns whether to read now: not while reading is paused (the
    /// read is held).
    func readRequested() -> Bool {
        guard readingPaused else { return true }
        readHeld = true
        return false
    }

    /// The channel's writability changed: not writable, reading pauses (reported once, with `unsentAnswerBytes`,
    /// what the channel holds unwritten, asked only then); writable, it resumes. Returns whether to issue a read
    /// held meanwhile now.
    func writabilityChanged(isWritable: Bool, unsentAnswerBytes: @autoclosure () -> Int) -> Bool {
        guard isWritable else {
            if !readingPaused {
                readingPaused = true
                readPauses += 1
                readPaused(unsentAnswerBytes())
            }
            return false
        }
        readingPaused = false
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

    // MARK: - The head deadline

    // One timer per connection, moved lazily: a keep-alive connection answering thousands of requests a second
    // would otherwise cancel and schedule a timer for each.
    private func waitForHead() {
        deadline = channel.eventLoop.now + headDeadline
        if timer == nil { schedule() }
        if let entry { connections?.idle(entry, arriving: !waitedBefore) }
        waitedBefore = true
    }

    private func stopWaitingForHead() {
        guard deadline != nil else { return }
        deadline = nil
        if let entry { connections?.busy(entry) }
    }

    private func schedule() {
        guard let deadline else { return }
        let channel = self.channel
        timer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            guard let due = self.deadline else { return }
            if channel.eventLoop.now >= due {
                channel.close(promise: nil)
            } else {
                schedule()
            }
        }
    }
}
