import Testing
@testable import thumbcache

/// Sizes on the command line: one unit convention (KB = 1000, KiB = 1024), exact arithmetic, no trap.
struct ByteCountTests {
    @Test func unitsArePowersOf1000Or1024() throws {
        let cases: [(String, Int64)] = [
            ("1", 1), ("1B", 1), ("50MB", 50_000_000), ("50mb", 50_000_000), ("512MiB", 536_870_912), ("512 MiB", 536_870_912),
            ("1.5GB", 1_500_000_000), ("1.5GiB", 1_610_612_736), ("2TB", 2_000_000_000_000), ("1TiB", 1 << 40),
            ("0.5KiB", 512), ("1.9B", 1), (".5KB", 500), ("9223372036854775807", Int64.max),
            ("8388607.999999999999TiB", 9_223_372_036_854_775_806),
        ]
        for (text, bytes) in cases { #expect(try ByteCount(parsing: text).bytes == bytes, "\(text)") }
    }

    @Test func outOfRangeAndMalformedValuesAreRefusedWithoutTrapping() {
        let tooLarge = ["9223372036854775808", "8388608TiB", "99999999999999999999999", "9223372036854775.808KB"]
        for text in tooLarge { #expect(throws: ByteCount.ParseError.tooLarge, "\(text)") { try ByteCount(parsing: text) } }
        for text in ["0", "0B", "0.0001KB", "0.9B", "0.000000000000000000001TB"] {
            #expect(throws: ByteCount.ParseError.belowOneByte, "\(text)") { try ByteCount(parsing: text) }
        }
        for text in ["", ".", "KB", "infGB", "inf", "nan", "NaNMB", "1e30GB", "1e300KB", "-5MB", "+5MB", "0x10", "1.2.3MB", "5XB", "١٢MB"] {
            #expect(throws: ByteCount.ParseError.notASize, "\(text)") { try ByteCount(parsing: text) }
        }
    }

    @Test func helpShowsTheShortestExactSpelling() throws {
        #expect(ByteCount(bytes: 512 << 20).description == "512MiB")
        #expect(ByteCount(bytes: 50_000_000).description == "50MB")
        #expect(ByteCount(bytes: 2_000_000_000).description == "2GB")
        // stats: exact where a unit fits, else one decimal of a binary unit.
        #expect(ByteCount(bytes: 512 << 20).approximateDescription == "512MiB")
        #expect(ByteCount(bytes: 9003).approximateDescription == "8.8KiB")
        #expect(ByteCount(bytes: 900).approximateDescription == "900B")
        #expect(ByteCount(bytes: (3 << 30) / 2 + 1).approximateDescription == "1.5GiB")
        #expect(ByteCount(bytes: 1234).description == "1234B")
        #expect(ByteCount(bytes: -1).description == "-1B")
        #expect(CacheOptions.defaultMaxDiskSize.defaultValueDescription == "512MiB")
        #expect(FetchOptions.defaultMaxDownloadSize.bytes == 50_000_000, "the default limit is exactly 50MB as the help spells it")
        for bytes: Int64 in [1, 999, 1000, 1024, 1_500_000, 536_870_912, Int64.max] {
            #expect(try ByteCount(parsing: ByteCount(bytes: bytes).description).bytes == bytes, "round trip of \(bytes)")
        }
    }
}
