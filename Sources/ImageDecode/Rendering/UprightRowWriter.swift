/// Puts each stored row straight into its place in the upright image, for a read that keeps the stored pixels (a
/// full-size render): there the resizer would only copy the rows, and `Orientation.apply` copy the image again.
/// A stored row is a run of upright pixels a fixed step apart: a row (step ±1) or a column (step ± the upright width).
struct UprightRowWriter {
    let orientation: Orientation
    let storedWidth: Int
    let storedHeight: Int
    let channels: Int

    var uprightWidth: Int { orientation.swapsAxes ? storedHeight : storedWidth }
    var uprightHeight: Int { orientation.swapsAxes ? storedWidth : storedHeight }

    /// Writes stored row `y` (`storedWidth` pixels) into `image` (the upright image's `uprightWidth × uprightHeight`
    /// pixels).
    func write(_ row: UnsafePointer<UInt8>, storedRow y: Int, into image: UnsafeMutablePointer<UInt8>) {
        let first = orientation.uprightPosition(x: 0, y: y, sourceWidth: storedWidth, sourceHeight: storedHeight)
        let start = (first.1 * uprightWidth + first.0) * channels
        let second = orientation.uprightPosition(x: 1, y: y, sourceWidth: storedWidth, sourceHeight: storedHeight)
        // A one-pixel row has no second pixel: any step writes it.
        let step = storedWidth > 1 ? (second.1 * uprightWidth + second.0) * channels - start : channels
        if step == channels { return (image + start).update(from: row, count: storedWidth * channels) }
        if channels == 3 && step == -3 && storedWidth > 2 { return mirror(row, into: image + start - 3 * (storedWidth - 1)) }
        var target = image + start
        var source = row
        if channels == 3 {
            for _ in 0..<storedWidth {
                target[0] = source[0]; target[1] = source[1]; target[2] = source[2]
                target += step; source += 3
            }
        } else {  // a four-byte pixel moved as one word
            var to = UnsafeMutableRawPointer(target), from = UnsafeRawPointer(source)
            for _ in 0..<storedWidth {
                to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
                to += step; from += 4
            }
        }
    }

    /// A mirrored three-byte row (a horizontal flip, the common case), written left to right from the stored row's
    /// end a word at a time: each word's fourth byte lands on the next pixel, which is written after it. The first
    /// and last pixels go byte by byte, so nothing is read or written outside the two rows.
    private func mirror(_ row: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>) {
        let last = storedWidth - 1
        for c in 0..<3 { target[c] = row[3 * last + c] }
        var to = UnsafeMutableRawPointer(target + 3), from = UnsafeRawPointer(row + 3 * (last - 1))
        for _ in 1..<last {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to += 3; from -= 3
        }
        for c in 0..<3 { target[3 * last + c] = row[c] }
    }
}
