import Testing
@testable import Processing

@Suite struct PresetTests {
    let presets: Presets

    init() throws {
        presets = try Presets(list: "thumb=rs:fill:150:150/g:sm,hero=rs:fit:1200:0/q:85,loop=pr:loop/w:7,default=q:80/ar:0")
    }

    @Test func presetExpandsInPlaceAfterTheDefault() throws {
        let options = try ProcessingOptions(parsing: "pr:thumb", presets: presets)
        #expect(options.geometry.resizingType == .fill)
        #expect((options.geometry.width, options.geometry.height) == (150, 150))
        #expect(options.geometry.gravity == .smart)
        #expect(options.quality == 80 && !options.autoRotate)
        #expect(options.usedPresets == ["default", "thumb"])
    }

    @Test func laterOptionsOverrideAPreset() throws {
        let options = try ProcessingOptions(parsing: "pr:hero:thumb/q:60/preset:hero", presets: presets)
        // hero, then thumb over it, q:60, then hero again sets fit, 1200 × 0 and q:85.
        #expect(options.geometry.resizingType == .fit)
        #expect((options.geometry.width, options.geometry.height, options.quality) == (1200, 0, 85))
        #expect(options.geometry.gravity == .smart)
    }

    @Test func aPresetUsingItselfIsExpandedOnce() throws {
        #expect(try ProcessingOptions(parsing: "pr:loop", presets: presets).geometry.width == 7)
    }

    @Test func definitionsFromRepeatedFlagsAndComments() throws {
        let flags = try Presets(definitions: ["card=rs:fill:300:200", " # a comment", "", "big = w:2000 "])
        #expect(flags.names == ["big", "card"])
        #expect(try ProcessingOptions(parsing: "pr:big", presets: flags).geometry.width == 2000)
    }

    @Test func badPresetsFailWhenLoaded() {
        #expect(throws: ProcessingError.self) { try Presets(list: "thumb") }
        #expect(throws: ProcessingError.self) { try Presets(list: "=w:1") }
        #expect(throws: ProcessingError.self) { try Presets(list: "a=") }
        #expect(throws: ProcessingError.self) { try Presets(list: "a=w:x") }
        #expect(throws: ProcessingError.self) { try Presets(list: "a=pr:missing") }
        #expect(throws: ProcessingError.self) { try Presets(list: "a=w:1/notanoption") }
        #expect(throws: ProcessingError.unknownPreset("nope")) { try ProcessingOptions(parsing: "pr:nope", presets: presets) }
    }

    @Test func onlyPresetsRefusesOtherOptions() throws {
        let source = "aHR0cDovL2V4YW1wbGUuY29tL2NhdC5qcGc"
        // imgproxy's form: the first segment is preset names.
        let bare = try ProcessingPath(path: "/sig/thumb:hero/\(source)", presets: presets, onlyPresets: true)
        #expect(bare.options.usedPresets == ["default", "thumb", "hero"])
        let named = try ProcessingPath(path: "/sig/pr:thumb/preset:hero/\(source).webp", presets: presets, onlyPresets: true)
        #expect(named.options.usedPresets == ["default", "thumb", "hero"])
        #expect(named.options.format == .webp)
        #expect(throws: ProcessingError.onlyPresets(option: "w")) {
            try ProcessingPath(path: "/sig/pr:thumb/w:300/\(source)", presets: presets, onlyPresets: true)
        }
        #expect(throws: ProcessingError.unknownPreset("rs")) {
            try ProcessingPath(path: "/sig/rs:fill:300:200/\(source)", presets: presets, onlyPresets: true)
        }
    }

    @Test func onlyPresetsNeedsAPresetNamed() throws {
        let source = "aHR0cDovL2V4YW1wbGUuY29tL2NhdC5qcGc"
        for options in ["pr:", "preset:", "pr:thumb:", "thumb:", "pr:thumb/pr:"] {
            #expect(throws: ProcessingError.noPreset, "\(options)") {
                try ProcessingPath(path: "/sig/\(options)/\(source)", presets: presets, onlyPresets: true)
            }
        }
        // Without --only-presets an empty pr: names nothing and is harmless, as before.
        #expect(try ProcessingPath(path: "/sig/pr:/\(source)", presets: presets).options.usedPresets == ["default"])
    }

    @Test func presetsNamingEachOtherTwicePerLevelExpandToTheirDistinctOptions() throws {
        // p0 names p1 twice, p1 names p2 twice, … : walking references would apply 2^30 options per request.
        let depth = 30
        var definitions = (0..<depth).map { "p\($0)=pr:p\($0 + 1):p\($0 + 1)/w:\($0 + 1)" }
        definitions.append("p\(depth)=h:7/q:\(depth)")
        let chain = try Presets(definitions: definitions)
        let options = try ProcessingOptions(parsing: "pr:p0", presets: chain)
        #expect(options.geometry.width == 1 && options.geometry.height == 7 && options.quality == depth)
        #expect(options.usedPresets == (0...depth).map { "p\($0)" })
        #expect(chain.steps(of: "p0")?.count == 2 * depth + 3, "each name once, each distinct option once")
    }

    @Test func aRepeatedPresetDecidesWhatItSetsAsImgproxyReappliesIt() throws {
        // imgproxy applies b, w:100, b again: the second b's width wins. Dropping the first b keeps that.
        let repeated = try Presets(definitions: ["a=pr:b/w:100/pr:b", "b=w:50/g:no:3:4", "c=g:so/c:10:10:ea"])
        #expect(try ProcessingOptions(parsing: "pr:a", presets: repeated).geometry.width == 50)
        // A crop gravity without offsets has none, whatever g's are (imgproxy keeps them apart).
        let crop = try ProcessingOptions(parsing: "pr:b/pr:c/c:10:10:we", presets: repeated).geometry.cropGravity
        #expect(crop == .compass(.west, x: 0, y: 0))
        let cropFirst = try ProcessingOptions(parsing: "g:no:3:4/c:10:10:we", presets: repeated).geometry.cropGravity
        #expect(cropFirst == .compass(.west, x: 0, y: 0))
    }
}
