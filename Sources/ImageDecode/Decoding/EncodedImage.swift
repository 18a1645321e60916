import Foundation

/// An encoded image: bytes in memory, or a file the decoder reads in chunks as it goes, so a large
/// original never has to be in memory whole. Both reach libjpeg and libpng in the same chunks, so the same
/// bytes give the same outcome either way.
public enum EncodedImage: Sendable {
    case data(Data)
    /// A path; the file is opened for each probe or decode and must not change meanwhile.
    case file(String)
    /// One of those opened once (`OpenedImage`): a decoder whose open is costly (an SVG's parse) is kept from the
    /// probe through the memory estimate to the render, rather than opened for each.
    case opened(OpenedImage)

    /// This image, opened once for every read that follows (`OpenedImage`): what a request that probes, estimates and
    /// renders one source hands to each. Opened already: itself.
    public func openedOnce() -> EncodedImage {
        if case .opened = self { return self }
        return .opened(OpenedImage(self))
    }

    /// The bytes or the file, whether opened or not.
    public var unopened: EncodedImage {
        if case .opened(let opened) = self { return opened.source }
        return self
    }
}
