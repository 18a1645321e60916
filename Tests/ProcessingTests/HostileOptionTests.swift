import Foundation
import Testing
@testable import Processing

/// What one URL can make the server do, read as an attacker would write it (issue 20's hostile review): filter
/// costs, scaled sizes the result check does not see, preset loops, long split sources, what the signature covers.
@Suite struct HostileOptionTests {
    @Test func filterSigmasAreBounded() throws {
        // The mask grows with sigma (libvips's gaussmat, radius up to 5000): unbounded, one URL cost minutes of CPU.
        #expect(try ProcessingOptions(parsing: "bl:100/sh:100").blur == 100)
        let expected = "a sigma from 0 to 100"
        #expect(throws: ProcessingError.badArgument(option: "bl", argument: "100.5", expected: expected)) {
            try ProcessingOptions(parsing: "bl:100.5")
        }
        #expect(throws: ProcessingError.badArgument(option: "sharpen", argument: "1e300", expected: expected)) {
            try ProcessingOptions(parsing: "sharpen:1e300")
        }
        let message = ProcessingError.badArgument(option: "bl", argument: "5000", expected: expected).description
        #expect(message.contains("bl") && message.contains("5000") && message.contains("100"))
    }

    @Test func aDetectorsSearchImageCountsAgainstTheLimit() throws {
        func plan(_ list: String) throws -> ProcessingPlan {
            try ProcessingOptions(parsing: list).plan(sourceWidth: 4032, sourceHeight: 3024, maxResultSide: 8192)
        }
        // A 100×100 result, but min-width scales the image to 2^40 pixels a side first, and `g:sm` searches all of
        // it: the renderer's memory estimate overflowed Int (a trap: the whole server gone) before this check.
        #expect(throws: ProcessingError.self) { try plan("rs:fill:100:100/mw:1099511627776/g:sm") }
        do {
            _ = try plan("rs:fill:100:100/mw:20000/g:entropy")
            Issue.record("a 20000-pixel-wide search image passed an 8192 limit")
        } catch let ProcessingError.scaledTooLarge(width, height, limit) {
            #expect(width == 20000 && height == 15000 && limit == 8192)
        }
        // Without a detector only the 100×100 crop is read: nothing large is ever held.
        let placed = try plan("rs:fill:100:100/mw:20000/g:no")
        #expect((placed.resultWidth, placed.resultHeight) == (100, 100))
        // Ordinary smart crops are untouched.
        let smart = try plan("rs:fill:300:200/g:sm")
        #expect((smart.resultWidth, smart.resultHeight, smart.scaledWidth) == (300, 200, 300))
    }

    @Test func presetsThatReferToEachOtherExpandOnce() throws {
        let presets = try Presets(definitions: ["a=pr:b/w:10", "b=pr:a/h:20", "loop=pr:loop/q:50"])
        let options = try ProcessingOptions(parsing: "pr:a", presets: presets)
        #expect((options.geometry.width, options.geometry.height) == (10, 20))
        #expect(options.usedPresets == ["a", "b"])
        #expect(try ProcessingOptions(parsing: "pr:loop", presets: presets).quality == 50)
        // Repeating a name in the URL costs one expansion each, no more.
        let repeated = try ProcessingOptions(parsing: "pr:" + Array(repeating: "a", count: 1000).joined(separator: ":"),
                                             presets: presets)
        #expect(repeated.usedPresets.count == 2000 && repeated.canonical == options.canonical)
    }

    @Test func aSourceSplitIntoThousandsOfPiecesIsOneSource() throws {
        let url = "http://example.com/" + String(repeating: "a", count: 3000) + ".jpg"
        let encoded = Data(url.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let pieces = encoded.map(String.init).joined(separator: "/")
        let path = try ProcessingPath(path: "/sig/w:10/" + pieces + ".png")
        #expect(path.source == url && path.options.format == .png && path.options.geometry.width == 10)
    }

    @Test func theSignedPartIsThePathAsSent() throws {
        // A plain source's escapes are decoded after the signature is checked over their raw form: two spellings
        // of one source need two signatures, and the extension is signed with them.
        let upper = try ProcessingPath(path: "/sig/w:10/plain/http%3A%2F%2Fa%2Fb.jpg@png")
        let lower = try ProcessingPath(path: "/sig/w:10/plain/http%3a%2f%2fa%2fb.jpg@png")
        #expect(upper.source == lower.source && upper.source == "http://a/b.jpg")
        #expect(upper.signedPart == "/w:10/plain/http%3A%2F%2Fa%2Fb.jpg@png")
        #expect(upper.signedPart != lower.signedPart)
    }

    @Test func optionsThatDoNotChangeThePixelsShareOneCanonicalForm() throws {
        let presets = try Presets(definitions: ["card=rs:fill:60:40"])
        #expect(try ProcessingOptions(parsing: "q:70/fq:jpeg:50:webp:40").canonical == ProcessingOptions(parsing: "q:70").canonical,
                "q overrides every fq: one image, one name")
        let base = try ProcessingOptions(parsing: "rs:fill:60:40", presets: presets).canonical
        for spelling in ["pr:card", "rs:fill:60:40/cb:1", "rs:fill:60:40/exp:99", "rs:fill:60:40/fn:x/att:1",
                         "resizing_type:fill/width:60/height:40", "s:60:40/rt:fill/g:ce/dpr:1/z:1"] {
            #expect(try ProcessingOptions(parsing: spelling, presets: presets).canonical == base, "\(spelling)")
        }
        // And options that do change them never share one (each pair differs in one pixel-changing detail).
        let pairs = [("c:100:100:no/g:so", "c:100:100/g:so"), ("g:no:0.5:0", "g:no:1:0"), ("z:2:1", "z:1:2"),
                     ("pd:1:2", "pd:2:1"), ("ex:1:no", "exar:1:no"), ("bl:1", "sh:1"), ("q:50", "fq:jpeg:50")]
        for (one, other) in pairs {
            #expect(try ProcessingOptions(parsing: one).canonical != ProcessingOptions(parsing: other).canonical, "\(one) \(other)")
        }
    }

    /// Issue 33: `fn` reaches `Content-Disposition`, so its length is bounded as decoded, however it is spelt (plain,
    /// percent-encoded, base64url, in a preset); an empty argument still resets it.
    @Test func aFilenameIsBoundedInBytes() throws {
        let limit = ProcessingOptions.maxFilenameBytes
        #expect(limit == 255)
        let atLimit = String(repeating: "é", count: 127) + "x"
        let base64 = { (text: String) in
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        #expect(try ProcessingOptions(parsing: "fn:\(base64(atLimit)):1").filename == atLimit)
        #expect(try ProcessingOptions(parsing: "fn:" + String(repeating: "a", count: 255)).filename?.utf8.count == 255)
        for list in ["fn:" + String(repeating: "a", count: 256), "fn:" + String(repeating: "%C3%A9", count: 128),
                     "fn:\(base64(atLimit + "y")):1", "fn:" + String(repeating: "é", count: 10_000)] {
            do {
                _ = try ProcessingOptions(parsing: list)
                Issue.record("\(list.prefix(40)) was accepted")
            } catch let ProcessingError.badArgument(option, _, expected) {
                #expect(option == "fn" && expected.contains("at most 255 UTF-8 bytes"), "\(expected)")
            }
        }
        #expect(try ProcessingOptions(parsing: "fn:x/fn:").filename == nil)
        #expect(throws: ProcessingError.self) { try Presets(definitions: ["long=fn:" + String(repeating: "a", count: 300)]) }
    }
}
