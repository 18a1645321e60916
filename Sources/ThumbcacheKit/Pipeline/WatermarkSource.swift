import Foundation
import ImageDecode

/// Where the server's watermark image comes from: imgproxy's `IMGPROXY_WATERMARK_DATA`, `_PATH` and `_URL`, in that
/// order of precedence when several are set. Loaded and decoded once, at start-up (`load`), into the pipeline's
/// `PipelineConfiguration.watermark`; an image that cannot be read stops the start, saying which and why.
public enum WatermarkSource: Sendable, Equatable {
    /// The image's bytes in base64 (standard or URL-safe, padding optional).
    case data(String)
    case path(String)
    /// Fetched as an original is: the pipeline's fetch limits and source policy (its SSRF checks), trust roots and
    /// resolver.
    case url(String)

    /// The first of `data`, `path`, `url` given (empty strings are not given), as imgproxy picks.
    public static func first(data: String?, path: String?, url: String?) -> WatermarkSource? {
        if let data, !data.isEmpty { return .data(data) }
        if let path, !path.isEmpty { return .path(path) }
        if let url, !url.isEmpty { return .url(url) }
        return nil
    }

    /// The decoded image, its opacity `opacity` (imgproxy's `IMGPROXY_WATERMARK_OPACITY`, 0 < opacity ≤ 1).
    public func load(opacity: Double, configuration: PipelineConfiguration) async throws(WatermarkError) -> WatermarkImage {
        guard opacity > 0, opacity <= 1 else { throw .badOpacity(opacity) }
        let bytes = try await self.bytes(configuration: configuration)
        do {
            return try WatermarkImage(data: bytes, opacity: opacity, maxPixels: configuration.maxPixels)
        } catch {
            throw .unreadable(self, reason: "not an image thumbcache can decode (\(error))")
        }
    }

    private func bytes(configuration: PipelineConfiguration) async throws(WatermarkError) -> Data {
        switch self {
        case .data(let text):
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64), !data.isEmpty else {
                throw .unreadable(self, reason: "not base64 (standard or URL-safe) of an image file")
            }
            return data
        case .path(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadable(self, reason: "no readable file there")
            }
            return data
        case .url(let text):
            let location: HTTPLocation
            do { location = try HTTPLocation(text) } catch { throw .unreadable(self, reason: error.reason) }
            let fetchers: FetcherFactory
            do {
                fetchers = FetcherFactory(limits: configuration.fetchLimits, policy: configuration.sourcePolicy,
                                          resolver: configuration.hostResolver,
                                          trustRoots: try FetcherFactory.trustRoots(from: configuration.trustedCAFiles))
            } catch {
                throw .unreadable(self, reason: error.description)
            }
            let outcome: Result<FetchOutcome, PipelineError>
            if let fetcher = fetchers.fetcher(payload: .data(accept: "image/*")) {
                do { outcome = .success(try await fetcher.fetch(location, conditional: [])) } catch { outcome = .failure(error) }
            } else {
                outcome = .failure(.network(url: text, reason: "the HTTP client is closed"))
            }
            // The client's threads are not kept: the image is fetched once.
            await fetchers.close()
            switch outcome {
            case .failure(let error): throw .unreadable(self, reason: error.description)
            case .success(.body(let fetched, _, _, _, _)):
                guard let data = fetched.inMemoryData, !data.isEmpty else { throw .unreadable(self, reason: "the body is empty") }
                return data
            case .success(.notModified):
                throw .unreadable(self, reason: "the origin answered 304 to an unconditional request")
            }
        }
    }
}

/// Why the configured watermark cannot be used; the server does not start.
public enum WatermarkError: Error, Equatable, CustomStringConvertible {
    case unreadable(WatermarkSource, reason: String)
    case badOpacity(Double)

    public var description: String {
        switch self {
        case let .unreadable(source, reason):
            let named: String = switch source {
            case .data: "--watermark-data (THUMBCACHE_WATERMARK_DATA)"
            case .path(let path): "--watermark-path \(path)"
            case .url(let url): "--watermark-url \(HTTPLocation.redacting(url))"
            }
            return "the watermark from \(named) cannot be used: \(reason); give a readable image (\(ImageFormat.names(ImageFormat.decodable))), or remove the flag"
        case let .badOpacity(opacity):
            return "--watermark-opacity \(opacity) is out of range: give a number above 0 and at most 1"
        }
    }
}
