import Foundation
import Hummingbird

/// The access log (`AccessLog`) of every request Hummingbird routes.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: AccessLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log.record(method: request.method.rawValue, path: request.uri.path, status: response.status.code,
                       bytes: response.headers[.contentLength] ?? "0", served: response.headers[ThumbnailResponder.xThumbcache],
                       duration: started.duration(to: .now))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log.record(method: request.method.rawValue, path: request.uri.path, status: status, bytes: "0", served: nil,
                       duration: started.duration(to: .now))
            throw error
        }
    }
}
