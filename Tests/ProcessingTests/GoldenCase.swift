import Foundation
import Processing

/// One golden rendition (issue 30, "Pixels do not move"): an input rendered one way, stored as lossless PNG
/// under Golden/, so merging the two renderers can be checked against what today's build draws.
struct GoldenCase: Sendable, CustomStringConvertible {
    /// Where an input lives: committed beside ImageDecodeTests (always checked) or in the shared corpus (CI only).
    enum Origin: String, Sendable { case fixtures, corpus }

    /// A rendering path the pipeline uses: the short grammar's ladder thumbnail, or imgproxy processing options.
    enum Rendition: Sendable {
        case thumbnail(String, FitMode, size: Int)
        case options(String, String)

        var name: String {
            switch self {
            case .thumbnail(let name, _, _), .options(let name, _): name
            }
        }
    }

    let origin: Origin
    let input: String
    let rendition: Rendition

    var description: String { "\(origin.rawValue)/\(input) \(rendition.name)" }

    /// `Golden/<origin>/<input path, / and . as _>--<rendition>.png`: predictable, flat per origin.
    var goldenPath: String {
        let flat = input.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: ".", with: "_")
        return "\(origin.rawValue)/\(flat)--\(rendition.name).png"
    }

    /// Every output stays within 128 px a side so the committed set stays small. The option sets cover what
    /// issue 30 names: smart-gravity fill, dpr, blur and sharpen, padding with a background, extend with a
    /// gravity and rotation.
    static let renditions: [Rendition] = [
        .thumbnail("contain96", .contain, size: 96),
        .thumbnail("cover96", .cover, size: 96),
        .options("fill-smart", "rs:fill:120:80/g:sm"),
        .options("dpr2", "rs:fit:48:48/dpr:2"),
        .options("blur-sharpen", "rs:fit:100:100/bl:2/sh:1"),
        .options("pad-bg", "rs:fit:90:90/pd:10/bg:ff0000"),
        .options("rotate-extend", "rs:fit:96:96/rot:90/ex:1/g:soea"),
    ]

    /// Committed with the repository (Tests/ImageDecodeTests/Fixtures), so a clone without the corpus still checks these.
    static let fixtureInputs = [
        "testorig.jpg", "rocket.jpg", "pil_sample_cmyk.jpg", "orientation/Landscape_6.jpg", "webp/lossy-alpha.webp",
        "gif/transparent.gif", "avif/icc-444.avif", "pngsuite/basn6a08.png",
    ]

    /// Fixed, by path in ../shared/corpus (rows MANIFEST.tsv says decode; permissive licences; small files first):
    /// every format and variant issue 30 names, and all eight EXIF orientations.
    static let corpusInputs = [
        // JPEG: baseline, progressive, greyscale, CMYK.
        "jpeg/tower.jpg", "jpeg/tower_progressive.jpg", "jpeg/tower_grayscale.jpg", "jpeg/progressive3.jpg",
        "jpeg/jpg-cmyk-2.jpg", "jpeg/retina.jpg",
        // EXIF orientations 1-8.
        "exif-orientation/Landscape_1.jpg", "exif-orientation/Landscape_2.jpg", "exif-orientation/Landscape_3.jpg",
        "exif-orientation/Landscape_4.jpg", "exif-orientation/Landscape_5.jpg", "exif-orientation/Landscape_6.jpg",
        "exif-orientation/Landscape_7.jpg", "exif-orientation/Landscape_8.jpg",
        // PNG: 16-bit, palette, tRNS transparency, 16-bit with ICC, RGB with ICC, greyscale.
        "pngsuite/basn2c16.png", "pngsuite/basn3p08.png", "pngsuite/tbrn2c08.png", "libjpeg-turbo/monkey16.png",
        "png/chelsea.png", "png/camera.png",
        // WebP: lossy, lossless with alpha, lossy with EXIF orientation.
        "webp/pillow/hopper.webp", "webp/libwebp-test-data/lossless4.webp", "webp/libwebp-test-data/test.webp",
        "webp/pillow/hopper_orientation_6.webp",
        // GIF: static, interlaced, transparent first frame.
        "gif/pillow/hopper.gif", "gif/image-gif/interlaced.gif", "gif/pillow/first_frame_transparency.gif",
        // AVIF: grid, imir, irot with alpha, alpha, orientation in XMP (the ICC one is among the fixtures).
        "avif/libavif/sofa_grid1x5_420.avif", "avif/pillow/rot0mir1.avif", "avif/libavif/abc_color_irot_alpha_irot.avif",
        "avif/libavif/color_grid_alpha_nogrid.avif", "avif/pillow/xmp_tags_orientation.avif",
    ]

    static func cases(_ origin: Origin) -> [GoldenCase] {
        (origin == .fixtures ? fixtureInputs : corpusInputs).flatMap { input in
            renditions.map { GoldenCase(origin: origin, input: input, rendition: $0) }
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageDecodeTests/Fixtures")
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// $THUMBCACHE_CORPUS or `<package>/../shared/corpus`, as ImageDecodeTests finds it; nil in a user's clone.
    static let corpus: URL? = {
        let package = fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [ProcessInfo.processInfo.environment["THUMBCACHE_CORPUS"].map { URL(fileURLWithPath: $0) },
                package.deletingLastPathComponent().appendingPathComponent("shared/corpus")]
            .compactMap { $0 }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
    }()

    var inputPath: String? {
        switch origin {
        case .fixtures: Self.fixtures.appendingPathComponent(input).path
        case .corpus: Self.corpus?.appendingPathComponent(input).path
        }
    }

    /// Today's pixels through the entry points the pipeline uses: `Thumbnailer` for the ladder, and for options
    /// what `thumbcache thumbnail --options` and serve do (probe, plan with the same cap, render), always as PNG.
    func render() throws -> Data {
        guard let path = inputPath else { throw GoldenError("no input for \(self)") }
        switch rendition {
        case .thumbnail(_, let fit, let size):
            return try Thumbnailer().makeThumbnail(from: .file(path), ThumbnailRequest(size: size, fit: fit, format: .png)).data
        case .options(_, let list):
            let options = try ProcessingOptions(parsing: list)
            let info = try ImageDecoder.probe(.file(path))
            let plan = try options.plan(for: info, maxResultSide: ThumbnailRequest.maxSize)
            // The CLI's default limits and sRGB conversion are RenderLimits' and render's defaults.
            return try options.render(.file(path), plan: plan, sourceInfo: info,
                                      format: options.outputFormat(for: FormatRequest(named: .png), source: info, defaults: .preferred(.imgproxy),
                                                                   limits: RenderLimits()).format,
                                      defaultQuality: { ImageEncoder.defaultQuality(for: $0) }).data
        }
    }
}

/// A golden case that could not be rendered or read.
struct GoldenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
