/// Replays a journal file's bytes into an `EntryMap`, with the references' exact parse rules (spec §2.4).
/// Works on raw bytes: a 40,000-line journal replays in milliseconds, which keeps reopen cheap.
struct JournalReader {
    struct Corrupt: Error { let reason: String }

    struct Result {
        var entries: EntryMap
        /// Body lines successfully parsed (each counts towards the redundant-op count).
        var lineCount: Int
        /// Bytes after the last LF: a torn last record. The journal must be rebuilt before appending.
        var endsWithPartialLine: Bool
    }

    static let magic = "libcore.io.DiskLruCache"
    static let version = "1"

    let appVersion: Int
    let valueCount: Int

    func read(_ bytes: [UInt8]) throws(Corrupt) -> Result {
        var lines = LineScanner(bytes: bytes)
        let expectedHeader = [JournalReader.magic, JournalReader.version, String(appVersion), String(valueCount), ""]
        for (number, expected) in expectedHeader.enumerated() {
            guard let line = lines.next() else {
                throw Corrupt(reason: "unexpected journal header: end of file in line \(number + 1)")
            }
            guard line.elementsEqual(expected.utf8) else {
                throw Corrupt(reason: "unexpected journal header line \(number + 1): \"\(String(decoding: line, as: UTF8.self))\"")
            }
        }
        var entries = EntryMap()
        var lineCount = 0
        while let line = lines.next() {
            try readLine(line, into: &entries)
            lineCount += 1
        }
        return Result(entries: entries, lineCount: lineCount, endsWithPartialLine: lines.hasPartialLine)
    }

    private func readLine(_ line: ArraySlice<UInt8>, into entries: inout EntryMap) throws(Corrupt) {
        let space: UInt8 = 0x20
        guard let firstSpace = line.firstIndex(of: space) else { throw corrupt(line) }
        let kind = line[line.startIndex..<firstSpace]
        let keyStart = firstSpace + 1
        let secondSpace = line[keyStart...].firstIndex(of: space)
        let keyBytes = line[keyStart..<(secondSpace ?? line.endIndex)]
        let key = String(decoding: keyBytes, as: UTF8.self)

        if secondSpace == nil && kind.elementsEqual("REMOVE".utf8) {
            entries.remove(key)
            return
        }
        // Like the references, any other line first looks the key up (creating and touching it),
        // even if the rest of the line then turns out to be malformed.
        let entry = entries.touchOrInsert(key, valueCount: valueCount)

        if let secondSpace, kind.elementsEqual("CLEAN".utf8) {
            entry.readable = true
            entry.currentEditor = nil
            entry.dirtyInJournal = false
            entry.lengths = try parseLengths(line[(secondSpace + 1)...], line: line)
        } else if secondSpace == nil && kind.elementsEqual("DIRTY".utf8) {
            entry.dirtyInJournal = true
        } else if secondSpace == nil && kind.elementsEqual("READ".utf8) {
            // The lookup above already moved the key to the most-recently-used end.
        } else {
            throw corrupt(line)
        }
    }

    /// Lengths separated by single spaces; trailing empty fields are dropped (Java's `split`), inner ones are corrupt.
    /// Like `Long.parseLong`, a leading sign and leading zeros are accepted.
    private func parseLengths(_ text: ArraySlice<UInt8>, line: ArraySlice<UInt8>) throws(Corrupt) -> [Int64] {
        var fields = text.split(separator: 0x20, omittingEmptySubsequences: false)
        while let last = fields.last, last.isEmpty { fields.removeLast() }
        guard fields.count == valueCount else { throw corrupt(line) }
        var lengths: [Int64] = []
        lengths.reserveCapacity(valueCount)
        for field in fields {
            guard let value = JournalReader.parseJavaLong(field) else { throw corrupt(line) }
            lengths.append(value)
        }
        return lengths
    }

    static func parseJavaLong(_ digits: ArraySlice<UInt8>) -> Int64? {
        var index = digits.startIndex
        var negative = false
        if index < digits.endIndex, digits[index] == UInt8(ascii: "-") || digits[index] == UInt8(ascii: "+") {
            negative = digits[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < digits.endIndex else { return nil }
        var value: Int64 = 0
        while index < digits.endIndex {
            let byte = digits[index]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let digit = Int64(byte - 0x30)
            // Accumulate negatively so Int64.min parses, as in Java.
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    private func corrupt(_ line: ArraySlice<UInt8>) -> Corrupt {
        Corrupt(reason: "unexpected journal line: \"\(String(decoding: line, as: UTF8.self))\"")
    }
}

/// Splits bytes into lines ending in LF or CR LF. A lone CR stays in the line; bytes after the last LF
/// are not a line (they are a torn record), as in JakeWharton's StrictLineReader and Okio's readUtf8LineStrict.
struct LineScanner {
    let bytes: [UInt8]
    private var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var hasPartialLine: Bool { position < bytes.count }

    mutating func next() -> ArraySlice<UInt8>? {
        guard position < bytes.count, let newline = bytes[position...].firstIndex(of: 0x0A) else { return nil }
        var end = newline
        if end > position && bytes[end - 1] == 0x0D { end -= 1 }
        let line = bytes[position..<end]
        position = newline + 1
        return line
    }
}
