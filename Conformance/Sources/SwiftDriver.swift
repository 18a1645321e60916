// Placeholder until DiskLru lands on main; replaced by the in-process driver in the next commits.
final class SwiftDriver: Driver {
    let name = "swift"
    func send(_ command: String) throws(ConformanceError) -> String { "error unsupported DiskLru not merged yet" }
    func reset() {}
}
