// Seeded mutation fuzzer for ImageDecode. Every iteration's input is a pure function of
// (seed, iteration), so any crash can be replayed with `--replay N`.
//
//   thumbcache-fuzz [--seed S] [--seconds T] [--max-size BYTES] [--only jpeg,png,webp,gif,avif,heic,jxl,tiff,bmp,ico,svg] [--replay N] SEED_DIR...
// (`--only` takes any readable format by any of its names, `ImageFormat(name:)`.)
import Foundation
import ImageDecode
import SeededRandom

/// Values that tend to hit edge cases in length and dimension fields.
let interestingBytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x10, 0x08, 0x0C, 0x03]

func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = seed
    for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1:  // bit flip
            bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
        case 2:  // truncation
            bytes.removeSubrange(at...)
        case 3:  // insert random bytes
            bytes.insert(contentsOf: (0..<Int.random(in: 1...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
        case 4:  // delete a run
            bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)))
        case 5:  // header field tweak: the first 600 bytes hold IHDR / SOF / DHT / DQT / EXIF
            let head = Int.random(in: 0..<min(bytes.count, 600), using: &rng)
            bytes[head] = interestingBytes.randomElement(using: &rng)!
        case 6:  // duplicate a block (repeated chunks / markers)
            let end = min(bytes.count, at + Int.random(in: 1...256, using: &rng))
            bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
        default:  // random byte
            bytes[at] = UInt8.random(in: 0...255, using: &rng)
        }
    }
    return bytes
}

/// Unbuffered, so progress is visible in a log while the run is going.
extension Result where Failure == ImageDecodeError {
    /// "ok", or the error's case name, for the outcome counts.
    var kind: String {
        guard case .failure(let error) = self else { return "ok" }
        return error.caseName
    }
}

func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

var seed: UInt64 = 1
var seconds = 600.0
var maxSize = 300_000
var replay: Int?
/// Seed files of these formats only (by signature), so each decoder can get a run of its own.
var formats = Set(ImageFormat.allCases)
var directories: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seed": seed = UInt64(arguments.popFirst()!)!
    case "--seconds": seconds = Double(arguments.popFirst()!)!
    case "--max-size": maxSize = Int(arguments.popFirst()!)!
    case "--replay": replay = Int(arguments.popFirst()!)!
    case "--only": formats = Set(arguments.popFirst()!.split(separator: ",").map { ImageFormat(name: $0)! })
    default: directories.append(argument)
    }
}

/// Every readable format's extensions (and AVIF sequences'): a format gaining a decoder gains its seeds.
let seedSuffixes = ImageFormat.decodable.flatMap(\.fileExtensions).map { "." + $0 } + [".avifs"]
var seeds: [[UInt8]] = []
for directory in directories {
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let name = enumerator?.nextObject() as? String {
        guard seedSuffixes.contains(where: name.lowercased().hasSuffix) else { continue }
        if let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= maxSize,
           let format = ImageFormat.sniff(data), formats.contains(format) {
            seeds.append([UInt8](data))
        }
    }
}
seeds.sort { $0.lexicographicallyPrecedes($1) }  // directory order must not change replays
guard !seeds.isEmpty else { fatalError("no seed files (\(formats.map(\.rawValue).sorted())) found in \(directories)") }
report("fuzz: \(seeds.count) seed files (\(formats.map(\.rawValue).sorted().joined(separator: ","))), seed \(seed), \(seconds) s")

let thumbnailer = Thumbnailer()
// Every input is also decoded from a file (`EncodedImage.file`): the outcome must match.
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-fuzz-\(getpid()).img").path
defer { unlink(scratch) }
var outcomes: [String: Int] = [:]
var mismatch = false
let started = Date()
var iteration = replay ?? 0
while true {
    var rng = SplitMix64(seed: seed &* 0x1000_0000_01B3 ^ UInt64(iteration))
    let input = mutate(seeds[Int.random(in: 0..<seeds.count, using: &rng)], &rng)
    let request = ThumbnailRequest(size: Int.random(in: 1...300, using: &rng),
                                   fit: Bool.random(using: &rng) ? .contain : .cover,
                                   format: ([nil, nil] + ImageFormat.encodable).randomElement(using: &rng)!,
                                   maxPixels: 4_000_000)
    let begin = Date()
    let fromMemory = Result { () throws(ImageDecodeError) in try thumbnailer.makeThumbnail(from: Data(input), request).data }
    _ = FileManager.default.createFile(atPath: scratch, contents: Data(input))
    let fromFile = Result { () throws(ImageDecodeError) in try thumbnailer.makeThumbnail(from: .file(scratch), request).data }
    // Both sources feed libjpeg and libpng the same chunks, so the outcomes must be equal: the same thumbnail
    // bytes, or the same error. For an error the case must match, not its wording: libtiff words one fault
    // differently for a stream it can map (bytes) and one it reads in pieces (a file).
    let same = switch (fromMemory, fromFile) {
    case (.success(let fromBytes), .success(let fromPath)): fromBytes == fromPath
    default: fromMemory.kind == fromFile.kind
    }
    if !same {
        // Kept for a look with other tools (the scratch file is removed on exit).
        let kept = "thumbcache-fuzz-mismatch-\(seed)-\(iteration).img"
        _ = FileManager.default.createFile(atPath: kept, contents: Data(input))
        report("fuzz: memory and file decodes differ at iteration \(iteration): \(fromMemory) vs \(fromFile); input kept as \(kept)")
        mismatch = true
        break
    }
    // A successful thumbnail must itself decode.
    let checked = fromMemory.flatMap { thumbnail in Result { () throws(ImageDecodeError) in try ImageDecoder.decode(thumbnail) } }
    outcomes[checked.kind, default: 0] += 1
    // An animated GIF or WebP also goes through every frame (`renderAnimation`) and back out as GIF, whose frames
    // must be read again.
    if let info = try? ImageDecoder.probe(Data(input)), info.isAnimated {
        let plan = ProcessingPlan(sourceWidth: info.width, sourceHeight: info.height,
                                  geometry: { var g = GeometryOptions(); g.width = request.size; g.height = request.size; return g }())
        let limits = RenderLimits(maxPixels: 4_000_000, maxDecodeMemory: 256 << 20, maxAnimationFrames: 16)
        let animated = Result { () throws(ImageDecodeError) in
            let thumbnail = try EncodeSettings(format: .gif).answerAnimation(sourceInfo: info) { (writers) throws(ImageDecodeError) in
                try PlanRenderer().renderAnimation(from: .data(Data(input)), plan: plan, limits: limits, into: writers)
            }
            return try ImageDecoder.probe(thumbnail.data).frameCount == thumbnail.frames ? thumbnail.data : Data()
        }
        if case .success(let gif) = animated, gif.isEmpty {
            report("fuzz: an animation's GIF lost frames at iteration \(iteration)")
            mismatch = true
            break
        }
        outcomes["animation " + animated.kind, default: 0] += 1
    }
    if Date().timeIntervalSince(begin) > 5 { report("fuzz: slow input at iteration \(iteration)") }
    iteration += 1
    if replay != nil { break }
    if iteration % 20_000 == 0 || Date().timeIntervalSince(started) > seconds {
        report("fuzz: \(iteration) iterations, \(Int(Date().timeIntervalSince(started))) s, outcomes \(outcomes.sorted { $0.key < $1.key })")
        if Date().timeIntervalSince(started) > seconds { break }
    }
}
if mismatch { exit(1) }
report("fuzz: done without crashes")
