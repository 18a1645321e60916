import Testing
@testable import Processing

@Suite struct ParsingTests {
    @Test func longAndShortNamesMeanTheSame() throws {
        let pairs: [(String, String)] = [
            ("resize:fill:300:200:1:1:so", "rs:fill:300:200:1:1:so"), ("size:300:200", "s:300:200"),
            ("resizing_type:force", "rt:force"), ("width:10", "w:10"), ("height:10", "h:10"),
            ("min-width:10", "mw:10"), ("min-height:10", "mh:10"), ("zoom:2", "z:2"), ("enlarge:1", "el:1"),
            ("extend:1:no", "ex:1:no"), ("extend_aspect_ratio:1", "exar:1"), ("extend_ar:1", "exar:1"),
            ("gravity:sm", "g:sm"), ("crop:10:10", "c:10:10"), ("padding:5", "pd:5"), ("auto_rotate:0", "ar:0"),
            ("rotate:90", "rot:90"), ("background:fff", "bg:fff"), ("blur:1", "bl:1"), ("sharpen:1", "sh:1"),
            ("pixelate:4", "pix:4"), ("quality:70", "q:70"), ("format_quality:webp:60", "fq:webp:60"),
            ("max_bytes:1000", "mb:1000"), ("format:webp", "f:webp"), ("ext:webp", "f:webp"),
            ("strip_metadata:0", "sm:0"), ("keep_copyright:1", "kcr:1"), ("strip_color_profile:0", "scp:0"),
            ("skip_processing:png", "skp:png"), ("cachebuster:x", "cb:x"), ("expires:99", "exp:99"),
            ("filename:a", "fn:a"), ("return_attachment:1", "att:1"),
        ]
        for (long, short) in pairs {
            #expect(try ProcessingOptions(parsing: long) == ProcessingOptions(parsing: short), "\(long)")
            #expect(try ProcessingOptions(parsing: long) != ProcessingOptions(), "\(long) changes something")
        }
    }

    @Test func resizeExpandsToEveryPart() throws {
        let options = try ProcessingOptions(parsing: "rs:fill-down:300:200:t:1:soea:5:6")
        let g = options.geometry
        #expect(g.resizingType == .fillDown)
        #expect((g.width, g.height, g.enlarge, g.extend) == (300, 200, true, true))
        #expect(g.extendGravity == .compass(.southEast, x: 5, y: 6))
    }

    @Test func emptyArgumentsKeepWhatIsSet() throws {
        let options = try ProcessingOptions(parsing: "rs:fill:300:200/rs::::1")
        #expect(options.geometry.resizingType == .fill)
        #expect((options.geometry.width, options.geometry.height, options.geometry.enlarge) == (300, 200, true))
        #expect(try ProcessingOptions(parsing: "rs:fill::300").geometry.height == 300)
        #expect(try ProcessingOptions(parsing: "rs:fill::300").geometry.width == 0)
    }

    @Test func laterOptionsOverrideEarlierOnes() throws {
        let options = try ProcessingOptions(parsing: "w:100/rs:fit:300:200/w:400/rt:fill/q:50/q:60")
        #expect((options.geometry.width, options.geometry.height) == (400, 200))
        #expect(options.geometry.resizingType == .fill)
        #expect(options.quality == 60)
    }

    @Test func gravityKeepsOffsetsNotGivenAgain() throws {
        // imgproxy stores type and offsets apart: a later g:so keeps the earlier offsets.
        #expect(try ProcessingOptions(parsing: "g:no:10:20/g:so").geometry.gravity == .compass(.south, x: 10, y: 20))
        #expect(try ProcessingOptions(parsing: "g:fp:0.2:0.8").geometry.gravity == .focusPoint(x: 0.2, y: 0.8))
        #expect(try ProcessingOptions(parsing: "g:entropy").geometry.gravity == .entropy)
        #expect(try ProcessingOptions(parsing: "c:100:50:sm").geometry.cropGravity == .smart)
    }

    @Test func zoomPaddingAndBackgroundFollowImgproxy() throws {
        let zoom = try ProcessingOptions(parsing: "z:2").geometry
        #expect((zoom.zoomX, zoom.zoomY) == (2, 2))
        let zoomXY = try ProcessingOptions(parsing: "z:2:3").geometry
        #expect((zoomXY.zoomX, zoomXY.zoomY) == (2, 3))
        // CSS shorthand: one value for all sides, two for vertical/horizontal, three top/horizontal/bottom.
        #expect(try ProcessingOptions(parsing: "pd:5").geometry.padding == .init(top: 5, right: 5, bottom: 5, left: 5))
        #expect(try ProcessingOptions(parsing: "pd:5:7").geometry.padding == .init(top: 5, right: 7, bottom: 5, left: 7))
        #expect(try ProcessingOptions(parsing: "pd:5:7:9").geometry.padding == .init(top: 5, right: 7, bottom: 9, left: 7))
        #expect(try ProcessingOptions(parsing: "pd:1:2:3:4").geometry.padding == .init(top: 1, right: 2, bottom: 3, left: 4))
        #expect(try ProcessingOptions(parsing: "bg:10:20:30").background == RGBColor(red: 10, green: 20, blue: 30))
        #expect(try ProcessingOptions(parsing: "bg:FF8000").background == RGBColor(red: 255, green: 128, blue: 0))
        #expect(try ProcessingOptions(parsing: "bg:f80").background == RGBColor(red: 255, green: 136, blue: 0))
        #expect(try ProcessingOptions(parsing: "bg:f80/bg:").background == nil)
        #expect(try ProcessingOptions(parsing: "rot:-90").geometry.rotate == 270)
    }

    @Test func handlingOptionsAreRead() throws {
        let options = try ProcessingOptions(parsing: "cb:v2/exp:1700000000/fn:my%20cat/att:true/raw:1/skp:gif:png/fq:avif:50:jpg:90")
        #expect(options.cacheBuster == "v2")
        #expect(options.expires == 1_700_000_000)
        #expect(options.filename == "my cat")
        #expect(options.returnAttachment && options.raw)
        #expect(options.skipProcessing == [.gif, .png])
        #expect(options.formatQuality == [.avif: 50, .jpeg: 90])
        #expect(try ProcessingOptions(parsing: "fn:bXkgY2F0LmpwZw:1").filename == "my cat.jpg")
        // Go's ParseBool: unknown spellings are false, as imgproxy reads them.
        #expect(try ProcessingOptions(parsing: "el:yes").geometry.enlarge == false)
    }

    @Test func expiresIsCheckedAgainstTheClockGiven() throws {
        let options = try ProcessingOptions(parsing: "exp:1000")
        #expect(throws: ProcessingError.expired(at: 1000)) { try options.checkNotExpired(now: 1001) }
        try options.checkNotExpired(now: 1000)
        try ProcessingOptions(parsing: "exp:0").checkNotExpired(now: 5000)
    }

    @Test func errorsNameWhatToChange() throws {
        #expect(throws: ProcessingError.unknownOption("wdth")) { try ProcessingOptions(parsing: "wdth:300") }
        #expect(throws: ProcessingError.badArgument(option: "w", argument: "abc", expected: "a whole number ≥ 0")) {
            try ProcessingOptions(parsing: "w:abc")
        }
        #expect(throws: ProcessingError.badArgument(option: "rt", argument: "stretch", expected: "one of fit, fill, fill-down, force, auto")) {
            try ProcessingOptions(parsing: "rt:stretch")
        }
        for bad in ["h:-1", "dpr:0", "z:0", "q:101", "rot:45", "bg:12:300:0", "bg:ggg", "g:up", "g:fp:1.5:0.5",
                    "g:fp:0.5", "g:sm:1", "ex:1:sm", "f:jp2", "fq:webp", "skp:jp2", "w:1:2", "rs:a:1:2:3:4:5:6:7:8",
                    "fn:%%%:1", "bl:-1", "mb:x"] {
            #expect(throws: ProcessingError.self, "\(bad)") { try ProcessingOptions(parsing: bad) }
        }
        for unsupported in ["wmt:abc", "watermark_url:abc", "wms:0.5", "vts:5", "ra:lanczos3", "ush:auto",
                            "hs:sha256", "bga:0.5", "page:2", "aq:dssim"] {
            let name = String(unsupported.prefix { $0 != ":" })
            #expect(throws: ProcessingError.notSupported(option: name)) { try ProcessingOptions(parsing: unsupported) }
        }
        #expect(throws: ProcessingError.notSupported(option: "g:obj")) { try ProcessingOptions(parsing: "g:obj:face") }
        let message = ProcessingError.badArgument(option: "w", argument: "abc", expected: "a whole number ≥ 0").description
        #expect(message.contains("w") && message.contains("abc"))
        #expect(ProcessingError.unknownOption("wdth").description.contains("wdth"))
        #expect(ProcessingError.notSupported(option: "wm").description.contains("not supported"))
    }
}
