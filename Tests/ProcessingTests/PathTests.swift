import Testing
import Processing

@Suite struct PathTests {
    static let cat = "aHR0cDovL2V4YW1wbGUuY29tL2NhdC5qcGc"  // http://example.com/cat.jpg

    @Test func base64SourceMaySplitAndTakeAnExtension() throws {
        let path = try ProcessingPath(path: "/sig/rs:fill:300:200/aHR0cDovL2V4YW1w/bGUuY29tL2Nh/dC5qcGc.webp")
        #expect(path.source == "http://example.com/cat.jpg")
        #expect(path.sourceEncoding == .base64)
        #expect(path.options.format == .webp)
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/rs:fill:300:200/aHR0cDovL2V4YW1w/bGUuY29tL2Nh/dC5qcGc.webp")
    }

    @Test func plainSourceIsPercentDecodedAndTakesAtExtension() throws {
        let path = try ProcessingPath(path: "/_/w:300/plain/http://example.com/a%20b.png%3Fx%3D1@avif")
        #expect(path.source == "http://example.com/a b.png?x=1")
        #expect(path.sourceEncoding == .plain)
        #expect(path.options.format == .avif)
        // An encoded @ belongs to the source.
        #expect(try ProcessingPath(path: "/_/plain/http://example.com/me%40home.jpg").source == "http://example.com/me@home.jpg")
    }

    @Test func extensionOverridesFormatOptionButNotRaw() throws {
        #expect(try ProcessingPath(path: "/_/f:png/\(Self.cat).jpg").options.format == .jpeg)
        #expect(try ProcessingPath(path: "/_/raw:1/\(Self.cat).jpg").options.format == nil)
        #expect(try ProcessingPath(path: "/_/\(Self.cat)").options == ProcessingOptions())
    }

    @Test func shortGrammarPathsAreNotProcessingPaths() throws {
        for old in ["/unsafe/256/contain/\(Self.cat)", "/sig/64/cover/\(Self.cat).webp", "/sig/8192/contain/x",
                    "/sig/300/fill/\(Self.cat)", "/sig/0/contain/\(Self.cat)"] {
            let segments = old.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            #expect(PathGrammar(segments: segments) == .shortThumbnail, "\(old)")
        }
        for new in ["/sig/rs:fit:256:256/\(Self.cat)", "/sig/\(Self.cat)", "/sig/w:300/plain/http://e.com/a.jpg",
                    "/sig/aHR0cDovL2V4/YW1wbGUuY29t/L2NhdC5qcGc", "/sig/256/\(Self.cat)"] {
            let segments = new.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            #expect(PathGrammar(segments: segments) == .processing, "\(new)")
            _ = try? ProcessingPath(path: new)
        }
    }

    @Test func badPathsSayWhatIsWrong() {
        let cases: [(String, ProcessingError)] = [
            ("/sig", .badPath("expected /<signature>/<options>/<source>, got 1 path segment(s)")),
            ("/sig/w:300/.png", .badPath("the source URL is empty")),
            // An empty segment among the options is dropped (RestoredPath), so nothing is left for the source.
            ("/sig/w:300/", .badPath("the source URL is missing after the options")),
            ("/sig/w:300", .badPath("the source URL is missing after the options")),
            ("/sig/enc/abcdef", .notSupported(option: "enc (encrypted source URLs)")),
        ]
        for (path, error) in cases {
            #expect(throws: error, "\(path)") { try ProcessingPath(path: path) }
        }
        for path in ["/sig/\(Self.cat).jpg.png", "/sig/plain/http://a/b@png@jpg", "/sig/fill/300/200/\(Self.cat)",
                     "/sig/not*base64", "/sig/plain/http://a/%zz", "/sig/\(Self.cat).jp2"] {
            #expect(throws: ProcessingError.self, "\(path)") { try ProcessingPath(path: path) }
        }
    }
}
