import HTTPTypes

/// Which request fields an answer depends on besides its path, so shared caches key on them: `Accept` (a format
/// negotiated or enforced from it) and the client hints (`serve --client-hints`, on processing URLs).
struct AnswerVariation: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    static let accept = AnswerVariation(rawValue: 1)
    static let clientHints = AnswerVariation(rawValue: 2)

    /// The `Vary` field's value, nil when the answer is the same for every request of its path.
    var vary: String? {
        switch (contains(.accept), contains(.clientHints)) {
        case (true, true): "Accept, " + ClientHints.fieldList
        case (true, false): "Accept"
        case (false, true): ClientHints.fieldList
        case (false, false): nil
        }
    }

    /// Adds `Vary`, and `Accept-CH` (the hints a browser should send; browsers heed it on documents, so a page
    /// that embeds these images sends it too) when hints count.
    func apply(to headers: inout HTTPFields) {
        if let vary { headers[.vary] = vary }
        if contains(.clientHints) { headers[Self.acceptCH] = ClientHints.fieldList }
    }

    static let acceptCH = HTTPField.Name("Accept-CH")!
}
