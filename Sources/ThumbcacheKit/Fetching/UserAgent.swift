/// What thumbcache calls itself to origins. The version lives here, below the pipeline that reports it
/// (`ThumbnailPipeline.version`), so fetching never reaches up into the pipeline for it.
enum UserAgent {
    static let version = "0.2.0"
    static let value = "thumbcache/\(version)"
}
