import Testing
import ThumbcacheKit
@testable import thumbcache

/// `get` without -o: the name comes from the URL's path alone, and is always one safe file name.
struct OutputNameTests {
    func stem(_ url: String) throws -> String { OutputName.stem(for: try ImageSource(url)) }

    @Test func queryAndFragmentAreNotPartOfTheName() throws {
        #expect(try stem("http://127.0.0.1/photo.jpg?size=large") == "photo")
        #expect(try stem("http://127.0.0.1/a/b/photo.v2.jpeg?x=1#frag") == "photo.v2")
        #expect(try stem("http://127.0.0.1/images/cat?format=jpg") == "cat")
        #expect(try stem("http://127.0.0.1/caf%C3%A9.png") == "café")
        #expect(try stem("/tmp/some dir/holiday.jpg") == "holiday")
    }

    @Test func namesAreSanitized() throws {
        #expect(try stem("http://127.0.0.1/") == "thumbnail")
        #expect(try stem("http://127.0.0.1/?q=photo.jpg") == "thumbnail")
        #expect(try stem("http://127.0.0.1/.jpg") == "jpg")
        #expect(try stem("http://127.0.0.1/..") == "thumbnail")
        #expect(try stem("http://127.0.0.1/.hidden.jpg") == "hidden")
        #expect(try stem("http://127.0.0.1/x/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd") == "_.._etc_passwd")
        #expect(try stem("http://127.0.0.1/a%0Ab%00c%1B%E2%80%AEd.jpg") == "a_b_c__d")
        #expect(try stem("http://127.0.0.1/%20%20.name.jpg") == "name")
        let long = try stem("http://127.0.0.1/" + String(repeating: "é", count: 300) + ".jpg")
        #expect(long.utf8.count <= OutputName.maxStemBytes && long.hasPrefix("éé") && !long.contains("\u{FFFD}"))
    }
}
