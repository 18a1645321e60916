/// imgproxy's option parser (options/parser/apply.go, parse.go): later options override earlier ones,
/// meta-options set several at once, an empty argument keeps what is set.
extension ProcessingOptions {
    /// Parses `name:arg:arg` segments in order, after the `default` preset when there is one.
    public init<Segment: StringProtocol>(segments: [Segment], presets: Presets = Presets()) throws(ProcessingError) {
        self.init()
        try applyDefaultPreset(presets)
        for segment in segments { try apply(segment: String(segment), presets: presets) }
    }

    /// Parses a `/`-separated option list such as `rs:fill:300:200/g:sm` (a preset's body, a CLI argument).
    public init(parsing list: String, presets: Presets = Presets()) throws(ProcessingError) {
        try self.init(segments: list.split(separator: "/"), presets: presets)
    }

    mutating func applyDefaultPreset(_ presets: Presets) throws(ProcessingError) {
        if presets.contains(Presets.defaultName) {
            try applyPresets([Presets.defaultName], presets: presets)
        }
    }

    /// One `name:arg:arg` segment.
    public mutating func apply(segment: String, presets: Presets = Presets()) throws(ProcessingError) {
        // By bytes, as imgproxy splits: by Characters it was a third of the CPU of refusing a 60 KB option.
        let parts = segment.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { String(Substring($0)) }
        try apply(name: parts[0], arguments: Array(parts.dropFirst()), presets: presets)
    }

    mutating func apply(name: String, arguments: [String], presets: Presets) throws(ProcessingError) {
        guard let option = OptionName(spelling: name) else {
            throw OptionName.unsupported.contains(name) ? .notSupported(option: name) : .unknownOption(name)
        }
        let args = OptionArguments(option: name, values: arguments)
        switch option {
        case .resize:
            try args.atMost(8)
            try applyResizingType(args)
            try applySize(args.dropping(1))
        case .size: try applySize(args)
        case .resizingType:
            try args.atMost(1)
            try applyResizingType(args)
        case .width: geometry.width = try args.single().count(0) ?? geometry.width
        case .height: geometry.height = try args.single().count(0) ?? geometry.height
        case .minWidth: geometry.minWidth = try args.single().count(0) ?? geometry.minWidth
        case .minHeight: geometry.minHeight = try args.single().count(0) ?? geometry.minHeight
        case .zoom:
            try args.atMost(2)
            let x = try args.number(0, positive: true)
            geometry.zoomX = x ?? geometry.zoomX
            // One value zooms both axes.
            geometry.zoomY = try args.number(1, positive: true) ?? (args.count < 2 ? x : nil) ?? geometry.zoomY
        case .dpr: geometry.dpr = try args.single().number(0, positive: true) ?? geometry.dpr
        case .enlarge: geometry.enlarge = try args.single().flag(0) ?? geometry.enlarge
        case .extend:
            try applyExtend(args, enabled: &geometry.extend, gravity: &geometry.extendGravity)
        case .extendAspectRatio:
            try applyExtend(args, enabled: &geometry.extendAspectRatio, gravity: &geometry.extendAspectRatioGravity)
        case .gravity: geometry.gravity = try GravityParser.parse(args, current: geometry.gravity, use: .crop)
        case .crop:
            try args.atMost(5)
            geometry.cropWidth = try args.number(0) ?? geometry.cropWidth
            geometry.cropHeight = try args.number(1) ?? geometry.cropHeight
            if args.count > 2 {
                geometry.cropGravity = try GravityParser.parse(args.dropping(2), current: geometry.cropGravity ?? Self.unsetCropGravity,
                                                               use: .crop)
            }
        case .padding: try applyPadding(args)
        case .autoRotate: autoRotate = try args.single().flag(0) ?? autoRotate
        case .rotate:
            if let angle = try args.single().integer(0) {
                guard angle % 90 == 0 else { throw args.bad(0, "a multiple of 90 degrees") }
                geometry.rotate = (angle % 360 + 360) % 360
            }
        case .background: try applyBackground(args)
        case .blur: blur = try args.single().sigma(0) ?? blur
        case .sharpen: sharpen = try args.single().sigma(0) ?? sharpen
        case .pixelate: pixelate = try args.single().count(0) ?? pixelate
        case .quality: quality = try args.single().quality(0) ?? quality
        case .formatQuality: try applyFormatQuality(args)
        case .maxBytes: maxBytes = try args.single().count(0) ?? maxBytes
        case .format: format = try args.single().format(0) ?? format
        case .stripMetadata: stripMetadata = try args.single().flag(0) ?? stripMetadata
        case .keepCopyright: keepCopyright = try args.single().flag(0) ?? keepCopyright
        case .stripColorProfile: stripColorProfile = try args.single().flag(0) ?? stripColorProfile
        case .skipProcessing:
            for index in 0..<args.count {
                if let format = try args.format(index, readable: true) { skipProcessing.insert(format) }
            }
        case .raw: raw = try args.single().flag(0) ?? raw
        case .disableAnimation: disableAnimation = try args.single().flag(0) ?? disableAnimation
        case .cacheBuster:
            try args.atMost(1)
            cacheBuster = args.isGiven(0) ? args.values[0] : nil
        case .expires: expires = try args.single().integer(0).map(Int64.init) ?? expires
        case .filename: try applyFilename(args)
        case .returnAttachment: returnAttachment = try args.single().flag(0) ?? returnAttachment
        case .preset: try applyPresets(arguments.filter { !$0.isEmpty }, presets: presets)
        case .maxResultDimension: geometry.maxResultDimension = try args.single().integer(0).map { max(0, $0) } ?? geometry.maxResultDimension
        case .maxSourceResolution: maxSourceResolution = try args.single().megapixels(0) ?? maxSourceResolution
        case .maxSourceFileSize: maxSourceFileSize = try args.single().count(0) ?? maxSourceFileSize
        case .maxAnimationFrames: maxAnimationFrames = try args.single().positiveCount(0) ?? maxAnimationFrames
        case .maxAnimationFrameResolution:
            maxAnimationFrameResolution = try args.single().megapixels(0) ?? maxAnimationFrameResolution
        case .flip:
            try args.atMost(2)
            geometry.flipHorizontal = args.flag(0) ?? geometry.flipHorizontal
            geometry.flipVertical = args.flag(1) ?? geometry.flipVertical
        case .trim: try applyTrim(args)
        case .watermark: try applyWatermark(args)
        }
    }

    /// `trim:threshold:color:equal_hor:equal_ver`; an empty threshold turns trimming off, an empty colour is the
    /// top-left pixel's (imgproxy's apply.go).
    private mutating func applyTrim(_ args: OptionArguments) throws(ProcessingError) {
        try args.atMost(4)
        var color: RGBColor?
        if args.isGiven(1) {
            guard let parsed = RGBColor(hex: args.values[1]) else { throw args.bad(1, "a hex colour such as ffffff") }
            color = parsed
        }
        let equalHorizontal = args.flag(2) ?? trim?.equalHorizontal ?? false
        let equalVertical = args.flag(3) ?? trim?.equalVertical ?? false
        guard let threshold = try args.number(0) else { trim = nil; return }
        trim = TrimOptions(threshold: threshold, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }

    /// `watermark:opacity:position:x_offset:y_offset:scale`: the opacity is required (0…1), the rest keeps what is
    /// set when empty. imgproxy accepts up to 7 arguments (the last two are its Pro edition's) and ignores the extra.
    private mutating func applyWatermark(_ args: OptionArguments) throws(ProcessingError) {
        try args.atMost(7)
        guard args.isGiven(0), let opacity = Double(args.values[0]), (0...1).contains(opacity) else {
            throw args.bad(0, "an opacity from 0 to 1")
        }
        watermark.opacity = opacity
        if args.isGiven(1) {
            if args.values[1] == "re" {
                watermark.position = .replicate
            } else if let point = Gravity.CompassPoint(rawValue: args.values[1]) {
                watermark.position = .compass(point)
            } else {
                throw args.bad(1, "one of ce, no, so, ea, we, noea, nowe, soea, sowe, re")
            }
        }
        for (index, keyPath) in [(2, \WatermarkOptions.x), (3, \WatermarkOptions.y)] where args.isGiven(index) {
            guard let value = Double(args.values[index]), value.isFinite else { throw args.bad(index, "a number") }
            watermark[keyPath: keyPath] = value
        }
        if let scale = try args.number(4, positive: true) {
            // imgproxy takes any scale; over 1 the watermark is larger than the result and mostly cut off, and its
            // pixels grow with the square of the scale (1e300 asked for terabytes), so it is refused.
            guard scale <= 1 else { throw args.bad(4, "a scale from 0 to 1 (a fraction of the result's size)") }
            watermark.scale = scale
        }
    }

    private mutating func applyResizingType(_ args: OptionArguments) throws(ProcessingError) {
        guard args.isGiven(0) else { return }
        guard let type = ResizingType(rawValue: args.values[0]) else {
            throw args.bad(0, "one of fit, fill, fill-down, force, auto")
        }
        geometry.resizingType = type
    }

    /// `size:width:height:enlarge:extend:gravity…`; empty arguments are skipped.
    private mutating func applySize(_ args: OptionArguments) throws(ProcessingError) {
        try args.atMost(7)
        geometry.width = try args.count(0) ?? geometry.width
        geometry.height = try args.count(1) ?? geometry.height
        geometry.enlarge = args.flag(2) ?? geometry.enlarge
        if args.isGiven(3) { try applyExtend(args.dropping(3), enabled: &geometry.extend, gravity: &geometry.extendGravity) }
    }

    private func applyExtend(_ args: OptionArguments, enabled: inout Bool, gravity: inout Gravity) throws(ProcessingError) {
        try args.atMost(4)
        enabled = args.flag(0) ?? enabled
        if args.count > 1 { gravity = try GravityParser.parse(args.dropping(1), current: gravity, use: .extend) }
    }

    /// CSS order; a missing side copies its opposite (right from top, bottom from top, left from right).
    private mutating func applyPadding(_ args: OptionArguments) throws(ProcessingError) {
        try args.atMost(4)
        var padding = geometry.padding
        padding.top = try args.count(0) ?? padding.top
        padding.right = try args.count(1) ?? padding.top
        padding.bottom = try args.count(2) ?? padding.top
        padding.left = try args.count(3) ?? padding.right
        geometry.padding = padding
    }

    private mutating func applyBackground(_ args: OptionArguments) throws(ProcessingError) {
        switch args.count {
        case 1:
            guard args.isGiven(0) else { background = nil; return }
            guard let color = RGBColor(hex: args.values[0]) else { throw args.bad(0, "a hex colour such as ff8800") }
            background = color
        case 3:
            var bytes = [UInt8]()
            for index in 0..<3 {
                guard let byte = UInt8(args.values[index]) else { throw args.bad(index, "a number from 0 to 255") }
                bytes.append(byte)
            }
            background = RGBColor(red: bytes[0], green: bytes[1], blue: bytes[2])
        default:
            throw .badArgument(option: args.option, argument: args.values.joined(separator: ":"),
                               expected: "R:G:B or a hex colour")
        }
    }

    private mutating func applyFormatQuality(_ args: OptionArguments) throws(ProcessingError) {
        guard args.count % 2 == 0 else { throw args.bad(args.count - 1, "format:quality pairs") }
        for index in stride(from: 0, to: args.count, by: 2) {
            guard let format = try args.format(index) else { throw args.bad(index, "a format name") }
            formatQuality[format] = try args.quality(index + 1) ?? formatQuality[format]
        }
    }

    /// `filename:name[:encoded]`: encoded names are base64url (any name), plain ones percent-encoded; the name, as
    /// decoded, at most `maxFilenameBytes` (it is sent in `Content-Disposition`).
    private mutating func applyFilename(_ args: OptionArguments) throws(ProcessingError) {
        try args.atMost(2)
        guard args.isGiven(0) else { filename = nil; return }
        // A spelling decodes to at least a third of its bytes (`%XX` is one): a longer one is refused undecoded,
        // as decoding it was most of the cost of refusing a 60 KB name.
        let spelt = args.values[0].utf8.count
        guard spelt <= 3 * Self.maxFilenameBytes else { throw filenameTooLong(args, bytes: "at least \(spelt / 3)") }
        let name: String
        if args.flag(1) == true {
            guard let decoded = SourceCoding.base64URLText(args.values[0]) else { throw args.bad(0, "base64url text") }
            name = decoded
        } else {
            name = args.values[0].removingPercentEncoding ?? args.values[0]
        }
        guard name.utf8.count <= Self.maxFilenameBytes else { throw filenameTooLong(args, bytes: "\(name.utf8.count)") }
        filename = name
    }

    private func filenameTooLong(_ args: OptionArguments, bytes: String) -> ProcessingError {
        args.bad(0, "a name of at most \(Self.maxFilenameBytes) UTF-8 bytes once decoded (this one has \(bytes))")
    }

    /// Presets expand in place, each as expanded when loaded (`PresetExpansion`).
    mutating func applyPresets(_ names: [String], presets: Presets) throws(ProcessingError) {
        for name in names {
            guard let steps = presets.steps(of: name) else { throw .unknownPreset(name) }
            for step in steps {
                switch step {
                case let .used(preset): usedPresets.append(preset)
                case let .option(option): try apply(name: option.name, arguments: option.arguments, presets: presets)
                }
            }
        }
    }

    /// `--only-presets`: the options are presets alone, in imgproxy's form (the first segment is preset names,
    /// `thumb:hero`) or as `pr:`/`preset:` segments, and at least one is named: `/_/pr:/…` must not be the
    /// full-size image. Returns where the source starts.
    mutating func applyOnlyPresets(_ segments: [String], presets: Presets) throws(ProcessingError) -> Int {
        var names: [String] = []
        var sourceStart = 0
        if !Self.isPresetOption(segments[0]) {
            names = segments[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            sourceStart = 1
        } else {
            while sourceStart < segments.count, segments[sourceStart].contains(":") {
                guard Self.isPresetOption(segments[sourceStart]) else {
                    throw .onlyPresets(option: String(segments[sourceStart].prefix { $0 != ":" }))
                }
                names += segments[sourceStart].split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
                sourceStart += 1
            }
        }
        guard !names.isEmpty, !names.contains("") else { throw .noPreset }
        try applyPresets(names, presets: presets)
        return sourceStart
    }

    private static func isPresetOption(_ segment: String) -> Bool {
        segment.hasPrefix("pr:") || segment.hasPrefix("preset:")
    }

    /// A crop gravity given without offsets has none, whatever `g` has: imgproxy keeps the crop's gravity apart
    /// (`keys.CropGravity`), and a crop that reads only its own field keeps `PresetExpansion`'s rule exact.
    static let unsetCropGravity = Gravity.center
}
