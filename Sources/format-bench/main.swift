// Encoder benchmark for scripts/bench-formats.sh: for each photo, the 256 px thumbnail (our decode and
// resize, sRGB, upright) is written as PNG, then encoded as JPEG q80 and as WebP and AVIF over a range of
// qualities. Prints one TSV line per encoding: file, format, quality, bytes, median encode ms (of RUNS).
//
//   format-bench OUT_DIR [--size 256] [--runs 5] FILE...
import Foundation
import ImageDecode

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: format-bench OUT_DIR [--size N] [--runs N] FILE...\n".utf8))
    exit(64)
}
let outDirectory = arguments.removeFirst()
var size = 256, runs = 5
var files: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--size": size = Int(arguments.removeFirst())!
    case "--runs": runs = Int(arguments.removeFirst())!
    default: files.append(argument)
    }
}

let qualities = [30, 40, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95]
let thumbnailer = Thumbnailer()
print("file\tformat\tquality\tbytes\tms")
for file in files {
    let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
    let reference = try thumbnailer.makeThumbnail(from: .file(file), ThumbnailRequest(size: size, format: .png))
    try reference.data.write(to: URL(fileURLWithPath: "\(outDirectory)/\(name).ref.png"))
    let image = try ImageDecoder.decode(reference.data).flattened()
    func measure(_ format: ImageFormat, _ quality: Int, runs: Int) throws {
        var times: [Double] = []
        var data = Data()
        for _ in 0..<runs {
            let start = ContinuousClock.now
            data = try ImageEncoder.encode(image, as: format, quality: quality)
            times.append((ContinuousClock.now - start) / .milliseconds(1))
        }
        try data.write(to: URL(fileURLWithPath: "\(outDirectory)/\(name).\(format.rawValue).\(quality).\(format.fileExtension)"))
        print("\(name)\t\(format.rawValue)\t\(quality)\t\(data.count)\t\(String(format: "%.2f", times.sorted()[times.count / 2]))")
    }
    try measure(.jpeg, 80, runs: runs)
    for quality in qualities {
        try measure(.webp, quality, runs: quality == 80 ? runs : 1)
        try measure(.avif, quality, runs: quality == 80 ? runs : 1)
    }
}
