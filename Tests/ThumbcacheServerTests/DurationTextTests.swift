import Testing
@testable import ThumbcacheServer

/// Milliseconds with three decimals, rounded to the microsecond, as Server-Timing and the access log write them.
@Suite struct DurationTextTests {
    @Test func millisecondsHaveThreeDecimals() {
        let cases: [(Duration, String)] = [
            (.zero, "0.000"), (.nanoseconds(499), "0.000"), (.nanoseconds(500), "0.001"), (.microseconds(7), "0.007"),
            (.microseconds(70), "0.070"), (.microseconds(1_234), "1.234"), (.milliseconds(5), "5.000"),
            (.seconds(12) + .microseconds(345_678), "12345.678"), (.nanoseconds(-5), "0.000"),
        ]
        for (duration, text) in cases { #expect(duration.millisecondsText == text, "\(duration)") }
    }
}
