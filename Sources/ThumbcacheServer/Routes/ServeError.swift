import Foundation
import HTTPTypes
import Processing
import Hummingbird
import ThumbcacheKit

/// An error answer: its status, a stable code and a message a client can act on, sent as JSON
/// `{"error": code, "message": text}` with `Cache-Control: no-store` (a CDN must not keep it).
package struct ServeError: Error, Sendable, Equatable {
    package var status: HTTPResponse.Status
    package var code: String
    package var message: String
    /// Seconds, for 503.
    package var retryAfter: Int?

    package init(status: HTTPResponse.Status, code: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    package static func badRequest(_ message: String) -> ServeError {
        ServeError(status: .badRequest, code: "bad_request", message: message)
    }

    package static func forbidden(_ code: String, _ message: String) -> ServeError {
        ServeError(status: .forbidden, code: code, message: message)
    }

    package static func unavailable(_ code: String, _ message: String, retryAfter: Int = 1) -> ServeError {
        ServeError(status: .serviceUnavailable, code: code, message: message, retryAfter: retryAfter)
    }

    package static func timedOut(after timeout: Duration) -> ServeError {
        ServeError(status: .gatewayTimeout, code: "timeout", message: "no thumbnail within the request deadline of \(timeout)")
    }

    /// The pipeline's failures, by case: each status in the README's table. `revealingRefusals`
    /// (`--debug-refusals`): a refused source's message says why in full, addresses included (see
    /// `refusalMessage`).
    package init(_ error: PipelineError, revealingRefusals: Bool = false) {
        let message = error.description
        switch error {
        case .invalidSource, .invalidSize:
            self.init(status: .badRequest, code: "bad_source", message: message)
        case .processing(_, let refusal):
            self.init(refusal)
            self.message = message
        case .sourceRefused(let url, let reason) where !revealingRefusals:
            self.init(status: .forbidden, code: "source_refused", message: Self.refusalMessage(url: url, reason: reason))
        case .sourceRefused:
            self.init(status: .forbidden, code: "source_refused", message: message)
        // A served file is a local:// source under --local-root: the answer names neither the root nor the path on
        // this machine (the client knows its own path), and a missing file is a 404 as an origin's would be.
        case .fileNotFound:
            self.init(status: .notFound, code: "origin_not_found", message: "no such file under the local root")
        case .fileUnreadable(_, let reason):
            self.init(status: .forbidden, code: "source_refused", message: "the local source cannot be read: \(reason)")
        case .httpStatus(_, let status) where (400..<500).contains(status):
            self.init(status: .notFound, code: "origin_not_found", message: message)
        case .httpStatus, .network, .tooManyRedirects, .redirectCycle, .invalidRedirect, .partialContent, .offlineMiss:
            self.init(status: .badGateway, code: "origin_failed", message: message)
        case .timeout:
            self.init(status: .gatewayTimeout, code: "origin_timeout", message: message)
        case .downloadTooLarge, .overRequestLimit(_, .maxSourceFileSize, _, _):
            self.init(status: .contentTooLarge, code: "too_large", message: message)
        case .overRequestLimit:
            self.init(status: .unprocessableContent, code: "too_many_pixels", message: message)
        case .notAnImage, .encodedBody:
            self.init(status: .unprocessableContent, code: "not_an_image", message: message)
        case .image(_, .tooLarge), .image(_, .animationTooLarge):
            self.init(status: .unprocessableContent, code: "too_many_pixels", message: message)
        case .image(_, .overMemoryBudget):
            self.init(status: .unprocessableContent, code: "over_memory_budget", message: message)
        case .image(_, .cancelled):  // a render stopped because nobody waited (`ThumbnailPipeline.cancellable` maps it)
            self.init(status: .serviceUnavailable, code: "overloaded", message: message, retryAfter: 1)
        case .image(_, .libraryUnavailable):  // the server's installation, not the image
            self.init(status: .internalServerError, code: "codec_unavailable", message: message)
        case .image:
            self.init(status: .unprocessableContent, code: "bad_image", message: message)
        case .overloaded:
            self.init(status: .serviceUnavailable, code: "overloaded", message: message, retryAfter: 1)
        case .cancelled:  // the request stopped waiting (its deadline passed): rarely anyone left to answer
            self.init(status: .serviceUnavailable, code: "cancelled", message: message, retryAfter: 1)
        case .cache, .notACacheDirectory, .trustedCAFile:
            self.init(status: .internalServerError, code: "internal", message: message)
        }
    }

    /// A processing URL's refusal, with imgproxy's statuses: an expired URL is 404 (it names nothing that exists
    /// any more), everything else 400 naming the option or argument to change.
    package init(_ error: ProcessingError) {
        let code = switch error {
        case .unknownOption: "unknown_option"
        case .badArgument: "bad_argument"
        case .notSupported: "not_supported"
        case .onlyPresets, .noPreset: "only_presets"
        case .forbiddenOption: "forbidden_option"
        case .unknownPreset: "unknown_preset"
        case .badPreset: "bad_preset"
        case .badPath: "bad_request"
        case .expired: "expired"
        case .resultTooLarge, .scaledTooLarge: "result_too_large"
        case .tooCostly: "too_costly"
        }
        if case .expired = error {
            self.init(status: .notFound, code: code, message: error.description)
        } else {
            self.init(status: .badRequest, code: code, message: error.description)
        }
    }

    /// A refusal as a public server says it: refused, and the kind of reason, never the addresses a host resolved
    /// to (which would make the server a DNS oracle for names only its own resolver sees). The pipeline's reason is
    /// free text (`SourcePolicy`, `HTTPFetcher`), so it is classified by its wording; anything not recognised is
    /// said as the address refusal, which names nothing.
    static func refusalMessage(url: String, reason: String) -> String {
        let kind = if reason.contains("which origins read differently") {
            "its path has something origins read differently (an escaped slash or backslash, a dot-like segment, a NUL)"
        } else if reason.contains("allowed source prefix") {
            "it is not under an allowed source prefix"
        } else if reason.contains("symbolic link") {
            "it is a symbolic link under the local root, and local sources follow none"
        } else if reason.contains("scheme is refused") {
            "it redirects to a scheme other than http or https"
        } else {
            "its host is not a public address (loopback, private and other non-public addresses are refused)"
        }
        // A file's path is this machine's (a local:// source under the root): not for the client.
        let named = url.hasPrefix("/") || url.hasPrefix("file:") ? "local source" : "source \(url)"
        return "refused \(named): \(reason.hasPrefix("its redirect to") ? "a redirect: " : "")\(kind)"
    }

    /// The refusal reason for metrics (`thumbcache_refusals_total{reason}`), nil for errors that are not refusals.
    var refusalReason: String? {
        switch status {
        case .forbidden: code
        case .serviceUnavailable: code
        case .contentTooLarge: code
        default: nil
        }
    }

    /// The error as the server answers it: JSON with the code and the message.
    var answer: ServerAnswer {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return .body(status, headers, ServeError.json(["error": code, "message": message]))
    }

    package var response: Response { answer.response }

    /// `object` (strings and booleans) as JSON, keys sorted.
    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
