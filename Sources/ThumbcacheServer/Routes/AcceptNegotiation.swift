import Foundation
import ImageDecode

/// Reads which of the server's negotiable formats a request's `Accept` header (RFC 9110 §12.5.1) names: for URLs
/// without a format (JPEG XL with `--auto-jxl`, AVIF, WebP, preferred in that order) and for enforced formats.
/// Which of them answers is decided with the source (`ProcessingOptions.outputFormat`: an animation passes AVIF
/// and JPEG XL over); none leaves the image's default.
///
/// A format counts as accepted only when listed by name with a q-value above 0: browsers send `*/*` (and
/// `image/*`) whether or not they decode it, so a wildcard never picks one. `q=0` refuses a type even when
/// a wildcard would admit it. The answer is one of a few classes (subsets of the server's list), so the caches key
/// on it, not on the header.
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

    /// The formats of `offered` (the server's, in its order) that are named (`namesAccepted`), in that order:
    /// what the pipeline chooses from once the source is known (`FormatRequest.accepted`).
    package func accepted(_ offered: [ImageFormat]) -> [ImageFormat] {
        offered.filter(namesAccepted)
    }
}
