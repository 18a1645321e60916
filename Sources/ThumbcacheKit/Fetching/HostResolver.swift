import Foundation
import NIOPosix

/// Host names to addresses, for the source policy's address check: the pipeline resolves a name itself, checks
/// the addresses, and has the HTTP client connect to one of them and nowhere else.
protocol HostResolver: Sendable {
    func addresses(of host: String) async throws(HostResolutionError) -> [IPAddress]
}

struct HostResolutionError: Error, Sendable {
    let host: String
    /// The name does not exist (or has no address), as opposed to a resolver that failed.
    let notFound: Bool
    let reason: String

    var message: String {
        notFound ? "host \(host) does not resolve" : "cannot resolve host \(host): \(reason)"
    }
}

/// The system's resolver (`getaddrinfo`, so /etc/hosts and nsswitch apply), on NIO's blocking-I/O thread pool:
/// never on an event loop or the cooperative pool. Numeric forms (`127.1`, `0x7f000001`, `2130706433`) are
/// parsed without any query, as the C library parses them.
struct SystemResolver: HostResolver {
    func addresses(of host: String) async throws(HostResolutionError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        let result: Result<[IPAddress], HostResolutionError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive {
                // Numeric first, so an address in any form the C library accepts never becomes a DNS query.
                let numeric = Self.lookup(host, flags: AI_NUMERICHOST)
                if case .success = numeric { return numeric }
                return Self.lookup(host, flags: 0)
            }
        } catch {
            throw HostResolutionError(host: host, notFound: false, reason: "\(error)")
        }
        return try result.get()
    }

    private static func lookup(_ host: String, flags: Int32) -> Result<[IPAddress], HostResolutionError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            let notFound = status == EAI_NONAME
            return .failure(HostResolutionError(host: host, notFound: notFound, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var next = list
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let sockaddr = entry.ai_addr else { continue }
            let bytes: [UInt8]
            switch entry.ai_family {
            case AF_INET:
                bytes = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                bytes = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
            default:
                continue
            }
            if let address = IPAddress(bytes: bytes), !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { return .failure(HostResolutionError(host: host, notFound: true, reason: "no address")) }
        return .success(addresses)
    }
}
