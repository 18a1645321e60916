import Foundation
import Testing
@testable import ThumbcacheKit

/// The pieces of the source check that need no network: URL parsing (ports, credentials), the address classes.
@Suite struct SourceCheckTests {
    @Test(arguments: [
        // IPv4
        ("0.0.0.0", IPAddress.Kind.unspecified), ("0.1.2.3", .unspecified), ("10.0.0.1", .privateUse), ("10.255.255.255", .privateUse),
        ("100.63.255.255", .global), ("100.64.0.0", .shared), ("100.127.255.255", .shared), ("100.128.0.0", .global),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("169.254.169.254", .linkLocal), ("169.253.0.1", .global),
        ("172.15.255.255", .global), ("172.16.0.0", .privateUse), ("172.31.255.255", .privateUse), ("172.32.0.0", .global),
        ("192.0.0.8", .reserved), ("192.0.2.1", .reserved), ("192.168.0.1", .privateUse), ("192.169.0.1", .global),
        ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("198.20.0.1", .global), ("198.51.100.7", .reserved),
        ("203.0.113.9", .reserved), ("224.0.0.1", .multicast), ("239.255.255.255", .multicast), ("240.0.0.1", .reserved),
        ("255.255.255.254", .reserved), ("255.255.255.255", .broadcast), ("8.8.8.8", .global), ("1.1.1.1", .global),
        // IPv6
        ("::", .unspecified), ("::1", .loopback), ("fc00::1", .privateUse), ("fdff:ffff::1", .privateUse), ("fe80::1", .linkLocal),
        ("febf::1", .linkLocal), ("fec0::1", .privateUse), ("ff02::1", .multicast), ("100::1", .reserved), ("2001:db8::1", .reserved),
        ("2606:4700::1111", .global), ("64:ff9b:1::1", .privateUse),
        // IPv4 inside IPv6: classified as the IPv4 address they carry
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.1.2.3", .privateUse), ("::ffff:169.254.169.254", .linkLocal),
        ("::ffff:0.0.0.0", .unspecified), ("::ffff:8.8.8.8", .global), ("::127.0.0.1", .loopback), ("::192.168.1.1", .privateUse),
        ("::ffff:0:127.0.0.1", .loopback), ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::10.0.0.1", .privateUse),
        ("64:ff9b::8.8.8.8", .global), ("2002:7f00:1::", .loopback), ("2002:a9fe:a9fe::1", .linkLocal), ("2002:808:808::", .global),
    ])
    func addressClasses(text: String, kind: IPAddress.Kind) throws {
        let address = try #require(IPAddress(text))
        #expect(address.kind == kind, "\(text)")
    }

    @Test func theAddressCheckFollowsThePolicy() throws {
        let loopback = try #require(IPAddress("::ffff:127.0.0.1"))
        let privateUse = try #require(IPAddress("192.168.1.1"))
        let global = try #require(IPAddress("2606:4700::1111"))
        let closed = SourcePolicy(allowLoopback: false, allowPrivate: false)
        #expect(closed.refusal(of: loopback) == "a loopback address")
        #expect(closed.refusal(of: privateUse) == "a private address")
        #expect(closed.refusal(of: global) == nil)
        #expect(closed.refusal(of: try #require(IPAddress("0.0.0.0"))) != nil, "0.0.0.0 reaches the local host")
        let loopbackOnly = SourcePolicy(allowLoopback: true, allowPrivate: false)
        #expect(loopbackOnly.refusal(of: loopback) == nil && loopbackOnly.refusal(of: privateUse) != nil)
        #expect(loopbackOnly.refusal(of: try #require(IPAddress("169.254.169.254"))) == "a link-local address")
        for kind in IPAddress.Kind.allCases where kind != .global {
            #expect(closed.refusal(of: try #require(Self.sample(kind))) != nil, "\(kind)")
            #expect(SourcePolicy.unrestricted.refusal(of: try #require(Self.sample(kind))) == nil, "\(kind)")
        }
        #expect(!SourcePolicy.unrestricted.checksAddresses, "the CLI's default resolves as it always did")
        #expect(IPAddress("127.1") == nil && IPAddress("localhost") == nil, "only standard numeric forms are literals")
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
    }

    static func sample(_ kind: IPAddress.Kind) -> IPAddress? {
        let text = switch kind {
        case .global: "8.8.8.8"
        case .loopback: "127.0.0.2"
        case .unspecified: "::"
        case .privateUse: "fd00::1"
        case .shared: "100.100.1.1"
        case .linkLocal: "fe80::1"
        case .multicast: "224.0.0.251"
        case .broadcast: "255.255.255.255"
        case .reserved: "240.1.1.1"
        }
        return IPAddress(text)
    }

    @Test func prefixesMatchOriginExactlyAndPathByPrefix() throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://127.0.0.1:8080/img/", "https://CDN.example.com"])
        func refused(_ url: String) throws -> Bool { policy.refusal(of: try HTTPLocation(url)) != nil }
        #expect(try !refused("http://127.0.0.1:8080/img/a.jpg"))
        #expect(try !refused("https://cdn.example.com:443/any/where.png"))
        #expect(try refused("http://127.0.0.1:8080/imgs/a.jpg"))
        #expect(try refused("http://127.0.0.1:8081/img/a.jpg"))
        #expect(try refused("https://127.0.0.1:8080/img/a.jpg"))
        #expect(try refused("http://127.1:8080/img/a.jpg"), "another spelling of the host is another host")
        #expect(try refused("https://cdn.example.com.evil.test/a.jpg"))
        #expect(try refused("https://cdn.example.com@evil.test/a.jpg"))
        #expect(SourcePolicy(allowedPrefixes: ["not a url"]).refusal(of: try HTTPLocation("http://x/")) != nil)
        #expect(SourcePolicy(allowLoopback: false).refusal(ofFile: "file:///tmp/a.jpg") != nil)
        #expect(SourcePolicy(allowedPrefixes: ["file:///srv/images/"]).refusal(ofFile: "file:///srv/images/a.jpg") == nil)
        #expect(policy.refusal(ofFile: "file:///srv/images/a.jpg") != nil)
    }

    @Test(arguments: ["http://127.0.0.1:99999/x.jpg", "http://localhost:65536/x.jpg", "http://example.test:0/x.jpg",
                      "https://h.test:99999999999999999999999/x.jpg", "http://[::1]:70000/x.jpg"])
    func portsOutOfRangeAreInvalidSources(url: String) {
        #expect {
            _ = try ImageSource(url)
        } throws: { error in
            guard case .invalidSource(_, let reason) = error as? PipelineError else { return false }
            return reason.contains("is not in 1-65535") && (error as? PipelineError)?.exitCode == 64
        }
    }

    @Test func portsAndNumericHostsNormalise() throws {
        #expect(try ImageSource("http://127.0.0.1:65535/x.jpg").normalized == "http://127.0.0.1:65535/x.jpg")
        #expect(try ImageSource("http://h.test:0080/x.jpg").normalized == "http://h.test/x.jpg")
        #expect(try ImageSource("http://h.test:/x.jpg").normalized == "http://h.test/x.jpg")
        for host in ["127.1", "2130706433", "0x7f000001", "[::ffff:127.0.0.1]"] {
            let source = try ImageSource("http://\(host):8080/x.jpg")
            #expect(source.normalized == "http://\(host):8080/x.jpg", "a valid host form, not an invalid URL")
        }
        #expect(try ImageSource("http://[::FFFF:127.0.0.1]/x").http?.host == "::ffff:127.0.0.1")
        #expect(throws: PipelineError.self) { try ImageSource("http://%31%32%37.0.0.1/x.jpg") }
        #expect(throws: PipelineError.self) { try ImageSource("http://[fe80::1%25eth0]/x.jpg") }
    }

    @Test func credentialsAreNeverPartOfTheIdentity() throws {
        let source = try ImageSource("http://alice:s3cr%40t@Example.test/a.jpg")
        #expect(source.normalized == "http://example.test/a.jpg" && source.location == source.normalized)
        #expect(source.cacheKey == (try ImageSource("http://example.test/a.jpg")).cacheKey)
        #expect(source.http?.credentials == Credentials(user: "alice", password: "s3cr@t"))
        #expect(source.http?.credentials?.authorization == "Basic " + Data("alice:s3cr@t".utf8).base64EncodedString())
        let shown = "\(source) \(String(describing: source.http?.credentials))"
        #expect(!shown.contains("s3cr"))
        #expect(HTTPLocation.redacting("http://alice:s3cr@t@h/x?u=a:b@c") == "http://alice:***@h/x?u=a:b@c")
        #expect(HTTPLocation.redacting("http://h/x?u=a:b@c") == "http://h/x?u=a:b@c")
        do {
            _ = try ImageSource("http://alice:s3cret@h.test:99999/a.jpg")
            Issue.record("a port out of range is refused")
        } catch {
            #expect(!error.description.contains("s3cret") && error.description.contains("alice:***@"), "\(error)")
            guard case .invalidSource(let text, _) = error else { Issue.record("\(error)"); return }
            #expect(!text.contains("s3cret"))
        }
    }

    @Test func unsupportedSourcesSayWhy() {
        for (text, reason) in [("data:image/png;base64,iVBORw0KGgo=", "data: URLs are not supported"),
                               ("ftp://h.test/a.jpg", "only http, https and file URLs")] {
            #expect {
                _ = try ImageSource(text)
            } throws: { error in
                (error as? PipelineError)?.description.contains(reason) == true && (error as? PipelineError)?.exitCode == 64
            }
        }
    }
}
