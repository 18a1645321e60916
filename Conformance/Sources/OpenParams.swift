import Foundation

/// The arguments of DiskLruCache's open/create; the spec's suites use 100 / 2.
struct OpenParams: Sendable, Equatable {
    var appVersion = 100
    var valueCount = 2
    var maxSize: Int64 = 1_000_000

    /// The five header lines a journal written with these parameters starts with.
    var headerLines: [String] { ["libcore.io.DiskLruCache", "1", String(appVersion), String(valueCount), ""] }

    func command(directory: String, options: [String: String]) -> String {
        (["open", directory, String(appVersion), String(valueCount), String(maxSize)]
            + options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}
