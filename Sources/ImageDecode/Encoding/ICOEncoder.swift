import Foundation

/// Writes a one-entry ICO holding a PNG, as imgproxy does. An icon is at most 256 px a side: a larger image is
/// first scaled down to fit (imgproxy's `fixIcoSize` does the same, keeping the aspect ratio).
enum ICOEncoder {
    static let maxDimension = 256

    static func encode(_ image: PixelBuffer, grey: Bool = false, metadata: ImageMetadata = ImageMetadata())
        throws(ImageDecodeError) -> Data {
        let fitted = fit(image)
        let png = try PNGEncoder.encode(fitted, grey: grey, metadata: metadata)
        var out = Data(capacity: 22 + png.count)
        func u16(_ value: Int) { out.append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]) }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { out.append(contentsOf: $0) } }
        u16(0)  // reserved
        u16(1)  // icon
        u16(1)  // one entry
        out.append(UInt8(fitted.width % 256))  // 0 means 256
        out.append(UInt8(fitted.height % 256))
        out.append(0)  // no palette
        out.append(0)
        u16(1)  // planes
        u16(32)  // bits a pixel
        u32(png.count)
        u32(22)
        out.append(png)
        return out
    }

    /// `image` scaled so that neither side exceeds 256 (each side at least 1).
    static func fit(_ image: PixelBuffer) -> PixelBuffer {
        let longest = max(image.width, image.height)
        guard longest > maxDimension else { return image }
        let scale = Double(maxDimension) / Double(longest)
        let width = min(maxDimension, max(1, Int((Double(image.width) * scale).rounded())))
        let height = min(maxDimension, max(1, Int((Double(image.height) * scale).rounded())))
        return image.resampled(width: width, height: height)
    }
}
