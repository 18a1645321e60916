import NIOCore

/// An answer `WireHitHandler` writes as it is: its head already serialised (`AnswerHead`), its body (none for
/// HEAD and 304), and what the access log records of it.
struct WireAnswer {
    var head: ByteBuffer
    var body: ByteBuffer?
    var status: Int
    /// The `Content-Length` a GET's body has (the access log's bytes).
    var contentLength: String
    /// How the thumbnail was served (`X-Thumbcache`).
    var served: String
    /// The request's path as the access log writes it.
    var loggedPath: AccessLog.LoggedPath
}
