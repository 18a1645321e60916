import Foundation

/// An encoded JPEG or PNG: bytes in memory, or a file the decoder reads in chunks as it goes, so a large
/// original never has to be in memory whole. Both reach libjpeg and libpng in the same chunks, so the same
/// bytes give the same outcome either way.
public enum EncodedImage: Sendable {
    case data(Data)
    /// A path; the file is opened for each probe or decode and must not change meanwhile.
    case file(String)
}
