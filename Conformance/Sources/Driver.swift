import Foundation

/// An implementation under test, spoken to with the line protocol of Conformance/README.md:
/// one command line in, one reply line out (`ok ...`, `null`, or `error <kind> <message>`).
protocol Driver: AnyObject {
    /// The implementation name that selects a vector's deviations (`swift`, `okhttp`, `jw`, ...).
    var name: String { get }
    /// Sends one command and returns its reply; throws only when the driver itself broke (died, hung).
    func send(_ command: String) throws(ConformanceError) -> String
    /// Closes every cache and forgets all handles, after each vector (also after a failure).
    func reset()
}
