import NIOCore
import NIOHTTP1

/// RFC 9112 §3.2: a server answers 400 to an HTTP/1.1 request without a `Host` field, and to any request with
/// more than one or with one that is not a host and optional port. NIO's decoder does not check it, so
/// `RequestHeadRules` does, behind the decoder, and `WireHitHandler` answers no head this rule refuses (it hands
/// it to the decoder, which meets the check): every path gives the same 400.
enum HostField {
    static func accepts<Values: Sequence>(_ values: Values, isHTTP11: Bool) -> Bool where Values.Element: StringProtocol {
        var count = 0
        for value in values {
            count += 1
            guard count == 1, isHost(value) else { return false }
        }
        return count == 1 || !isHTTP11
    }

    /// `uri-host [":" port]` by its characters: a reg-name (unreserved, sub-delims, pct-encoded), an IPv4 address
    /// or a bracketed IP literal. Empty is allowed (§3.2: sent when the target has no authority).
    private static func isHost<Value: StringProtocol>(_ value: Value) -> Bool {
        value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "-._~!$&'()*+,;=%:[]".utf8.contains(byte)
            }
        }
    }
}
