// Smart-crop benchmark for scripts/bench-smartcrop.sh. For each photo, the SIZE×SIZE `cover` thumbnail is
// written three ways as PNG: centre crop (today's default), attention and entropy (`ThumbnailRequest.smartCrop`).
// Prints one TSV line per photo: the resized (uncropped) size, the crop origins the detectors chose on it, and
// median milliseconds (of RUNS) of the whole cover thumbnail (JPEG out, as served) without and with attention,
// and of the attention detector alone on the resized image.
//
//   smartcrop-bench OUT_DIR [--size 256] [--runs 9] FILE...
import Foundation
import ImageDecode

var arguments = CommandLine.arguments.dropFirst()
var options = ["--size": 256, "--runs": 9]
var files: [String] = []
guard let outDirectory = arguments.popFirst() else {
    FileHandle.standardError.write(Data("usage: smartcrop-bench OUT_DIR [--size N] [--runs N] FILE...\n".utf8))
    exit(64)
}
while let argument = arguments.popFirst() {
    if options[argument] != nil, let value = arguments.popFirst().flatMap({ Int($0) }) {
        options[argument] = value
    } else {
        files.append(argument)
    }
}
let size = options["--size"]!, runs = options["--runs"]!

func medianMilliseconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        times.append((ContinuousClock.now - start) / .milliseconds(1))
    }
    return times.sorted()[times.count / 2]
}

let thumbnailer = Thumbnailer()
print("file\tresized_w\tresized_h\tattention_x\tattention_y\tentropy_x\tentropy_y\tcover_ms\tattention_ms\tdetector_ms")
for file in files {
    let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
    let info = try thumbnailer.probe(.file(file))
    // The image `cover` resizes to before it crops: `contain` with the longer side that makes the shorter one SIZE.
    let (width, height) = (Double(info.orientedWidth), Double(info.orientedHeight))
    let scale = min(max(Double(size) / width, Double(size) / height), 1)
    let longest = Int((max(width, height) * scale).rounded())
    let resized = try ImageDecoder.decode(
        thumbnailer.makeThumbnail(from: .file(file), ThumbnailRequest(size: longest, format: .png)).data)
    let crop = (min(size, resized.width), min(size, resized.height))
    let attention = SmartCrop.attention(in: resized, width: crop.0, height: crop.1)
    let entropy = SmartCrop.entropy(in: resized, width: crop.0, height: crop.1)
    for strategy in [nil, SmartCrop.Strategy.attention, .entropy] {
        let request = ThumbnailRequest(size: size, fit: .cover, format: .png, smartCrop: strategy)
        let made = try thumbnailer.makeThumbnail(from: .file(file), request)
        try made.data.write(to: URL(fileURLWithPath: "\(outDirectory)/\(name).\(strategy?.rawValue ?? "centre").png"))
        // The detector's origin on the resized image must be the window the thumbnailer cut.
        if let strategy {
            let origin = strategy == .attention ? attention : entropy
            guard try ImageDecoder.decode(made.data) == resized.cropped(x: origin.x, y: origin.y, width: crop.0, height: crop.1) else {
                FileHandle.standardError.write(Data("\(name): \(strategy) thumbnail is not the detector's window\n".utf8))
                exit(1)
            }
        }
    }
    let cover = try medianMilliseconds(runs: runs) {
        _ = try thumbnailer.makeThumbnail(from: .file(file), ThumbnailRequest(size: size, fit: .cover))
    }
    let smart = try medianMilliseconds(runs: runs) {
        _ = try thumbnailer.makeThumbnail(from: .file(file), ThumbnailRequest(size: size, fit: .cover, smartCrop: .attention))
    }
    let detector = medianMilliseconds(runs: runs) { _ = SmartCrop.attention(in: resized, width: crop.0, height: crop.1) }
    print([name, "\(resized.width)", "\(resized.height)", "\(attention.x)", "\(attention.y)", "\(entropy.x)", "\(entropy.y)",
           String(format: "%.2f", cover), String(format: "%.2f", smart), String(format: "%.3f", detector)].joined(separator: "\t"))
}
