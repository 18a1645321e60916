/// The byte streams `SmugglingDifferentialTests` sends to a server with `WireHitHandler` and to one without:
/// generated here in code, in a fixed order (no randomness), from six targets: a thumbnail both servers hold
/// in memory, `/healthz`, a path the router refuses, a bad signature, a thumbnail whose origin answers 404, and
/// a purge of a source neither server holds (so no stream changes what the other streams find). Most streams
/// end with a plain memory hit: if a server framed the bytes before it differently, that hit is where it shows.
struct SmugglingCorpus {
    struct Stream: Sendable {
        let family: String
        let name: String
        /// Sent one `send` call each.
        let pieces: [[UInt8]]

        init(_ family: String, _ name: String, pieces: [[UInt8]]) {
            self.family = family
            self.name = name
            self.pieces = pieces.filter { !$0.isEmpty }
        }

        init(_ family: String, _ name: String, _ texts: String...) {
            self.init(family, name, pieces: texts.map { Array($0.utf8) })
        }

        var bytes: [UInt8] { pieces.flatMap { $0 } }
    }

    /// The thumbnail in both servers' memory caches.
    let hit: String
    /// The same thumbnail with a signature the servers refuse (403).
    let badSignature: String
    /// A thumbnail whose origin answers 404.
    let notFound: String
    /// A purge target (`/admin/purge/<source>`) of a source neither server holds.
    let purge: String
    let adminToken: String

    static let host = "Host: 127.0.0.1"

    /// `method target version`, the fields, the blank line and `body`.
    static func request(_ method: String, _ target: String, version: String = "HTTP/1.1", _ fields: [String] = [host],
                        body: String = "") -> String {
        "\(method) \(target) \(version)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" + body
    }

    static func get(_ target: String, _ fields: [String] = [host]) -> String { request("GET", target, fields) }

    /// `text` as one chunk, then the last chunk.
    static func chunked(_ text: String) -> String { String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n0\r\n\r\n" }

    /// The plain memory hit most streams end with.
    var getHit: String { Self.get(hit) }

    var streams: [Stream] {
        review + pipelines + framing + lines + targets + versionsAndMethods + targetBytes + fieldBytes + sizes + splits
    }

    // MARK: - Families

    /// The three differences a past review found: a memory hit must not answer 200 where the decoder's side
    /// says 400.
    var review: [Stream] {
        [
            Stream("review", "two Host fields, then a hit", Self.get(hit, [Self.host, Self.host]) + getHit),
            Stream("review", "no Host, then a hit", Self.get(hit, ["Accept: */*"]) + getHit),
            Stream("review", "two Content-Length: 0 on a hit, then a hit",
                   Self.get(hit, [Self.host, "Content-Length: 0", "Content-Length: 0"]) + getHit),
        ]
    }

    /// Requests of every route, to be pipelined.
    var requestKinds: [(name: String, text: String)] {
        [
            ("hit", getHit),
            ("HEAD hit", Self.request("HEAD", hit)),
            ("conditional hit (304)", Self.get(hit, [Self.host, "If-None-Match: *"])),
            ("healthz", Self.get("/healthz")),
            ("HEAD healthz", Self.request("HEAD", "/healthz")),
            ("bad path (400)", Self.get("/nope")),
            ("bad signature (403)", Self.get(badSignature)),
            ("origin 404", Self.get(notFound)),
            ("purge", Self.request("POST", purge, [Self.host, "Authorization: Bearer \(adminToken)", "Content-Length: 0"])),
            ("unauthorized purge with a hit as its body",
             Self.request("POST", purge, [Self.host, "Content-Length: \(getHit.utf8.count)"], body: getHit)),
            ("POST healthz with a chunked hit as its body",
             Self.request("POST", "/healthz", [Self.host, "Transfer-Encoding: chunked"], body: Self.chunked(getHit))),
            ("HTTP/1.0 keep-alive hit", Self.request("GET", hit, version: "HTTP/1.0", [Self.host, "Connection: keep-alive"])),
            ("hit with Connection: close", Self.get(hit, [Self.host, "Connection: close"])),
        ]
    }

    /// Every ordered pair of request kinds, then threes and fours mixed by a fixed stride.
    var pipelines: [Stream] {
        let kinds = requestKinds, count = kinds.count
        var streams: [Stream] = []
        for first in kinds {
            for second in kinds {
                streams.append(Stream("pipeline", "\(first.name) + \(second.name)", first.text + second.text))
            }
        }
        for index in 0..<count {
            let three = [kinds[index], kinds[0], kinds[(index * 5 + 3) % count]]
            let four = [kinds[index], kinds[(index + 4) % count], kinds[0], kinds[(index * 3 + 1) % count]]
            for group in [three, four] {
                streams.append(Stream("pipeline", group.map(\.name).joined(separator: " + "), group.map(\.text).joined()))
            }
        }
        // Long runs, where who answers may change with the connection's writability but what is answered must not;
        // empty lines between requests (allowed before a request line).
        streams.append(Stream("pipeline", "50 hits", String(repeating: getHit, count: 50)))
        streams.append(Stream("pipeline", "20 times hit + HEAD hit + healthz",
                              String(repeating: getHit + Self.request("HEAD", hit) + Self.get("/healthz"), count: 20)))
        streams.append(Stream("pipeline", "hit, CRLF, hit", getHit + "\r\n" + getHit))
        streams.append(Stream("pipeline", "hit, two CRLF, hit", getHit + "\r\n\r\n" + getHit))
        return streams
    }

    /// Every Content-Length / Transfer-Encoding combination on four kinds of request, each followed by a hit. The
    /// bodies hold a hit's bytes: a server that does not read them as a body answers them.
    var framing: [Stream] {
        let smuggled = getHit, n = getHit.utf8.count
        let variants: [(String, [String], String)] = [
            ("CL 0", ["Content-Length: 0"], ""),
            ("CL n with a body", ["Content-Length: \(n)"], smuggled),
            ("CL 0 twice", ["Content-Length: 0", "Content-Length: 0"], ""),
            ("CL n twice", ["Content-Length: \(n)", "Content-Length: \(n)"], smuggled),
            ("CL 0 then CL n", ["Content-Length: 0", "Content-Length: \(n)"], smuggled),
            ("CL n then CL 0", ["Content-Length: \(n)", "Content-Length: 0"], smuggled),
            ("CL 0, 0 as a list", ["Content-Length: 0, 0"], ""),
            ("CL n, n as a list", ["Content-Length: \(n), \(n)"], smuggled),
            ("CL +0", ["Content-Length: +0"], ""),
            ("CL -0", ["Content-Length: -0"], ""),
            ("CL +n", ["Content-Length: +\(n)"], smuggled),
            ("CL 00", ["Content-Length: 00"], ""),
            ("CL 0n (leading zero)", ["Content-Length: 0\(n)"], smuggled),
            ("CL 0 with spaces around", ["Content-Length:    0   "], ""),
            ("CL 0 with tabs around", ["Content-Length:\t0\t"], ""),
            ("CL 0 with a leading tab", ["Content-Length:\t0"], ""),
            ("CL 0 with a trailing tab", ["Content-Length: 0\t"], ""),
            ("CL 0 with a trailing space", ["Content-Length: 0 "], ""),
            ("CL 0x0", ["Content-Length: 0x0"], ""),
            ("CL 0 0", ["Content-Length: 0 0"], ""),
            ("CL 5, shorter than the body", ["Content-Length: 5"], smuggled),
            ("CL huge", ["Content-Length: 99999999999999999999999"], smuggled),
            ("CL lower case", ["content-length: 0"], ""),
            ("CL with a space before the colon", ["Content-Length : 0"], ""),
            ("TE chunked, empty", ["Transfer-Encoding: chunked"], "0\r\n\r\n"),
            ("TE chunked, a hit in a chunk", ["Transfer-Encoding: chunked"], Self.chunked(smuggled)),
            ("CL 0 and TE chunked", ["Content-Length: 0", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
            ("TE chunked and CL n", ["Transfer-Encoding: chunked", "Content-Length: \(n)"], Self.chunked(smuggled)),
            ("TE gzip, chunked", ["Transfer-Encoding: gzip, chunked"], "0\r\n\r\n"),
            ("TE chunked, gzip", ["Transfer-Encoding: chunked, gzip"], smuggled),
            ("TE chunked, chunked", ["Transfer-Encoding: chunked, chunked"], "0\r\n\r\n"),
            ("TE chunked in two fields", ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
            ("Transfer-encoding (odd case)", ["Transfer-encoding: chunked"], "0\r\n\r\n"),
            ("transfer-encoding: CHUNKED", ["transfer-encoding: CHUNKED"], "0\r\n\r\n"),
            ("TE with a space before the colon", ["Transfer-Encoding : chunked"], "0\r\n\r\n"),
            ("TE with a tab before the value", ["Transfer-Encoding:\tchunked"], "0\r\n\r\n"),
            ("TE identity", ["Transfer-Encoding: identity"], ""),
            ("TE xchunked", ["Transfer-Encoding: xchunked"], "0\r\n\r\n"),
            ("chunk extension", ["Transfer-Encoding: chunked"], "0;ext=1\r\n\r\n"),
            ("quoted chunk extension", ["Transfer-Encoding: chunked"], "5;a=\"b;c\"\r\nhello\r\n0\r\n\r\n"),
            ("chunk size G", ["Transfer-Encoding: chunked"], "G\r\nhello\r\n0\r\n\r\n"),
            ("chunk size -1", ["Transfer-Encoding: chunked"], "-1\r\nhello\r\n0\r\n\r\n"),
            ("chunk size 0x5", ["Transfer-Encoding: chunked"], "0x5\r\nhello\r\n0\r\n\r\n"),
            ("chunk size huge", ["Transfer-Encoding: chunked"], "FFFFFFFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n"),
            ("chunk size with a space after", ["Transfer-Encoding: chunked"], "5 \r\nhello\r\n0\r\n\r\n"),
            ("chunk size with leading zeros", ["Transfer-Encoding: chunked"], "0005\r\nhello\r\n0\r\n\r\n"),
            ("chunk longer than its size", ["Transfer-Encoding: chunked"], "3\r\nhello\r\n0\r\n\r\n"),
            ("chunks with bare LFs", ["Transfer-Encoding: chunked"], "5\nhello\n0\n\n"),
            ("trailer field", ["Transfer-Encoding: chunked"], "0\r\nX-T: 1\r\n\r\n"),
            ("no last chunk", ["Transfer-Encoding: chunked"], "5\r\nhello\r\n"),
        ]
        let carriers = [
            ("GET hit", "GET", hit, [Self.host]),
            ("HEAD hit", "HEAD", hit, [Self.host]),
            ("GET healthz", "GET", "/healthz", [Self.host]),
            ("POST purge", "POST", purge, [Self.host, "Authorization: Bearer \(adminToken)"]),
        ]
        return carriers.flatMap { carrier in
            variants.map { variant in
                let request = Self.request(carrier.1, carrier.2, carrier.3 + variant.1, body: variant.2)
                return Stream("framing", "\(carrier.0), \(variant.0), then a hit", request + getHit)
            }
        }
    }

    /// Line ends, folding, NUL bytes, tabs, Host and connection fields, each head followed by a hit.
    var lines: [Stream] {
        let line = "GET \(hit) HTTP/1.1", host = Self.host
        let raw: [(String, String)] = [
            ("a bare CR ending the request line", "\(line)\r\(host)\r\n\r\n"),
            ("a bare CR ending a field line", "\(line)\r\n\(host)\r\r\n\r\n"),
            ("a bare CR ending the head", "\(line)\r\n\(host)\r\n\r"),
            ("bare LF line ends", "\(line)\n\(host)\n\n"),
            ("a bare LF ending the request line", "\(line)\n\(host)\r\n\r\n"),
            ("a bare LF ending a field line", "\(line)\r\n\(host)\n\r\n"),
            ("a bare LF ending the head", "\(line)\r\n\(host)\r\n\n"),
            ("LF CR LF ending the head", "\(line)\r\n\(host)\n\r\n"),
            ("NUL at the end of the target", "GET \(hit)\0 HTTP/1.1\r\n\(host)\r\n\r\n"),
            ("NUL in the query", "GET \(hit)?a\0b HTTP/1.1\r\n\(host)\r\n\r\n"),
            ("a tab in the request line", "GET\t\(hit) HTTP/1.1\r\n\(host)\r\n\r\n"),
            ("two spaces in the request line", "GET  \(hit) HTTP/1.1\r\n\(host)\r\n\r\n"),
            ("a space after the version", "\(line) \r\n\(host)\r\n\r\n"),
            ("an empty line first", "\r\n" + getHit),
            ("two empty lines first", "\r\n\r\n" + getHit),
            ("a space first", " " + getHit),
            ("Expect: 100-continue on a purge with a body",
             Self.request("POST", purge, [host, "Expect: 100-continue", "Content-Length: \(getHit.utf8.count)"], body: getHit)),
        ]
        // A hit with these field lines instead of `Host` alone.
        let fieldSets: [[String]] = [
            [host, "X-A: b", " c"], [host, "X-A: b", "\tc"], ["Host: 127.0.0.1", " x"], [" X-A: b", host],
            ["Host: 127.0.0.1\0"], ["Host:\t127.0.0.1\t"], ["Host:\t127.0.0.1"], ["Host: 127.0.0.1\t"], ["Host: 127.0.0.1 "],
            ["Host: 127.0.0.1 \t "], ["Host:127.0.0.1"], [], [host, host], [host, "Host: example.test"], [host, "host: 127.0.0.1"],
            ["Host: 127.0.0.1, example.test"], ["Host:"], ["Host: 127.0.0.1:80"], ["Host: [::1]:80"], ["Host: 127.0.0.1 x"],
            ["Host: 127.0.0.1/x"], ["Host: \"127.0.0.1\""], ["Host: user@127.0.0.1"], ["Host: 127.0.0.1\tx"],
            ["Host: 127.0.0.1\\x"], ["Host: 127.0.0.\u{e9}"],
            [host, "Connection: keep-alive", "Connection: close"], [host, "Connection: keep-alive,", " close"],
            [host, "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"],
            [host, "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__"],
        ]
        // A hit with one more field line after `Host`.
        let oneMore = [
            "X-A: b\rc", "X-\0A: b", "X-A: b\0c", "\0X-A: b", "X-A:\t\tb\t", "X-\tA: b", "X-A\t: b", "X-A : b", "X-A:", ": b", "X-A",
            "Connection: close", "Connection: Close", "Connection: keep-alive, close", "Connection: keep-alive", "Connection:  close\t",
            "Proxy-Connection: close", "proxy-connection: CLOSE", "Proxy-Connection: keep-alive", "Upgrade: websocket",
            "Connection: Upgrade", "Expect: 100-continue", "Expect: 100-Continue", "Expect: 200-ok", "If-None-Match: *\t",
            "If-None-Match: * , \"x\"",
        ]
        let heads = raw + (fieldSets + oneMore.map { [host, $0] }).map { fields in
            ("a hit with " + (fields.isEmpty ? "no fields" : fields.map { ResponseStream.escaped($0.utf8) }.joined(separator: " | ")),
             Self.get(hit, fields))
        }
        return heads.map { Stream("lines", "\($0.0), then a hit", $0.1 + getHit) }
    }

    /// Request targets in every form, each followed by a hit.
    var targets: [Stream] {
        let gets = [
            "http://127.0.0.1\(hit)", "http://example.test\(hit)", "HTTP://127.0.0.1\(hit)", "https://127.0.0.1\(hit)",
            "http://127.0.0.1", "*", "127.0.0.1:80", "\(hit)#f", "\(hit)?", "\(hit)?v=2&w", "\(hit)??", "\(hit)?/../x", "/\(hit)",
            "/./\(hit.dropFirst())", "/x/..\(hit)", hit.replacingOccurrences(of: "/64/", with: "%2F64/"),
            "/%75" + hit.dropFirst(2), "\(hit)/", String(hit.dropFirst()), "\(hit)\u{e9}",
        ]
        let others = [("OPTIONS", "*"), ("HEAD", "*"), ("HEAD", "127.0.0.1:80"), ("CONNECT", "127.0.0.1:80")]
        let heads = gets.map { ("GET \($0)", Self.get($0)) } + others.map { ("\($0.0) \($0.1)", Self.request($0.0, $0.1)) }
            + [("CONNECT with bytes after", Self.request("CONNECT", "127.0.0.1:80", body: "\u{16}\u{3}\u{1}tunnel"))]
        return heads.map { Stream("targets", "\(ResponseStream.escaped($0.0.utf8)), then a hit", $0.1 + getHit) }
    }

    /// HTTP versions and methods, each followed by a hit.
    var versionsAndMethods: [Stream] {
        let host = Self.host, keepAlive = "Connection: keep-alive"
        // HTTP/1.0 hits with these field lines.
        let http10: [[String]] = [
            [host], [], [host, keepAlive], [host, host, keepAlive], [host, keepAlive, "Connection: close"],
            [host, "Proxy-Connection: keep-alive"],
        ]
        let versions = ["HTTP/1.2", "HTTP/2.0", "HTTP/1.10", "HTTP/01.1", "http/1.1", "HTTP/11"]
        let methods = ["get", "Get", "head", "GETS", "FOO", "POST", "DELETE", "OPTIONS", "TRACE"]
        var heads = http10.map { fields in
            ("HTTP/1.0 with " + fields.joined(separator: " | "), Self.request("GET", hit, version: "HTTP/1.0", fields))
        }
        heads += versions.map { ($0, Self.request("GET", hit, version: $0)) } + methods.map { ($0, Self.request($0, hit)) }
        heads += [
            ("HTTP/1.0 keep-alive HEAD", Self.request("HEAD", hit, version: "HTTP/1.0", [host, keepAlive])),
            ("HTTP/0.9", "GET \(hit)\r\n"),
            ("HTTP/0.9 and a blank line", "GET \(hit)\r\n\r\n"),
            ("PRI preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
            ("PUT with CL 0", Self.request("PUT", hit, [host, "Content-Length: 0"])),
            ("PATCH with a body", Self.request("PATCH", hit, [host, "Content-Length: 2"], body: "{}")),
        ]
        return heads.map { Stream("versions and methods", "\($0.0), then a hit", $0.1 + getHit) }
    }

    /// Every byte value in a hit's query (where the hit path still matches) and in its signature segment (a 403
    /// unless the byte ends the path), each followed by a hit.
    var targetBytes: [Stream] {
        let signatureEnd = hit.dropFirst().firstIndex(of: "/") ?? hit.endIndex
        let beforeByte = [Array("GET \(hit)?a".utf8), Array("GET \(hit[..<signatureEnd])".utf8)]
        let afterByte = [Array("b HTTP/1.1\r\n\(Self.host)\r\n\r\n".utf8), Array("\(hit[signatureEnd...]) HTTP/1.1\r\n\(Self.host)\r\n\r\n".utf8)]
        return zip(["query", "signature"], zip(beforeByte, afterByte)).flatMap { place, around in
            (0...255).map { byte in
                Stream("target bytes", "byte \(byte) in the \(place), then a hit",
                       pieces: [around.0 + [UInt8(byte)] + around.1 + Array(getHit.utf8)])
            }
        }
    }

    /// Every byte value inside a field name, a field value and the `Host` value of a hit, each followed by a hit.
    var fieldBytes: [Stream] {
        let head = Array("GET \(hit) HTTP/1.1\r\n".utf8)
        let around = [("a name", "Host: 127.0.0.1\r\nX-", "A: b"), ("a value", "Host: 127.0.0.1\r\nX-A: b", "c"),
                      ("Host", "Host: 127.0.", "1")]
        return around.flatMap { place, before, after in
            (0...255).map { byte in
                Stream("field bytes", "byte \(byte) in \(place), then a hit",
                       pieces: [head + Array(before.utf8) + [UInt8(byte)] + Array("\(after)\r\n\r\n\(getHit)".utf8)])
            }
        }
    }

    /// Heads near and above the wire path's 16 KiB and the decoder's 80 KiB, and with the number of fields near
    /// and above the wire path's 64 and 1000; each followed by a hit.
    var sizes: [Stream] {
        let base = Self.get(hit, [Self.host, "X-Pad: "]).utf8.count
        let lengths = [16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 16 * 1024 + 100, 80 * 1024 - 1, 80 * 1024, 80 * 1024 + 1, 100_000]
        let long = lengths.map { length in
            Stream("sizes", "a \(length)-byte head, then a hit",
                   Self.get(hit, [Self.host, "X-Pad: " + String(repeating: "a", count: length - base)]) + getHit)
        }
        // Counting Host: `count` fields in all.
        let many = [63, 64, 65, 100, 999, 1000, 1001, 2000].map { count in
            Stream("sizes", "\(count) fields, then a hit",
                   Self.get(hit, [Self.host] + (1..<count).map { "X-F\($0): v" }) + getHit)
        }
        return long + many
    }

    /// Heads cut in pieces: a hit split in two at every byte; a hit with two `Content-Length: 0` (a 400), followed
    /// by a hit, split in two at every byte of its head; a purge whose body is a hit's bytes, followed by a hit,
    /// split at every byte; a hit a byte at a time; a pipeline cut around its blank lines.
    var splits: [Stream] {
        let plain = Array(getHit.utf8)
        let refused = Array(Self.get(hit, [Self.host, "Content-Length: 0", "Content-Length: 0"]).utf8)
        var streams = (1..<plain.count).map { cut in
            Stream("splits", "a hit split at byte \(cut)", pieces: [Array(plain[..<cut]), Array(plain[cut...])])
        }
        streams += (1..<refused.count).map { cut in
            Stream("splits", "two CL 0 split at byte \(cut), then a hit",
                   pieces: [Array(refused[..<cut]), Array(refused[cut...]) + plain])
        }
        let withBody = Array(Self.request("POST", purge, [Self.host, "Content-Length: \(plain.count)"], body: getHit).utf8)
        streams += (1..<withBody.count).map { cut in
            Stream("splits", "a purge with a hit as its body split at byte \(cut), then a hit",
                   pieces: [Array(withBody[..<cut]), Array(withBody[cut...]) + plain])
        }
        streams.append(Stream("splits", "a hit a byte at a time", pieces: plain.map { [$0] }))
        // Nothing is answered after a request that closes the connection, whenever the rest arrives.
        for closing in ["Connection: close", "Proxy-Connection: close"] {
            streams.append(Stream("splits", "a hit with \(closing), then a hit sent apart",
                                  Self.get(hit, [Self.host, closing]), getHit))
        }
        streams.append(Stream("splits", "an HTTP/1.0 hit, then a hit sent apart", Self.request("GET", hit, version: "HTTP/1.0"), getHit))
        let pipeline = Array((getHit + Self.get("/healthz") + getHit).utf8)
        let blankLines = (3..<pipeline.count).filter { pipeline[($0 - 3)...$0].elementsEqual([13, 10, 13, 10]) }
        for end in blankLines {
            for offset in [-3, -2, -1, 1] where end + offset > 0 && end + offset < pipeline.count {
                let cut = end + offset
                streams.append(Stream("splits", "hit + healthz + hit split at byte \(cut)",
                                      pieces: [Array(pipeline[..<cut]), Array(pipeline[cut...])]))
            }
        }
        return streams
    }
}
