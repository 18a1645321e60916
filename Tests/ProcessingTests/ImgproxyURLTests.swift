import Testing
import Processing

/// URLs an unmodified imgproxy client library built: each parses to the meaning written beside it.
@Suite struct ImgproxyURLTests {
    let fixture: ImgproxyURLFixture

    init() throws { fixture = try ImgproxyURLFixture() }

    @Test func fixtureCoversTheOptions() {
        #expect(fixture.rows.count >= 40)
        #expect(fixture.rows.contains { $0.encoding == .plain })
        #expect(fixture.rows.contains { !$0.signed })
    }

    @Test func everyURLParsesToItsMeaning() throws {
        for row in fixture.rows {
            let path = try ProcessingPath(path: row.url, presets: fixture.presets)
            #expect(PathGrammar(segments: row.url.dropFirst().split(separator: "/", omittingEmptySubsequences: false)) == .processing)
            #expect(path.options.canonical == row.canonical, "\(row.url)")
            #expect(path.source == row.source, "\(row.url)")
            #expect(path.sourceEncoding == row.encoding, "\(row.url)")
            #expect("/" + path.signature + path.signedPart == row.url)
        }
    }
}
