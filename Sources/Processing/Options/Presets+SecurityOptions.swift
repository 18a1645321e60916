extension Presets {
    /// The first security option (`OptionName.isSecurityOption`) a preset names, as spelt there; nil: none. A server
    /// that does not take them from URLs refuses to start with such a preset, as imgproxy does.
    public func firstSecurityOption() -> String? {
        for name in names {
            if let option = written(name)?.first(where: { OptionName(spelling: $0.name)?.isSecurityOption == true }) {
                return "\(option.name) (preset \(name))"
            }
        }
        return nil
    }
}
