import Foundation

/// Errors of the harness itself (never a cache behaviour): each message says what to fix.
enum ConformanceError: Error, CustomStringConvertible {
    case invalidVector(file: String, reason: String)
    case driverFailed(driver: String, reason: String)
    case javaUnavailable(reason: String)
    case io(path: String, reason: String)

    var description: String {
        switch self {
        case .invalidVector(let file, let reason):
            "invalid vector \(file): \(reason)"
        case .driverFailed(let driver, let reason):
            "driver \(driver) failed: \(reason)"
        case .javaUnavailable(let reason):
            "Java/OkHttp unavailable (\(reason)). Install it with: "
                + "apt-get install -y default-jdk-headless libokhttp-java libokio-java"
        case .io(let path, let reason):
            "\(path): \(reason)"
        }
    }
}
