import Foundation
import NIOSSL

/// The one place ThumbcacheKit builds its `HTTPFetcher`, from the owner's `FetchLimits`, `SourcePolicy`, host
/// resolver and trust roots. The client starts event loop threads, so it is made at the first download (a cache
/// answering from memory or disk never pays for it), and shared by every later one until shut down.
final class FetcherFactory: Sendable {
    private let limits: FetchLimits
    private let policy: SourcePolicy
    private let resolver: (any HostResolver)?
    private let trustRoots: [NIOSSLCertificate]
    private let state = Locked(State())

    private struct State {
        var fetcher: HTTPFetcher?
        var closed = false
    }

    init(limits: FetchLimits, policy: SourcePolicy, resolver: (any HostResolver)?, trustRoots: [NIOSSLCertificate] = []) {
        (self.limits, self.policy, self.resolver, self.trustRoots) = (limits, policy, resolver, trustRoots)
    }

    /// The fetcher, made now if there is none; `payload` is used only then. nil once `close()`d.
    func fetcher(payload: HTTPFetcher.Payload) -> HTTPFetcher? {
        state.withLock { state in
            guard !state.closed else { return nil }
            if let fetcher = state.fetcher { return fetcher }
            let created = HTTPFetcher(limits: limits, payload: payload, trustRoots: trustRoots, policy: policy,
                                      resolver: resolver)
            state.fetcher = created
            return created
        }
    }

    /// Stops the client; a later download makes a new one.
    func shutdown() async {
        await stop(closing: false)
    }

    /// Stops the client for good: `fetcher(payload:)` answers nil from now on.
    func close() async {
        await stop(closing: true)
    }

    /// The client, if one was made, without making one (a `deinit` cannot wait for `close()`).
    var existing: HTTPFetcher? { state.withLock { $0.fetcher } }

    private func stop(closing: Bool) async {
        let fetcher = state.withLock { state in
            if closing { state.closed = true }
            defer { state.fetcher = nil }
            return state.fetcher
        }
        await fetcher?.shutdown()
    }

    /// The certificates of PEM `paths`, trusted beside the system's: read when the owner opens, so a bad file
    /// fails at once rather than at the first https download.
    static func trustRoots(from paths: [String]) throws(PipelineError) -> [NIOSSLCertificate] {
        var roots: [NIOSSLCertificate] = []
        for path in paths {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .trustedCAFile(path: path, reason: "no such readable file")
            }
            let certificates: [NIOSSLCertificate]
            do { certificates = try NIOSSLCertificate.fromPEMFile(path) } catch {
                throw .trustedCAFile(path: path, reason: "not PEM certificates (\(error))")
            }
            guard !certificates.isEmpty else { throw .trustedCAFile(path: path, reason: "no certificate in it") }
            roots += certificates
        }
        return roots
    }
}
