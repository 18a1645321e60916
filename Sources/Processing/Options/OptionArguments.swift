/// One option's arguments with imgproxy's readers; an empty argument reads as nil ("keep what is set").
struct OptionArguments {
    /// The option's name as the URL spells it (named in errors).
    let option: String
    let values: [String]

    var count: Int { values.count }

    func isGiven(_ index: Int) -> Bool { index < values.count && !values[index].isEmpty }

    func atMost(_ limit: Int) throws(ProcessingError) {
        guard values.count <= limit else {
            throw .badArgument(option: option, argument: values.joined(separator: ":"),
                               expected: "at most \(limit) argument\(limit == 1 ? "" : "s")")
        }
    }

    /// The arguments of a one-argument option: more is an error, as in imgproxy.
    func single() throws(ProcessingError) -> OptionArguments {
        try atMost(1)
        return self
    }

    func bad(_ index: Int, _ expected: String) -> ProcessingError {
        .badArgument(option: option, argument: index < values.count ? values[index] : "", expected: expected)
    }

    /// Whole numbers ≥ 0 (sizes, padding, bytes).
    func count(_ index: Int) throws(ProcessingError) -> Int? {
        guard isGiven(index) else { return nil }
        guard let value = Int(values[index]), value >= 0 else { throw bad(index, "a whole number ≥ 0") }
        return value
    }

    /// Whole numbers ≥ 1 (imgproxy's parsePositiveNonZeroInt).
    func positiveCount(_ index: Int) throws(ProcessingError) -> Int? {
        guard isGiven(index) else { return nil }
        guard let value = Int(values[index]), value >= 1 else { throw bad(index, "a whole number ≥ 1") }
        return value
    }

    func integer(_ index: Int) throws(ProcessingError) -> Int? {
        guard isGiven(index) else { return nil }
        guard let value = Int(values[index]) else { throw bad(index, "a whole number") }
        return value
    }

    /// Finite numbers ≥ 0, or > 0 when `positive`.
    func number(_ index: Int, positive: Bool = false) throws(ProcessingError) -> Double? {
        guard isGiven(index) else { return nil }
        guard let value = Double(values[index]), value.isFinite, positive ? value > 0 : value >= 0 else {
            throw bad(index, positive ? "a number > 0" : "a number ≥ 0")
        }
        return value
    }

    /// Megapixels ≥ 0 as whole pixels (imgproxy's parseResolution truncates), read so that the canonical form's six
    /// decimals (`ProcessingOptions.megapixels`) give back the same count.
    func megapixels(_ index: Int) throws(ProcessingError) -> Int? {
        guard let value = try number(index) else { return nil }
        guard value < 1e9 else { throw bad(index, "megapixels below 1000000000") }
        let pixels = value * 1e6
        return abs(pixels - pixels.rounded()) < 1e-6 ? Int(pixels.rounded()) : Int(pixels)
    }

    /// A filter's sigma, 0…`ProcessingOptions.maxSigma`.
    func sigma(_ index: Int) throws(ProcessingError) -> Double? {
        guard let value = try number(index) else { return nil }
        guard value <= ProcessingOptions.maxSigma else {
            throw bad(index, "a sigma from 0 to \(ProcessingOptions.number(ProcessingOptions.maxSigma))")
        }
        return value
    }

    /// Go's strconv.ParseBool spellings; anything else is false, as imgproxy reads it (with a warning).
    func flag(_ index: Int) -> Bool? {
        guard isGiven(index) else { return nil }
        return ["1", "t", "T", "TRUE", "true", "True"].contains(values[index])
    }

    func quality(_ index: Int) throws(ProcessingError) -> Int? {
        guard isGiven(index) else { return nil }
        guard let value = Int(values[index]), (0...100).contains(value) else { throw bad(index, "a quality from 0 to 100") }
        return value
    }

    /// A format thumbcache writes (`jpg` is `jpeg`, `ImageFormat(name:)`); `readable` allows the formats only read.
    func format(_ index: Int, readable: Bool = false) throws(ProcessingError) -> ImageFormat? {
        guard isGiven(index) else { return nil }
        let allowed = readable ? ImageFormat.decodable : ImageFormat.askable
        guard let format = ImageFormat(name: values[index]), allowed.contains(format) else {
            throw bad(index, "one of " + ImageFormat.names(allowed, imgproxyNames: true))
        }
        return format
    }

    /// The arguments from `index` on, for an option nested in a meta-option.
    func dropping(_ index: Int) -> OptionArguments {
        OptionArguments(option: option, values: Array(values.dropFirst(index)))
    }
}
