import Foundation

/// Finds Java and the Debian OkHttp jars, and compiles Conformance/java/ConformanceDriver.java into .build/.
struct JavaToolchain {
    static let okhttpJar = "/usr/share/java/okhttp.jar"
    static let okioJar = "/usr/share/java/okio.jar"
    static let driverClass = "okhttp3.internal.cache.ConformanceDriver"

    let java: URL
    let javac: URL
    let classpath: String
    let source: URL
    let buildDirectory: URL

    /// Throws `.javaUnavailable` naming what is missing, so the message can tell the user what to install.
    init(packageRoot: URL) throws(ConformanceError) {
        guard let java = JavaToolchain.which("java") else { throw .javaUnavailable(reason: "no `java` on PATH") }
        guard let javac = JavaToolchain.which("javac") else { throw .javaUnavailable(reason: "no `javac` on PATH") }
        for jar in [JavaToolchain.okhttpJar, JavaToolchain.okioJar] where !FileManager.default.fileExists(atPath: jar) {
            throw .javaUnavailable(reason: "\(jar) is missing")
        }
        self.java = java
        self.javac = javac
        classpath = [JavaToolchain.okhttpJar, JavaToolchain.okioJar].joined(separator: ":")
        source = packageRoot.appendingPathComponent("Conformance/java/ConformanceDriver.java")
        buildDirectory = packageRoot.appendingPathComponent(".build/conformance-java")
    }

    /// Compiles the driver unless its class file is newer than the source.
    func compile() throws(ConformanceError) {
        let classFile = buildDirectory.appendingPathComponent("okhttp3/internal/cache/ConformanceDriver.class")
        if let built = JavaToolchain.modified(classFile), let edited = JavaToolchain.modified(source), built > edited { return }
        let p = Process()
        p.executableURL = javac
        p.arguments = ["-d", buildDirectory.path, "-cp", classpath, source.path]
        let errors = Pipe()
        p.standardError = errors
        do {
            try p.run()
        } catch {
            throw .javaUnavailable(reason: "cannot run javac: \(error)")
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw .driverFailed(driver: "okhttp", reason: "javac failed:\n" + String(decoding: output, as: UTF8.self))
        }
    }

    func makeDriver(logFile: URL) throws(ConformanceError) -> ProcessDriver {
        try ProcessDriver(
            executable: java,
            arguments: ["-cp", buildDirectory.path + ":" + classpath, JavaToolchain.driverClass],
            logFile: logFile)
    }

    private static func which(_ tool: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(tool)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }
}
