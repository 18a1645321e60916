import AsyncHTTPClient
import Foundation
import ImageDecode
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Downloads originals over http(s) with AsyncHTTPClient: connect and read timeouts, one deadline over the whole
/// fetch (every hop and the body), at most `maxRedirects` redirects followed here, hop by hop, so each target
/// is checked against the `SourcePolicy` before any connection to it, the size limit enforced while streaming,
/// the body sniffed from its first bytes and written to a file in `downloads` as it arrives (memory stays flat
/// however large the original), or, for a `DataCache`, any body kept in memory (`Payload`). A body abandoned for
/// any reason closes its connection: nothing is read to the end.
final class HTTPFetcher: Sendable {
    /// What the fetched bodies are for, which decides the `Accept` header, the body check and where bytes go.
    enum Payload: Sendable {
        /// A thumbnail's original: refused unless its first bytes are an image, written to a file in `downloads`.
        case image(downloads: URL)
        /// A `DataCache`'s bytes, whatever they are (its `processData` judges them), kept in memory: they are
        /// handed to `processData` whole anyway, and the size limit bounds them. `accept` is sent as `Accept`.
        case data(accept: String)
    }

    private let clients: HTTPClientPool
    private let limits: FetchLimits
    private let payload: Payload
    private let policy: SourcePolicy
    /// nil: no address check, the HTTP client resolves names itself (Happy Eyeballs over every address).
    private let resolver: (any HostResolver)?

    /// `trustRoots` are trusted beside the system's certificate authorities. `resolver` replaces the system's
    /// (tests); given one, or with a policy that checks addresses, every connection is pinned to a checked address.
    init(limits: FetchLimits, payload: Payload, trustRoots: [NIOSSLCertificate] = [], policy: SourcePolicy = .unrestricted,
         resolver: (any HostResolver)? = nil) {
        self.limits = limits
        self.payload = payload
        self.policy = policy
        self.resolver = resolver ?? (policy.checksAddresses ? SystemResolver() : nil)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(limits.connectTimeout), read: TimeAmount(limits.readTimeout)))
        configuration.decompression = .disabled
        if !trustRoots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(trustRoots)]
            configuration.tlsConfiguration = tls
        }
        // AHC retries a refused connection with backoff until the connect timeout: 10 s of silence before
        // "connection refused". Fail at once instead, with the real reason.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, limits.maxConnectionsPerHost)
        clients = HTTPClientPool(configuration: configuration)
    }

    func shutdown() async {
        await clients.shutdown()
    }

    func fetch(_ source: HTTPLocation, conditional: [(String, String)]) async throws(PipelineError) -> FetchOutcome {
        let deadline = NIODeadline.now() + TimeAmount(limits.totalTimeout)
        do {
            return try await Self.racing(deadline) { try await self.follow(source, conditional: conditional, deadline: deadline) }
        } catch let error as PipelineError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw .timeout(url: source.url, reason: timeoutReason)
        } catch is DeadlineExceeded {
            throw .timeout(url: source.url, reason: timeoutReason)
        } catch let error as HTTPClientError where error == .readTimeout || error == .connectTimeout {
            throw .timeout(url: source.url, reason: HTTPFetcher.describe(error))
        } catch let error as HostResolutionError {
            throw .network(url: source.url, reason: error.message)
        } catch {
            throw .network(url: source.url, reason: HTTPFetcher.describe(error))
        }
    }

    private var timeoutReason: String {
        "the whole request took longer than the overall timeout of \(Self.seconds(TimeAmount(limits.totalTimeout))) s"
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let seconds = Double(amount.nanoseconds) / 1e9
        return seconds == seconds.rounded() ? String(Int64(amount.nanoseconds / 1_000_000_000)) : String(seconds)
    }

    private struct DeadlineExceeded: Error {}

    /// `operation`, cancelled at `deadline`. The HTTP client's own deadline ends when the response head arrives;
    /// this one also covers the body, so an origin trickling bytes cannot keep a fetch going.
    /// An operation that ends after the deadline is over it too, even when the timer's task has not run yet (a
    /// loaded machine may run it late): the outcome is decided by the clock, not by which task ran first.
    private static func racing<T: Sendable>(_ deadline: NIODeadline, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                let left = deadline.uptimeNanoseconds.subtractingReportingOverflow(NIODeadline.now().uptimeNanoseconds)
                if !left.overflow, left.partialValue > 0 { try await Task.sleep(nanoseconds: left.partialValue) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first, NIODeadline.now() < deadline else { throw DeadlineExceeded() }
            return value
        }
    }

    private enum Hop: Sendable {
        case done(FetchOutcome)
        case redirect(to: String)
    }

    /// Requests `source` and follows its redirects, checking every target before connecting to it.
    private func follow(_ source: HTTPLocation, conditional: [(String, String)], deadline: NIODeadline) async throws -> FetchOutcome {
        var location = source
        var chain = [source.url]
        while true {
            let addresses = try await admit(location, source: source)
            switch try await request(location, source: source, conditional: conditional, addresses: addresses, deadline: deadline) {
            case .done(let outcome):
                return outcome
            case .redirect(let target):
                guard chain.count <= limits.maxRedirects else {
                    throw PipelineError.tooManyRedirects(url: source.url, limit: limits.maxRedirects)
                }
                location = try redirectTarget(target, from: location, source: source)
                if chain.contains(location.url) { throw PipelineError.redirectCycle(chain: chain + [location.url]) }
                chain.append(location.url)
            }
        }
    }

    /// The next hop: `target` (a `Location` value) resolved against `current`, refused unless http(s).
    private func redirectTarget(_ target: String, from current: HTTPLocation, source: HTTPLocation) throws(PipelineError) -> HTTPLocation {
        guard let base = URL(string: current.url), let resolved = URL(string: target, relativeTo: base)?.absoluteURL else {
            throw .invalidRedirect(url: source.url, location: target, reason: "not a valid URL")
        }
        let scheme = resolved.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            let shown = HTTPLocation.redacting(String(resolved.absoluteString.prefix(100)))
            throw .sourceRefused(url: source.url, reason: "it redirects to \(shown): the \(scheme): scheme is refused (only http and https)")
        }
        do {
            return try HTTPLocation(resolved.absoluteString)
        } catch {
            throw .invalidRedirect(url: source.url, location: target, reason: error.reason)
        }
    }

    /// Checks `location` against the policy: the prefixes, then (when addresses are checked) the addresses its
    /// host resolves to. Returns the allowed addresses to connect to, in the resolver's order; empty when the
    /// HTTP client is to resolve the name itself.
    private func admit(_ location: HTTPLocation, source: HTTPLocation) async throws -> [IPAddress] {
        let hop = location.url == source.url ? "" : "its redirect to \(location.url): "
        if let reason = policy.refusal(of: location) {
            throw PipelineError.sourceRefused(url: source.url, reason: hop + reason)
        }
        guard let resolver else { return [] }
        let addresses = try await resolver.addresses(of: location.host)
        guard !addresses.isEmpty else { throw HostResolutionError(host: location.host, notFound: true, reason: "no address") }
        let allowed = addresses.filter { policy.refusal(of: $0) == nil }
        guard !allowed.isEmpty else {
            let refused = addresses.prefix(3).map { "\($0), \(policy.refusal(of: $0) ?? "")" }.joined(separator: "; ")
            let subject = IPAddress(location.host).map { "\($0) is \(policy.refusal(of: $0) ?? "refused")" }
                ?? "\(location.host) resolves to \(refused)"
            throw PipelineError.sourceRefused(url: source.url, reason: hop + subject)
        }
        return allowed
    }

    /// One request to `location`, on a connection to the first of `addresses` that accepts one (any address the
    /// client resolves when empty).
    private func request(
        _ location: HTTPLocation, source: HTTPLocation, conditional: [(String, String)], addresses: [IPAddress], deadline: NIODeadline
    ) async throws -> Hop {
        let candidates: [IPAddress?] = addresses.isEmpty ? [nil] : Array(addresses.prefix(4))
        var index = 0
        while true {
            do {
                return try await clients.withClient(host: location.host, pinnedTo: candidates[index]) { client in
                    try await self.exchange(location, source: source, conditional: conditional, client: client, deadline: deadline)
                }
            } catch where index + 1 < candidates.count && Self.isConnectFailure(error) {
                index += 1  // the next address, as Happy Eyeballs would
            }
        }
    }

    private static func isConnectFailure(_ error: any Error) -> Bool {
        switch error {
        case is NIOConnectionError: true
        case let error as IOError: [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(error.errnoCode)
        case let error as HTTPClientError: error == .connectTimeout
        default: false
        }
    }

    private func exchange(
        _ location: HTTPLocation, source: HTTPLocation, conditional: [(String, String)], client: HTTPClient, deadline: NIODeadline
    ) async throws -> Hop {
        let url = source.url
        var request = HTTPClientRequest(url: location.url)
        request.headers.add(name: "User-Agent", value: UserAgent.value)
        switch payload {
        case .image:
            // Every format the decoders read, so an origin that negotiates may send the smaller AVIF or WebP.
            request.headers.add(name: "Accept", value: "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.8,*/*;q=0.5")
        case .data(let accept):
            request.headers.add(name: "Accept", value: accept)
        }
        // Images are compressed already; a content-coded body would only be one more thing to undo (and a
        // `DataCache` hands `processData` the bytes as the resource is, not as they were sent).
        request.headers.add(name: "Accept-Encoding", value: "identity")
        for (name, value) in conditional { request.headers.add(name: name, value: value) }
        // As curl does: the URL's credentials go to its own origin only, never to where it redirects.
        if let credentials = source.credentials, location.sameOrigin(as: source) {
            request.headers.add(name: "Authorization", value: credentials.authorization)
        }
        let requestTime = Date()
        let response = try await client.execute(request, deadline: deadline)
        let responseTime = Date()
        if [301, 302, 303, 307, 308].contains(response.status.code), let target = response.headers.first(name: "location") {
            try await Self.drain(response.body, upTo: 64 << 10)
            return .redirect(to: target)
        }
        let headers = cachingHeaders(response.headers.map { ($0.name, $0.value) })
        let setsCookie = response.headers.contains(name: "set-cookie")
        if response.status == .notModified, !conditional.isEmpty {
            return .done(.notModified(headers: headers, requestTime: requestTime, responseTime: responseTime, setsCookie: setsCookie))
        }
        // thumbcache never sends Range, so a 206 is a fragment the origin chose to send: not the image.
        if response.status == .partialContent { throw PipelineError.partialContent(url: url) }
        guard (200..<300).contains(response.status.code) else {
            throw PipelineError.httpStatus(url: url, status: Int(response.status.code))
        }
        if let declared = response.headers.first(name: "content-length").flatMap({ HTTPInteger.parse($0) }) {
            try limits.checkSize(declared, url: url)
        }
        let contentType = response.headers.first(name: "content-type")
        let encoding = response.headers.first(name: "content-encoding").flatMap { $0.lowercased() == "identity" ? nil : $0 }
        let fetched: FetchedOriginal
        switch payload {
        case .image(let downloads):
            let notAnImage = encoding.map { PipelineError.encodedBody(url: url, encoding: $0) }
                ?? PipelineError.notAnImage(url: url, contentType: contentType)
            fetched = try await receiveImage(response.body, url: url, into: downloads, notAnImage: notAnImage)
        case .data:
            if let encoding { throw PipelineError.encodedBody(url: url, encoding: encoding) }
            fetched = try await receiveData(response.body, url: url)
        }
        return .done(.body(fetched, headers: headers, requestTime: requestTime, responseTime: responseTime, setsCookie: setsCookie))
    }

    /// The body into a download file, refused as soon as its first bytes are not an image.
    private func receiveImage(_ body: HTTPClientResponse.Body, url: String, into downloads: URL,
                              notAnImage: PipelineError) async throws -> FetchedOriginal {
        let download = try DownloadFile(in: downloads)
        var sniffed = false
        for try await chunk in body {
            try limits.checkSize(download.byteCount + chunk.readableBytes, url: url)
            try chunk.withUnsafeReadableBytes { bytes in try download.append(bytes) }
            // Refuse an HTML error page (or anything else) as soon as its first bytes arrive.
            if !sniffed && download.byteCount >= ImageFormat.signatureLength {
                guard ImageFormat.sniff(download.head) != nil else { throw notAnImage }
                sniffed = true
            }
        }
        guard ImageFormat.sniff(download.head) != nil else { throw notAnImage }
        return try download.finish()
    }

    /// The body in memory, whatever it is, up to the size limit.
    private func receiveData(_ body: HTTPClientResponse.Body, url: String) async throws -> FetchedOriginal {
        var data = Data()
        for try await chunk in body {
            try limits.checkSize(data.count + chunk.readableBytes, url: url)
            data.append(contentsOf: chunk.readableBytesView)
        }
        return FetchedOriginal(data: data)
    }

    /// Reads a body nobody needs (a redirect's), so its connection can serve the next request; a longer one is
    /// abandoned, which closes the connection.
    private static func drain(_ body: HTTPClientResponse.Body, upTo limit: Int) async throws {
        var read = 0
        for try await chunk in body {
            read += chunk.readableBytes
            if read > limit { return }
        }
    }

    /// A one-line reason a user can act on, chosen by the error's type (not its text, which NIO may reword).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .readTimeout: return "read timed out"
            case .connectTimeout: return "connect timed out"
            case .deadlineExceeded: return "the whole request took longer than the overall timeout"
            case .remoteConnectionClosed: return "the connection was closed before the whole body arrived"
            default: return "\(error)"
            }
        case is CancellationError:
            return "cancelled"
        case let error as NIOConnectionError:
            // Resolution failed before any connection attempt: the name does not resolve (NIO's resolver does
            // not say whether it does not exist or the lookup failed).
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return "host \(error.host) does not resolve"
            }
            // Happy Eyeballs tried every address of the host; the first failure carries the reason.
            guard let first = error.connectionErrors.first else { return "could not connect to \(error.host):\(error.port)" }
            return describe(first.error)
        case let error as IOError:
            return error.errnoCode == ECONNREFUSED ? "connection refused" : String(cString: strerror(error.errnoCode))
        case NIOSSLError.handshakeFailed(let error):
            let reason = tlsReason(error)
            guard reason == "CERTIFICATE_VERIFY_FAILED" else { return "TLS handshake failed (\(reason))" }
            // An untrusted certificate is the common case; say how to trust a private CA.
            return "TLS: the server's certificate is not trusted (\(reason)); for an origin signed by a private CA, pass --ca-file"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "TLS: the server's certificate is not for this host name"
        case let error as NIOSSLError:
            return "TLS error (\(error))"
        case HTTPParserError.invalidEOFState:
            return "the connection was closed before the whole body arrived"
        case let error as HTTPParserError:
            return "malformed HTTP response (\(error))"
        default:
            return "\(error)"
        }
    }

    /// BoringSSL's reason code, e.g. CERTIFICATE_VERIFY_FAILED, from a message shaped like
    /// `error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at file:line` (it has no API).
    private static func tlsReason(_ error: BoringSSLError) -> String {
        guard case .sslError(let errors) = error, let first = errors.first else { return "\(error)" }
        let message = "\(first)"
        guard let start = message.range(of: "OPENSSL_internal:")?.upperBound else { return message }
        return String(message[start...].prefix { !$0.isWhitespace })
    }
}
