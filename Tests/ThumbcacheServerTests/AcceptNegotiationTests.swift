import ImageDecode
import Testing
@testable import ThumbcacheServer

/// The Accept parser: q-values, refusals, and wildcards that never pick AVIF or WebP.
struct AcceptNegotiationTests {
    @Test(arguments: [
        ("image/avif,image/webp,*/*", ImageFormat.avif),  // Firefox 92+
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", .avif),  // Chrome
        ("image/webp,image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5", .webp),  // older Safari
        ("IMAGE/AVIF ; Q=0.5", .avif),
        ("image/avif;q=0, image/webp", .webp),
        ("image/avif;q=0.0, image/webp;q=0.000", nil),
        ("image/webp;q=0.1", .webp),
        ("image/avif;level=1;q=0.3", .avif),
        ("image/avif;q=0, image/avif;q=0.7", .avif),
    ] as [(String, ImageFormat?)])
    func listedByNameWithAPositiveQ(_ header: String, _ expected: ImageFormat?) {
        #expect(AcceptNegotiation(header).accepted([.avif, .webp]).first == expected, "\(header)")
    }

    @Test(arguments: ["*/*", "image/*", "image/*, */*;q=0.1", "text/html,application/xhtml+xml", "", "image/jpeg, image/png"])
    func wildcardsAndOtherTypesKeepTheDefault(_ header: String) {
        #expect(AcceptNegotiation(header).accepted([.avif, .webp]).first == nil, "\(header)")
    }

    @Test func aMissingHeaderKeepsTheDefault() {
        #expect(AcceptNegotiation(nil).accepted([.avif, .webp]).first == nil)
    }

    @Test(arguments: ["image/avif;q=abc", "image/avif;q=2", "image/avif;q=-1", "image/avif;q="])
    func anUnreadableQRefuses(_ header: String) {
        #expect(AcceptNegotiation(header).accepted([.avif, .webp]).first == nil, "\(header)")
    }

    @Test func qualitiesAreRecordedByType() {
        let accept = AcceptNegotiation(" image/webp ; q=0.9 ,text/html")
        #expect(accept.qualities == ["image/webp": 0.9, "text/html": 1])
        #expect(accept.namesAccepted(.webp) && !accept.namesAccepted(.avif))
    }
}
