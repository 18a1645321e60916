/// How a width × height box is filled (imgproxy's `resizing_type`; the names are its URL spellings).
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Inside the box, aspect kept.
    case fit
    /// Covers the box, aspect kept, the rest cut by gravity.
    case fill
    /// Like `fill`, but a source too small for the box is cut to the box's aspect instead of enlarged.
    case fillDown = "fill-down"
    /// Exactly the box, aspect not kept.
    case force
    /// `fill` when source and box have the same orientation, else `fit`.
    case auto
}
