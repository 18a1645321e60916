import Processing

/// Processing options with their canonical form worked out once. The form names a processed image in the memory
/// cache and on disk; building it is most of a hit's own work in the pipeline, so a server keeps one of these per
/// path (its check's memo) and a hit does not build it again. Two spellings of one image are equal.
public struct CanonicalOptions: Sendable, Hashable {
    public let options: ProcessingOptions
    /// `ProcessingOptions.canonical`.
    public let canonical: String

    public init(_ options: ProcessingOptions) {
        self.options = options
        canonical = options.canonical
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.canonical == rhs.canonical }
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
}
