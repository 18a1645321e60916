/// Which of the server's two URL grammars a path uses, so old URLs keep their meaning:
/// `/<signature>/<size>/<fit>/<source>` (the short grammar, parsed by the server's ThumbnailPath) or
/// imgproxy's processing grammar (`ProcessingPath`).
public enum PathGrammar: Sendable, Equatable {
    case shortThumbnail
    case processing

    /// `segments` is the whole path split on "/" (signature first). The short grammar is exactly four
    /// segments, the second a bare number: a processing option always holds a ":", and a base64 source
    /// split so that its first piece is all digits is not something URL builders write. The fit word is
    /// not required, so a short URL with a bad fit still gets the short grammar's own error.
    public init<Segment: StringProtocol>(segments: [Segment]) {
        let isShort = segments.count == 4
            && !segments[1].isEmpty && segments[1].allSatisfy { $0.isASCII && $0.isNumber }
        self = isShort ? .shortThumbnail : .processing
    }
}
