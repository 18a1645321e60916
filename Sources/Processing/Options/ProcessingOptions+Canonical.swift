/// One spelling per image: the key a rendered variant is stored under.
extension ProcessingOptions {
    /// Short names in a fixed order, meta-options expanded, defaults dropped, and the options that do not
    /// change the pixels (`cb`, `exp`, `fn`, `att`, `pr` once applied) left out. It is itself a valid
    /// option list: parsing it gives options with the same canonical form. Empty for the defaults.
    public var canonical: String {
        let g = geometry
        var parts = [String]()
        func add(_ name: OptionName, _ arguments: String...) { parts.append(([name.shortName] + arguments).joined(separator: ":")) }

        if g.resizingType != .fit { add(.resizingType, g.resizingType.rawValue) }
        if g.width != 0 { add(.width, String(g.width)) }
        if g.height != 0 { add(.height, String(g.height)) }
        if g.minWidth != 0 { add(.minWidth, String(g.minWidth)) }
        if g.minHeight != 0 { add(.minHeight, String(g.minHeight)) }
        if g.zoomX != 1 || g.zoomY != 1 {
            if g.zoomX == g.zoomY { add(.zoom, Self.number(g.zoomX)) } else { add(.zoom, Self.number(g.zoomX), Self.number(g.zoomY)) }
        }
        if g.dpr != 1 { add(.dpr, Self.number(g.dpr)) }
        if g.enlarge { add(.enlarge, "1") }
        if g.extend { add(.extend, ["1"] + Self.gravity(g.extendGravity, droppingCenter: true)) }
        if g.extendAspectRatio { add(.extendAspectRatio, ["1"] + Self.gravity(g.extendAspectRatioGravity, droppingCenter: true)) }
        if g.gravity != .center { add(.gravity, Self.gravity(g.gravity)) }
        if g.cropWidth != 0 || g.cropHeight != 0 {
            // A crop gravity equal to the main one means the same as none.
            let own = g.cropGravity.flatMap { $0 == g.gravity ? nil : Self.gravity($0) } ?? []
            add(.crop, [Self.number(g.cropWidth), Self.number(g.cropHeight)] + own)
        }
        if !g.padding.isZero {
            add(.padding, [g.padding.top, g.padding.right, g.padding.bottom, g.padding.left].map(String.init))
        }
        if !autoRotate { add(.autoRotate, "0") }
        if g.rotate != 0 { add(.rotate, String(g.rotate)) }
        if g.flipHorizontal || g.flipVertical { add(.flip, g.flipHorizontal ? "1" : "0", g.flipVertical ? "1" : "0") }
        if let trim {
            add(.trim, Self.number(trim.threshold), trim.color?.hex ?? "", trim.equalHorizontal ? "1" : "0",
                trim.equalVertical ? "1" : "0")
        }
        if let background { add(.background, background.hex) }
        if blur > 0 { add(.blur, Self.number(blur)) }
        if sharpen > 0 { add(.sharpen, Self.number(sharpen)) }
        if pixelate > 1 { add(.pixelate, String(pixelate)) }
        if watermark.isVisible {
            let w = watermark
            let position: String
            switch w.position {
            case .replicate: position = "re"
            case .compass(let point): position = point.rawValue
            }
            add(.watermark, Self.number(w.opacity), position, Self.number(w.x), Self.number(w.y), w.scale > 0 ? Self.number(w.scale) : "")
        }
        if quality > 0 { add(.quality, String(quality)) }
        // `q` overrides every `fq` (`quality(for:default:)`): with it, they change nothing and would only store the
        // same image under another name.
        let qualities = quality > 0 ? [] : formatQuality.filter { $0.value > 0 }.sorted { $0.key.rawValue < $1.key.rawValue }
        if !qualities.isEmpty { add(.formatQuality, qualities.flatMap { [$0.key.rawValue, String($0.value)] }) }
        if maxBytes > 0 { add(.maxBytes, String(maxBytes)) }
        if let format { add(.format, format.rawValue) }
        if let stripMetadata { add(.stripMetadata, stripMetadata ? "1" : "0") }
        if let keepCopyright { add(.keepCopyright, keepCopyright ? "1" : "0") }
        if let stripColorProfile { add(.stripColorProfile, stripColorProfile ? "1" : "0") }
        if !skipProcessing.isEmpty { add(.skipProcessing, skipProcessing.map(\.rawValue).sorted()) }
        if raw { add(.raw, "1") }
        if disableAnimation { add(.disableAnimation, "1") }
        // The limits change what is answered (a refusal, a smaller image), so a variant made under one is not another's.
        if let limit = g.maxResultDimension, limit > 0 { add(.maxResultDimension, String(limit)) }
        if let maxSourceResolution { add(.maxSourceResolution, Self.megapixels(maxSourceResolution)) }
        if let maxSourceFileSize, maxSourceFileSize > 0 { add(.maxSourceFileSize, String(maxSourceFileSize)) }
        if let maxAnimationFrames { add(.maxAnimationFrames, String(maxAnimationFrames)) }
        if let maxAnimationFrameResolution, maxAnimationFrameResolution > 0 {
            add(.maxAnimationFrameResolution, Self.megapixels(maxAnimationFrameResolution))
        }
        return parts.joined(separator: "/")

        func add(_ name: OptionName, _ arguments: [String]) { parts.append(([name.shortName] + arguments).joined(separator: ":")) }
    }

    /// Whole numbers without a decimal point, others in Swift's shortest round-tripping form.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Pixels as megapixels with at most six decimals, exactly (`0.00001` for 10).
    static func megapixels(_ pixels: Int) -> String {
        let fraction = String(pixels % 1_000_000)
        let decimals = String(repeating: "0", count: 6 - fraction.count) + fraction
        let trimmed = decimals.reversed().drop { $0 == "0" }.reversed()
        return "\(pixels / 1_000_000)" + (trimmed.isEmpty ? "" : "." + String(trimmed))
    }

    static func gravity(_ gravity: Gravity, droppingCenter: Bool = false) -> [String] {
        switch gravity {
        case let .compass(point, x, y):
            if x == 0 && y == 0 { return droppingCenter && point == .center ? [] : [point.rawValue] }
            return [point.rawValue, number(x), number(y)]
        case let .focusPoint(x, y): return ["fp", number(x), number(y)]
        case .smart: return ["sm"]
        case .entropy: return ["entropy"]
        }
    }
}
