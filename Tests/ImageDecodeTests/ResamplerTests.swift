import Foundation
import Testing
@testable import ImageDecode

@Suite struct ResamplerTests {
    @Test(arguments: [(3, [200, 100, 50] as [UInt8]), (4, [10, 220, 130, 77] as [UInt8])])
    func constantImageStaysConstant(channels: Int, colour: [UInt8]) {
        let source = Fixtures.image(width: 97, height: 61, channels: channels) { _, _ in colour }
        for (width, height) in [(13, 8), (97, 61), (200, 100), (1, 1)] {
            let result = Fixtures.resize(source, to: width, height)
            #expect(result.width == width && result.height == height)
            #expect(result.pixels == Array([[UInt8]](repeating: colour, count: width * height).joined()), "\(width)x\(height)")
        }
    }

    @Test func checkerboardAveragesToGrey() {
        let board = Fixtures.image(width: 256, height: 256, channels: 3) { x, y in
            (x + y) % 2 == 0 ? [255, 255, 255] : [0, 0, 0]
        }
        let result = Fixtures.resize(board, to: 32, 32)
        for value in result.pixels { #expect(abs(Int(value) - 128) <= 2) }
    }

    /// Opaque red next to fully transparent green: with premultiplied alpha the green can never
    /// show, so every partly transparent output pixel is still pure red.
    @Test func premultipliedAlphaAvoidsFringes() {
        let source = Fixtures.image(width: 64, height: 64, channels: 4) { x, _ in
            x < 32 ? [255, 0, 0, 255] : [0, 255, 0, 0]
        }
        let result = Fixtures.resize(source, to: 10, 10)
        var sawEdge = false
        for y in 0..<10 {
            for x in 0..<10 where result[x, y][3] > 0 {
                let pixel = result[x, y]
                #expect(pixel[0] >= 250 && pixel[1] <= 3, "(\(x),\(y)) = \(pixel)")
                if pixel[3] < 250 { sawEdge = true }
            }
        }
        #expect(sawEdge, "the test needs a partly transparent edge pixel")
    }

    @Test func weightsAreNormalizedAndCentred() {
        let filter = FilterWeights(sourceSize: 1000, resizedSize: 37)
        for i in 0..<filter.outputCount {
            let row = filter.weights[i * filter.taps..<i * filter.taps + filter.counts[i]]
            #expect(abs(row.reduce(0, +) - 1) < 1e-5)
            #expect(filter.starts[i] >= 0 && filter.starts[i] + filter.counts[i] <= 1000)
        }
        // Output pixel 18 of 37 is the exact centre: its weights are symmetric about source 499.5.
        let w = Array(filter.weights[18 * filter.taps..<18 * filter.taps + filter.counts[18]])
        #expect(zip(w, w.reversed()).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func cropWindowMatchesTheSameRegionOfAFullResize() {
        let source = Fixtures.image(width: 120, height: 80, channels: 3) { x, y in
            [UInt8(x * 2), UInt8(y * 3), UInt8((x * y) % 256)]
        }
        let full = Fixtures.resize(source, to: 60, 40)
        var resampler = Resampler(sourceWidth: 120, sourceHeight: 80, channels: 3, resizedWidth: 60, resizedHeight: 40,
                                  crop: (10, 5, 40, 30))
        source.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<80 { resampler.push(UnsafeBufferPointer(rebasing: pixels[y * 360..<(y + 1) * 360])) }
        }
        let cropped = resampler.finish()
        #expect(cropped.width == 40 && cropped.height == 30)
        for y in 0..<30 { for x in 0..<40 { #expect(cropped[x, y] == full[x + 10, y + 5]) } }
    }

    @Test func boxReducerAveragesBlocksIncludingShortEdges() {
        // 5x3 grey ramp, factor 2: blocks are 2x2, 2x2, 1x2 on the first row of blocks, then 2x1, 2x1, 1x1.
        let source: [UInt8] = [0, 10, 20, 30, 40,
                               50, 60, 70, 80, 90,
                               100, 110, 120, 130, 140]
        var reducer = BoxReducer(width: 5, height: 3, channels: 3, factor: 2)
        var rows: [[UInt8]] = []
        for y in 0..<3 {
            let rgb = source[y * 5..<(y + 1) * 5].flatMap { [$0, $0, $0] }
            rgb.withUnsafeBufferPointer { reducer.push($0) { rows.append(Array($0)) } }
        }
        #expect(rows.map { row in stride(from: 0, to: row.count, by: 3).map { row[$0] } } == [[30, 50, 65], [105, 125, 140]])
    }

    /// The box pre-shrink is a speed shortcut; it must not visibly change a photo-like image.
    @Test func boxPreShrinkStaysCloseToPureLanczos() {
        let source = Fixtures.image(width: 900, height: 600, channels: 4) { x, y in
            let wave = 127.5 + 100 * sin(Double(x) / 37) * cos(Double(y) / 23)
            return [UInt8(wave), UInt8(x * 255 / 900), UInt8(y * 255 / 600), UInt8(155 + 100 * sin(Double(x + y) / 50))]
        }
        let fast = Fixtures.resize(source, to: 90, 60)
        let exact = Fixtures.resize(source, to: 90, 60, boxPreShrink: false)
        #expect(Fixtures.meanAbsoluteDifference(fast, exact) < 0.5)
    }

    /// 4608x1976 to 256x110 (a phone photo) reduces by 5 in the box stage: 922x396 rows that span only
    /// 921.6x395.2, because the last block of each axis is cut short. Lanczos used to map onto 922x396,
    /// stretching the image by most of a box pixel, so the far edge moved 0.2 output pixels (SSIM 0.986
    /// against Pillow for that photo). Same geometry here, scaled down: the box stage must not move anything.
    @Test func boxPreShrinkWithShortLastBlockDoesNotShiftTheImage() {
        let source = Fixtures.stripes(width: 203, height: 1976)
        let fast = Fixtures.resize(source, to: 11, 110)
        let exact = Fixtures.resize(source, to: 11, 110, boxPreShrink: false)
        // What is left is the box's own blur, the same everywhere (2 levels; 4 in the last row and column,
        // whose short blocks are centred off the grid, as Pillow's `reduce` has them). Mapped onto the pixel
        // count it was 31 levels at most and 7.5 on average.
        let largest = zip(fast.pixels, exact.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 6, "largest difference \(largest) levels")
        #expect(Fixtures.meanAbsoluteDifference(fast, exact) < 1.5)
    }

    /// `sourceExtent` says what the rows span: 26x247 rows spanning 25.375x246.875 (a 203x1975 JPEG decoded
    /// at 1/8) must resize as the exact 8x average of the source would, not as a 26x247 image.
    @Test func sourceExtentMapsOntoWhatTheRowsSpan() {
        let source = Fixtures.stripes(width: 203, height: 1975, period: 140)
        let exact = Fixtures.resize(source, to: 11, 110, boxPreShrink: false)
        // What a 1/8 scaled decode delivers: each 8x8 block averaged, the last row and column of blocks
        // padded by repeating the edge (as JPEG encoders pad partial MCUs).
        let reduced = Fixtures.image(width: 26, height: 247, channels: 3) { bx, by in
            var sum = [0, 0, 0]
            for y in by * 8..<by * 8 + 8 {
                for x in bx * 8..<bx * 8 + 8 {
                    let pixel = source[min(x, 202), min(y, 1974)]
                    for c in 0..<3 { sum[c] += Int(pixel[c]) }
                }
            }
            return sum.map { UInt8(($0 + 32) / 64) }
        }
        var resampler = Resampler(sourceWidth: 26, sourceHeight: 247, channels: 3, resizedWidth: 11, resizedHeight: 110,
                                  sourceExtent: (203.0 / 8, 1975.0 / 8))
        reduced.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<247 { resampler.push(UnsafeBufferPointer(rebasing: pixels[y * 78..<(y + 1) * 78])) }
        }
        let result = resampler.finish()
        // 0.5 levels; mapped onto 26x247 it is 3.9.
        #expect(Fixtures.meanAbsoluteDifference(result, exact) < 1.5)
    }
}
