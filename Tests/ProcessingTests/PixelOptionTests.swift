import Testing
import Processing

/// `flip`, `trim` and `watermark` as imgproxy's options/parser reads them: spellings, defaults, what an empty
/// argument keeps, their canonical form (a different meaning is a different variant), and the 400s naming them.
@Suite struct PixelOptionTests {
    @Test func flipReadsTwoFlagsAndKeepsWhatAnEmptyOneLeaves() throws {
        let both = try ProcessingOptions(parsing: "fl:1:1").geometry
        #expect(both.flipHorizontal && both.flipVertical)
        let vertical = try ProcessingOptions(parsing: "flip::t").geometry
        #expect(!vertical.flipHorizontal && vertical.flipVertical)
        let kept = try ProcessingOptions(parsing: "fl:1/fl::1").geometry
        #expect(kept.flipHorizontal && kept.flipVertical)
        // Go's ParseBool: anything else is false, with a warning in imgproxy.
        #expect(try !ProcessingOptions(parsing: "fl:yes").geometry.flipHorizontal)
        #expect(try ProcessingOptions(parsing: "fl:0:0").canonical == "")
    }

    @Test func trimDefaultsToThresholdTenAndTheTopLeftPixel() throws {
        #expect(try ProcessingOptions(parsing: "t:10").trim == TrimOptions())
        let full = try ProcessingOptions(parsing: "trim:25.5:FF0000:1:t").trim
        #expect(full == TrimOptions(threshold: 25.5, color: RGBColor(red: 255, green: 0, blue: 0), equalHorizontal: true,
                                    equalVertical: true))
        // An empty threshold turns trim off, as imgproxy deletes its key.
        #expect(try ProcessingOptions(parsing: "t:10/t::ff0000").trim == nil)
        // An empty colour is the top-left pixel again; empty equal flags keep theirs.
        #expect(try ProcessingOptions(parsing: "t:5:00ff00:1/t:7").trim == TrimOptions(threshold: 7, equalHorizontal: true))
    }

    @Test func watermarkNeedsAnOpacityAndKeepsTheRest() throws {
        let options = try ProcessingOptions(parsing: "wm:0.5:soea:10:-20:0.25")
        #expect(options.watermark == WatermarkOptions(opacity: 0.5, position: .compass(.southEast), x: 10, y: -20, scale: 0.25))
        #expect(try ProcessingOptions(parsing: "wm:1:re").watermark.position == .replicate)
        #expect(try ProcessingOptions(parsing: "watermark:1").watermark == WatermarkOptions(opacity: 1))
        #expect(try ProcessingOptions(parsing: "wm:1:no:5/wm:0.3").watermark
            == WatermarkOptions(opacity: 0.3, position: .compass(.north), x: 5))
        // Opacity 0 draws nothing: the same image as none.
        #expect(try ProcessingOptions(parsing: "wm:0:re").canonical == "")
        // imgproxy takes up to 7 arguments (two are its Pro edition's) and ignores those.
        #expect(try ProcessingOptions(parsing: "wm:1:ce:0:0:0.5:x:y").watermark.scale == 0.5)
    }

    @Test func eachMeaningHasItsOwnCanonicalFormThatParsesBack() throws {
        let lists = ["fl:1", "fl:0:1", "fl:1:1", "t:10", "t:11", "t:10:ff0000", "t:10::1", "t:10:::1", "wm:1", "wm:0.5",
                     "wm:1:re", "wm:1:no", "wm:1:no:5", "wm:1:no:0:5", "wm:1:ce:0:0:0.5", "rot:90/fl:1", "rot:270"]
        let forms = try lists.map { try ProcessingOptions(parsing: $0).canonical }
        #expect(Set(forms).count == lists.count, "\(forms)")
        for form in forms {
            #expect(try ProcessingOptions(parsing: form).canonical == form)
        }
        #expect(try ProcessingOptions(parsing: "flip:1:0").canonical == "fl:1:0")
        #expect(try ProcessingOptions(parsing: "trim:10").canonical == "t:10::0:0")
        #expect(try ProcessingOptions(parsing: "watermark:0.5:re:10").canonical == "wm:0.5:re:10:0:")
    }

    @Test func badArgumentsAre400sNamingTheOption() throws {
        let cases: [(String, String)] = [
            ("fl:1:1:1", "fl"), ("t:abc", "t"), ("t:-1", "t"), ("t:10:red", "t"), ("t:10:ff0000:1:1:1", "t"),
            ("wm:", "wm"), ("wm", "wm"), ("wm:2", "wm"), ("wm:-0.5", "wm"), ("wm:abc", "wm"), ("wm:1:up", "wm"),
            ("wm:1:sm", "wm"), ("wm:1:ce:x", "wm"), ("wm:1:ce:0:inf", "wm"), ("wm:1:ce:0:0:0", "wm"),
            ("wm:1:ce:0:0:-1", "wm"), ("wm:1:ce:0:0:1e300", "wm"), ("wm:1:ce:0:0:1.5", "wm"), ("watermark:1:ce:0:0:1:a:b:c", "watermark"), ("trim:x", "trim"), ("flip:1:1:1", "flip"),
        ]
        for (list, option) in cases {
            do {
                _ = try ProcessingOptions(parsing: list)
                Issue.record("\(list) was accepted")
            } catch {
                guard case .badArgument(let named, _, _) = error else { Issue.record("\(list): \(error)"); continue }
                #expect(named == option, "\(list): \(error)")
            }
        }
    }
}
