import ArgumentParser
import Foundation
import ThumbcacheKit
#if canImport(Glibc)
import Glibc
#endif

/// Every write of the command line to standard output and standard error, and the documented exit codes.
/// Output goes through `FileOutput`, so a closed pipe, a closed descriptor or a full disk is a one-line
/// error and exit 74, never a trap or a silent death by SIGPIPE.
enum Console {
    /// Exit codes beyond the pipeline's (`PipelineError.exitCode`: 3 to 9, 64); documented in the README
    /// and in each command's help.
    enum Status {
        /// Some inputs of `warm` or `thumbnail` failed; the others were done.
        static let someFailed: Int32 = 1
        static let usage: Int32 = 64  // EX_USAGE, as swift-argument-parser's validation errors
        /// An output (file, standard output, report) could not be written: EX_IOERR from sysexits.h.
        static let output: Int32 = 74

        /// The `error` field of a JSON error object.
        static func name(_ code: Int32) -> String {
            switch code {
            case 3: "network"
            case 4: "httpStatus"
            case 5: "input"
            case 6: "limit"
            case 7: "notCached"
            case 8: "cacheDirectory"
            case 9: "sourceRefused"
            case usage: "usage"
            case output: "output"
            default: "failed"
            }
        }
    }

    /// A failure the command line itself finds (not the pipeline's): one line and its exit code.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let exitCode: Int32
    }

    enum Stream {
        case standardOutput, standardError
    }

    /// Makes the standard streams safe before anything else runs. SIGPIPE is ignored, so a closed pipe is
    /// a write error we report. A closed 0, 1 or 2 is held by a read-only descriptor: otherwise the next
    /// file opened (a cache entry) would take its number and receive what is meant for standard output;
    /// held read-only, every write to it still fails, and is reported.
    static func prepareStandardStreams() {
        signal(SIGPIPE, SIG_IGN)
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            var held = open("/dev/null", O_RDONLY)
            if held < 0 { held = open("/", O_RDONLY) }
            if held >= 0 && held != fd {
                dup2(held, fd)
                close(held)
            }
        }
    }

    static func write(_ data: Data, to stream: Stream) throws(FileOutput.Failure) {
        switch stream {
        case .standardOutput: try FileOutput.writeAll(data, to: STDOUT_FILENO, target: "standard output")
        case .standardError: try FileOutput.writeAll(data, to: STDERR_FILENO, target: "standard error")
        }
    }

    /// A line of text on standard output.
    static func print(_ text: String) throws(FileOutput.Failure) {
        try write(Data((text + "\n").utf8), to: .standardOutput)
    }

    /// Text on standard error as it is (progress lines). A failure is dropped: there is nowhere to report it.
    static func standardError(_ text: String) {
        try? write(Data(text.utf8), to: .standardError)
    }

    /// One line `thumbcache: message` on standard error.
    static func error(_ message: String) {
        standardError("thumbcache: \(message)\n")
    }

    /// The message and exit code of any error a command meets.
    static func describe(_ error: any Error) -> (message: String, exitCode: Int32) {
        switch error {
        case let error as PipelineError: (error.description, error.exitCode)
        case let error as FileOutput.Failure: (error.description, Status.output)
        case let error as Failure: (error.description, error.exitCode)
        case let error as ExitCode: ("", error.rawValue)
        default: ("\(error)", Status.someFailed)
        }
    }

    /// Prints the error as one line and returns the exit code to throw. With `json`, the line is a JSON
    /// error object on that stream, where the command's JSON would have gone (and the plain line is on
    /// standard error too, when that is another stream).
    static func fail(_ error: any Error, json: Stream? = nil) -> ExitCode {
        let (message, code) = describe(error)
        if let json {
            if json != .standardError && !message.isEmpty { self.error(message) }
            let object = self.json(["error": Status.name(code), "message": message, "exitCode": code])
            try? write(Data((object + "\n").utf8), to: json)
        } else if !message.isEmpty {
            self.error(message)
        }
        return ExitCode(code)
    }

    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
