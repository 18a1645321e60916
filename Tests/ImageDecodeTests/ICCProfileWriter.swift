import Foundation

/// Writes small ICC v2 RGB display profiles of the matrix/TRC kind (colourants, curves, white point), so tests can
/// make sRGB's look-alikes and near misses from published constants instead of committing profiles.
struct ICCProfileWriter {
    /// A channel's tone curve: sampled (`curv` with these 16-bit entries) or parametric (`para`, ICC function type
    /// and its parameters).
    enum Curve {
        case sampled([UInt16])
        case parametric(type: UInt16, [Double])

        /// sRGB's curve (IEC 61966-2-1) as ICC parametric type 3.
        static let sRGB = Curve.parametric(type: 3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])

        /// sRGB's curve sampled at `count` points, as the IEC 61966-2.1 profile stores it (1024 entries).
        static func sRGBSampled(_ count: Int) -> Curve {
            .sampled((0..<count).map { index in
                let encoded = Double(index) / Double(count - 1)
                let linear = encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
                return UInt16((linear * 65535).rounded())
            })
        }

        static func gamma(_ value: Double) -> Curve { .parametric(type: 0, [value]) }
    }

    typealias XYZ = (x: Double, y: Double, z: Double)

    /// sRGB's colourants adapted to D50 (Bradford), as the IEC 61966-2.1 profile stores them.
    static let sRGBColourants: [XYZ] = [(0.436066, 0.222488, 0.013916), (0.385147, 0.716873, 0.097076),
                                        (0.143066, 0.060608, 0.714096)]
    /// Display P3's colourants adapted to D50 (Bradford).
    static let displayP3Colourants: [XYZ] = [(0.515102, 0.241182, -0.001049), (0.291965, 0.692236, 0.041882),
                                             (0.157153, 0.066582, 0.784378)]
    static let d65: XYZ = (0.950455, 1, 1.089050)

    var colourants: [XYZ] = Self.sRGBColourants
    var curves: [Curve] = [.sRGB, .sRGB, .sRGB]
    var whitePoint: XYZ = Self.d65

    /// The profile's bytes: header, tag table, then the tags, each on a 4-byte boundary.
    var bytes: [UInt8] {
        var tags: [(signature: String, body: [UInt8])] = [("wtpt", Self.xyzType(whitePoint))]
        for (signature, colourant) in zip(["rXYZ", "gXYZ", "bXYZ"], colourants) { tags.append((signature, Self.xyzType(colourant))) }
        for (signature, curve) in zip(["rTRC", "gTRC", "bTRC"], curves) { tags.append((signature, Self.curveType(curve))) }
        var table: [UInt8] = Self.be32(tags.count)
        var data: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for tag in tags {
            table += Self.ascii(tag.signature) + Self.be32(start + data.count) + Self.be32(tag.body.count)
            data += tag.body
            while data.count % 4 != 0 { data.append(0) }
        }
        var header: [UInt8] = Self.be32(128 + table.count + data.count) + [0, 0, 0, 0] + [2, 0x10, 0, 0]
        header += Self.ascii("mntr") + Self.ascii("RGB ") + Self.ascii("XYZ ") + [UInt8](repeating: 0, count: 12)
        header += Self.ascii("acsp") + [UInt8](repeating: 0, count: 24)
        header += Self.s15Fixed16(0.9642) + Self.s15Fixed16(1) + Self.s15Fixed16(0.8249)  // the PCS illuminant, D50
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }

    static func xyzType(_ value: XYZ) -> [UInt8] {
        ascii("XYZ ") + [0, 0, 0, 0] + s15Fixed16(value.x) + s15Fixed16(value.y) + s15Fixed16(value.z)
    }

    static func curveType(_ curve: Curve) -> [UInt8] {
        switch curve {
        case .sampled(let entries):
            return ascii("curv") + [0, 0, 0, 0] + be32(entries.count) + entries.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .parametric(let type, let parameters):
            return ascii("para") + [0, 0, 0, 0] + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 0] + parameters.flatMap(s15Fixed16)
        }
    }

    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func s15Fixed16(_ value: Double) -> [UInt8] { be32(Int((value * 65536).rounded())) }
}
