import Foundation

/// An encoded JPEG or PNG: bytes in memory, or a file the decoder reads as it goes (libjpeg's and libpng's
/// stdio sources), so a large original never has to be in memory whole.
public enum EncodedImage: Sendable {
    case data(Data)
    /// A path; the file is opened for each probe or decode and must not change meanwhile.
    case file(String)
}
