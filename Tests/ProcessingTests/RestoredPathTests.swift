import Testing
import Processing

/// imgproxy's `handlers/path_test.go` (TestParsePath, TestRedenormalizePathHTTPProtocol), as restored paths: the
/// expected path of each case, with our two additions (lower-case `%3a`, empty option segments anywhere).
@Suite struct RestoredPathTests {
    static func restored(_ path: String) -> String {
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return String(RestoredPath(segments: segments).signedPart.dropFirst())
    }

    @Test(arguments: [
        // TestParsePath
        ("/sig/rs:fill:300:200/plain/http://example.com/image.jpg", "rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("/sig/rs:fill:300:200/plain/https:/example.com/path/to/image.jpg", "rs:fill:300:200/plain/https://example.com/path/to/image.jpg"),
        ("/sig/rs%3Afill%3A300%3A200/plain/https://example.com/path/to/image.jpg", "rs:fill:300:200/plain/https://example.com/path/to/image.jpg"),
        ("/sig/rs%3Afill%3A300%3A200/abc/abc", "rs:fill:300:200/abc/abc"),
        // TestRedenormalizePathHTTPProtocol
        ("/sig/plain/http:/example.com/image.jpg", "plain/http://example.com/image.jpg"),
        ("/sig/plain/https:/example.com/image.jpg", "plain/https://example.com/image.jpg"),
        ("/sig/plain/local:/image.jpg", "plain/local:///image.jpg"),
        ("/sig//rs:fill:300:200/plain/http:/example.com/image.jpg", "rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("/sig//plain/http://example.com/image.jpg", "plain/http://example.com/image.jpg"),
        ("/sig//rs:fill:300:200/plain/example.com/image.jpg", "rs:fill:300:200/plain/example.com/image.jpg"),
        ("/sig/http:/example.com/image.jpg", "http:/example.com/image.jpg"),
        ("/sig//plain/example.com/image.jpg", "plain/example.com/image.jpg"),
        ("/sig//plain/http:", "plain/http:"),
        ("/sig//plain/http:/test", "plain/http://test"),
        // Ours: lower-case escapes, empty option segments anywhere, an escaped source and its extension untouched.
        ("/sig/rs%3afill%3a300%3a200/plain/a", "rs:fill:300:200/plain/a"),
        ("/sig/w:10//h:20//plain/a", "w:10/h:20/plain/a"),
        ("/sig/w:10/plain/http%3A%2F%2Fa%2Fb.jpg@png", "w:10/plain/http%3A%2F%2Fa%2Fb.jpg@png"),
        ("/sig/w:10/plain/local:///x.png", "w:10/plain/local:///x.png"),
        ("/sig/w:10/plain/http:/a/b%3Ac:/d", "w:10/plain/http://a/b%3Ac:/d"),
    ])
    func restoresAsImgproxy(sent: String, expected: String) {
        #expect(Self.restored(sent) == expected)
    }

    @Test func theRestoredPathIsWhatIsParsed() throws {
        let path = try ProcessingPath(path: "/sig/rs%3Afill%3A300%3A200//plain/https:/example.com/a.jpg@webp")
        #expect(path.source == "https://example.com/a.jpg" && path.options.format == .webp)
        #expect((path.options.geometry.width, path.options.geometry.height) == (300, 200))
        #expect(path.signedPart == "/rs:fill:300:200/plain/https://example.com/a.jpg@webp")
        #expect(throws: ProcessingError.self) { try ProcessingPath(path: "/sig") }
        #expect(throws: ProcessingError.self) { try ProcessingPath(path: "/sig//") }
    }
}
