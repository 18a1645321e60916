/// The thumbnail sizes stored on disk beside each original, one DiskLru value each.
/// Requests for other sizes are resized from the nearest larger stored variant (or the original)
/// and kept in memory only, so the disk entry stays a fixed shape.
public struct SizeLadder: Sendable, Equatable {
    public let sizes: [Int]

    public static let standard = SizeLadder(sizes: [64, 128, 256, 512, 1024])

    public init(sizes: [Int]) {
        self.sizes = Array(Set(sizes)).sorted()
    }

    /// DiskLru value index of a ladder size: 0 is metadata, 1 the original, then one per rung.
    public func valueIndex(of size: Int) -> Int? {
        sizes.firstIndex(of: size).map { $0 + 2 }
    }

    public var valueCount: Int { sizes.count + 2 }
}
