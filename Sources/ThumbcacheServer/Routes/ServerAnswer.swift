import HTTPTypes
import Hummingbird
import NIOCore

/// An answer of the server's own making, before it is written: by the router (`response`) or from the bytes
/// (`WireHitHandler`). Its fields are the answer's fields, `Content-Length` included where there is one; the
/// stamped ones (`Date`, `Server`) are added when it is written (`AnswerHead`).
struct ServerAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer?
    /// How a thumbnail was served (`X-Thumbcache`), for the access log and the metrics; nil for other answers.
    var served: String?

    /// An answer with `body`, its length in `Content-Length`.
    static func body(_ status: HTTPResponse.Status, _ headers: HTTPFields, _ text: String) -> ServerAnswer {
        var headers = headers
        let body = ByteBuffer(string: text)
        headers[.contentLength] = String(body.readableBytes)
        return ServerAnswer(status: status, headers: headers, body: body, served: nil)
    }

    /// The answer to HEAD: the same status and fields (so the `Content-Length` a GET would get), no body.
    func forHEAD() -> ServerAnswer {
        var answer = self
        answer.body = nil
        return answer
    }

    /// The `Content-Length` the access log records: what a GET's body has.
    var contentLength: String { headers[.contentLength] ?? "0" }

    /// For the router. Hummingbird adds a `Content-Length` of its body's length when there is none: an answer
    /// without one (a 304) keeps having none (RFC 9110 §8.6: a 304 may only repeat the 200's length).
    var response: Response {
        var response = Response(status: status, headers: headers, body: body.map { .init(byteBuffer: $0) } ?? .init())
        if headers[.contentLength] == nil { response.headers[.contentLength] = nil }
        return response
    }
}
