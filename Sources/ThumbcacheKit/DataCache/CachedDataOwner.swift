import Foundation

/// Something whose data lives at a URL and is cached under a key it chooses: a user whose profile is JSON at
/// `url`, cached as `"user-42"` whatever token the URL carries today. `processData` turns the fetched bytes into
/// what the app wants, and what it returns is what `DataCache` keeps (nil: nothing is kept).
///
/// The names are those of the SwiftyNetworkedDataCache seed, so code written against it ports over.
public protocol CachedDataOwner: Sendable {
    associatedtype ProcessedData: Sendable

    /// What identifies the data in the cache, chosen by the owner ("user-42"), not the URL: a presigned URL whose
    /// token changes on every page view still finds its entry. Any text; two owners with one key share one entry.
    var cacheKey: String { get }
    /// Where the data is fetched from (http or https).
    var url: URL { get }
    /// The fetched bytes as the type the app wants, or nil when they make nothing worth keeping (nothing is then
    /// cached and the next call fetches again). A throw fails the call (`DataCacheError.processDataFailed`).
    /// Runs once per fetch, and once more when a value is loaded from the disk tier.
    static func processData(_ data: Data) throws -> ProcessedData?
}
