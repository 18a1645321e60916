/// The container formats this library reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png

    /// Identifies the format from the first bytes; nil when neither signature matches.
    public static func sniff<D: Collection<UInt8>>(_ data: D) -> ImageFormat? {
        let head = Array(data.prefix(4))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        // Only "\x89PNG" is checked here so that a PNG whose line-ending bytes were mangled
        // (the classic ASCII-mode transfer) gets libpng's specific diagnosis, not "unrecognized".
        if head == [0x89, 0x50, 0x4E, 0x47] { return .png }
        return nil
    }

    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }
}
