import Testing
import Processing

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
}
