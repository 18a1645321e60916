/// Ink-to-light conversion for CMYK without a usable ICC profile, the same formula Pillow uses:
/// R = (255 - C)(255 - K) / 255. Inverted (Adobe JPEG) ink stores 255 - C, so R = C * K / 255.
enum NaiveCMYK {
    /// Converts `count` CMYK pixels (4 bytes each) to RGB (3 bytes each).
    static func convert(_ cmyk: UnsafePointer<UInt8>, into rgb: UnsafeMutablePointer<UInt8>, count: Int, inverted: Bool) {
        let flip: Int = inverted ? 0 : 255
        for x in 0..<count {
            let k = abs(flip - Int(cmyk[x * 4 + 3]))
            for c in 0..<3 {
                let ink = abs(flip - Int(cmyk[x * 4 + c]))
                rgb[x * 3 + c] = UInt8((ink * k + 127) / 255)
            }
        }
    }
}
