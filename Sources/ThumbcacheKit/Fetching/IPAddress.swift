import Foundation

/// An IPv4 or IPv6 address that a source resolved to: what the source policy's address check classifies.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    package let bytes: [UInt8]

    /// A numeric address in its standard text form (`inet_pton`: dotted quad or IPv6, no brackets);
    /// nil for anything else, host names included.
    package init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    package var isIPv6: Bool { bytes.count == 16 }

    /// The standard text form (`inet_ntop`), without brackets.
    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv6 ? AF_INET6 : AF_INET
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) } != nil
        guard ok else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The kind of network this address belongs to; IPv4 forms embedded in IPv6 (mapped `::ffff:a.b.c.d`,
    /// compatible `::a.b.c.d`, translated, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are classified as the IPv4
    /// address they carry, so `[::ffff:127.0.0.1]` is loopback.
    package var kind: Kind {
        guard isIPv6 else { return Self.kind(ipv4: bytes) }
        let b = bytes
        let firstTen = b[0..<10].allSatisfy { $0 == 0 }
        if firstTen && b[10] == 0xFF && b[11] == 0xFF { return Self.kind(ipv4: Array(b[12..<16])) }  // ::ffff:0:0/96 mapped
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xFF && b[9] == 0xFF && b[10] == 0 && b[11] == 0 {
            return Self.kind(ipv4: Array(b[12..<16]))  // ::ffff:0:0:0/96 translated (RFC 2765)
        }
        if b[0..<12].allSatisfy({ $0 == 0 }) {
            if b[12..<15].allSatisfy({ $0 == 0 }) && b[15] <= 1 { return b[15] == 0 ? .unspecified : .loopback }
            return Self.kind(ipv4: Array(b[12..<16]))  // ::/96 compatible (deprecated)
        }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B {
            if b[4..<12].allSatisfy({ $0 == 0 }) { return Self.kind(ipv4: Array(b[12..<16])) }  // 64:ff9b::/96 NAT64
            if b[4] == 0 && b[5] == 1 { return .privateUse }  // 64:ff9b:1::/48 local-use NAT64
        }
        if b[0] == 0x20 && b[1] == 0x02 { return Self.kind(ipv4: Array(b[2..<6])) }  // 2002::/16 6to4
        if b[0] & 0xFE == 0xFC { return .privateUse }  // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .privateUse }  // fec0::/10 site-local (deprecated)
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // 100::/64 discard-only
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved }  // 2001:db8::/32 documentation
        return .global
    }

    private static func kind(ipv4 b: [UInt8]) -> Kind {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return .unspecified  // 0.0.0.0/8 "this network": 0.0.0.0 reaches the local host
        case (10, _, _): return .privateUse
        case (100, 64...127, _): return .shared  // 100.64/10 carrier-grade NAT
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal  // cloud metadata services live here
        case (172, 16...31, _): return .privateUse
        case (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113): return .reserved  // IETF, documentation
        case (192, 168, _): return .privateUse
        case (198, 18...19, _): return .reserved  // benchmarking
        case (224...239, _, _): return .multicast
        case (255, 255, 255) where b[3] == 255: return .broadcast
        case (240...255, _, _): return .reserved
        default: return .global
        }
    }

    /// Kinds of address, as the source policy's address check sees them.
    package enum Kind: String, Sendable, CaseIterable {
        case global
        case loopback
        case unspecified
        case privateUse = "private"
        case shared
        case linkLocal = "link-local"
        case multicast
        case broadcast
        case reserved

        /// "a loopback address", for messages.
        package var phrase: String {
            switch self {
            case .global: "a public address"
            case .loopback: "a loopback address"
            case .unspecified: "an unspecified (this-host) address"
            case .privateUse: "a private address"
            case .shared: "a shared (carrier-grade NAT) address"
            case .linkLocal: "a link-local address"
            case .multicast: "a multicast address"
            case .broadcast: "the broadcast address"
            case .reserved: "a reserved address"
            }
        }
    }
}
