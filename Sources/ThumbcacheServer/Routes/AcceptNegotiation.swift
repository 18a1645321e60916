import Foundation
import ImageDecode

/// Picks a thumbnail's format from a request's `Accept` header (RFC 9110 §12.5.1), for URLs without an extension:
/// AVIF if the client accepts it, else WebP, else nil (the image's default: JPEG, or PNG when it has alpha).
///
/// AVIF and WebP count as accepted only when listed by name with a q-value above 0: browsers send `*/*` (and
/// `image/*`) whether or not they decode either, so a wildcard never picks them. `q=0` refuses a type even when
/// a wildcard would admit it. The answer is one of three classes, so the caches key on it, not on the header.
package struct AcceptNegotiation: Sendable, Equatable {
    /// Media types listed by name with their q-values (the highest when one is listed twice), lower-cased.
    package private(set) var qualities: [String: Double] = [:]

    /// Reads at most `HeaderList`'s bounds (64 elements, 4 KiB): a type named only beyond them is not seen, so the
    /// answer is the image's default format, which every client takes.
    package init(_ header: String?) {
        guard let header else { return }
        var qualities: [String: Double] = [:]
        HeaderList.scan(header) { element in
            var fields = element.split(separator: ";", omittingEmptySubsequences: false)[...]
            let type = HeaderList.trimmed(fields.removeFirst()).lowercased()
            guard !type.isEmpty else { return true }
            var q = 1.0
            for parameter in fields {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(HeaderList.trimmed)
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                // An unreadable or out-of-range q refuses nothing and asks for nothing: read as 0.
                q = Double(pair[1]).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            qualities[type] = max(qualities[type] ?? 0, q)
            return true
        }
        self.qualities = qualities
    }

    /// Whether `format` is listed by name with a q-value above 0 (wildcards do not count).
    package func namesAccepted(_ format: ImageFormat) -> Bool {
        (qualities[format.mimeType] ?? 0) > 0
    }

    /// The negotiated format: AVIF, then WebP, when named; nil leaves the image's default (JPEG or PNG).
    package var format: ImageFormat? {
        if namesAccepted(.avif) { return .avif }
        if namesAccepted(.webp) { return .webp }
        return nil
    }
}
