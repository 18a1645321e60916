import Foundation
import HTTPTypes
import ImageDecode
import Processing
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// imgproxy's server- and request-level settings on a real server on 127.0.0.1: `max_result_dimension` and its
/// server default, the security options and the per-request source limits, `local://` under `--local-root`, the
/// source base URL, client hints and enforced formats.
@Suite(.serialized) struct RequestSettingsServeTests {
    static let unsigned = URLSigner(key: nil)

    /// `/unsafe/<options>/plain/<source>` (the source as written: a test spells its escapes itself).
    static func plain(_ options: String, _ source: String) -> String {
        "/unsafe/" + (options.isEmpty ? "" : options + "/") + "plain/" + source
    }

    static func base64(_ options: String, _ source: String) -> String {
        ProcessingURLTests.path(options, source, signer: unsigned)
    }

    // MARK: max_result_dimension and the source limits

    @Test func theServersResultDimensionScalesDownAndIsPartOfTheKey() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.maxResultDimension = 50 }
        let source = origin.url("/a.jpg")
        let first = try await server.request(Self.base64("rs:fit:100:100", source))
        #expect(first.status == 200)
        #expect(first.imageSize?.width == 50, "227 × 149 fit in 100, then down to 50 a side")
        #expect(try await server.request(Self.base64("rs:fit:100:100", source)).header("X-Thumbcache") == "memory")
        // A URL may not name the security option itself on this server: 403 naming it, nothing rendered.
        let renders = server.metric("thumbcache_render_duration_seconds_count")
        let refused = try await server.request(Self.base64("mrd:80/rs:fit:100:100", source))
        #expect(refused.status == 403 && refused.json["error"] == "security_option", "\(refused.json)")
        #expect(refused.json["message"]?.contains("max_result_dimension") == true)
        #expect(refused.json["message"]?.contains("--allow-security-options") == true)
        #expect(server.metric("thumbcache_render_duration_seconds_count") == renders)
        // The short grammar is not an imgproxy URL: the server's default does not apply to it.
        #expect(try await server.request(server.path(source, size: 100)).imageSize?.width == 100)
        await server.stop()
        await origin.stop()
    }

    @Test func aURLsResultDimensionWhereSecurityOptionsAreAllowed() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness {
            $0.allowSecurityOptions = true
            $0.maxResultDimension = 50
            $0.maxSize = 200
        }
        let source = origin.url("/a.jpg")
        #expect(try await server.request(Self.base64("mrd:40/rs:fit:100:100", source)).imageSize?.width == 40)
        // 0 lifts the server's default, within the hard limit.
        #expect(try await server.request(Self.base64("mrd:0/rs:fit:100:100", source)).imageSize?.width == 100)
        // Above the hard limit (--max-size) the result is still refused, whatever mrd says.
        let over = try await server.request(Self.base64("mrd:500/rs:fit:300:300/el:1", source))
        #expect(over.status == 400 && over.json["error"] == "result_too_large", "\(over.json)")
        let bad = try await server.request(Self.base64("mrd:big/rs:fit:100:100", source))
        #expect(bad.status == 400 && bad.json["error"] == "bad_argument" && bad.json["message"]?.contains("mrd") == true)
        await server.stop()
        await origin.stop()
    }

    @Test func perRequestSourceLimitsLowerTheServersAndNeverRaiseThem() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        origin.image("/b.jpg", Fixtures.jpeg)
        let server = try await ServerHarness(configure: { $0.allowSecurityOptions = true }, pipeline: {
            $0.fetchLimits.maxDownloadBytes = Fixtures.jpeg.count - 1
        })
        let source = origin.url("/a.jpg")
        // The server's limit is below the file: a URL's larger limit does not raise it.
        let raised = try await server.request(Self.base64("msfs:100000000/rs:fit:50:50", source))
        #expect(raised.status == 413 && raised.json["message"]?.contains("--max-download-size") == true, "\(raised.json)")
        await server.stop()

        let open = try await ServerHarness { $0.allowSecurityOptions = true }
        let other = origin.url("/b.jpg")
        // imgproxy's TestImageResolutionTooLarge: max_src_resolution:0.00001 (10 pixels) is a 422.
        let pixels = try await open.request(Self.base64("max_src_resolution:0.00001/rs:fit:50:50", other))
        #expect(pixels.status == 422 && pixels.json["error"] == "too_many_pixels", "\(pixels.json)")
        let bytes = try await open.request(Self.base64("msfs:1000/rs:fit:50:50", other))
        #expect(bytes.status == 413 && bytes.json["error"] == "too_large", "\(bytes.json)")
        // Each refusal names the URL's option to change, not a server flag it cannot set.
        #expect(pixels.json["message"]?.contains("max_src_resolution (msr)") == true, "\(pixels.json)")
        #expect(bytes.json["message"]?.contains("max_src_file_size (msfs)") == true, "\(bytes.json)")
        #expect(bytes.json["message"]?.contains("--max-download-size") == false, "\(bytes.json)")
        // The original, within the server's limits, was kept: the same source without them is one download.
        #expect(try await open.request(Self.base64("rs:fit:50:50", other)).status == 200)
        #expect(try await open.request(Self.base64("msr:1/msfs:1000000/rs:fit:50:50", other)).status == 200)
        #expect(origin.count("/b.jpg") == 1)
        // A refusal is not cached: asked again, refused again.
        #expect(try await open.request(Self.base64("msfs:1000/rs:fit:50:50", other)).status == 413)
        let negative = try await open.request(Self.base64("msfs:-1/rs:fit:50:50", other))
        #expect(negative.status == 400 && negative.json["message"]?.contains("msfs") == true)
        await open.stop()
        await origin.stop()
    }

    // MARK: local://

    /// A root with `a.jpg`, `sub/b.jpg`, a link to a file outside, a link to a directory outside, and the outside.
    struct LocalTree {
        let base: URL
        var root: URL { base.appendingPathComponent("root") }
        var outside: URL { base.appendingPathComponent("outside") }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-local-\(UUID().uuidString)")
            let files = FileManager.default
            try files.createDirectory(at: base.appendingPathComponent("root/sub"), withIntermediateDirectories: true)
            try files.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
            try Fixtures.jpeg.write(to: root.appendingPathComponent("a.jpg"))
            try Fixtures.jpeg.write(to: root.appendingPathComponent("sub/b.jpg"))
            try Fixtures.png.write(to: outside.appendingPathComponent("secret.jpg"))
            try files.createSymbolicLink(at: root.appendingPathComponent("link.jpg"),
                                         withDestinationURL: outside.appendingPathComponent("secret.jpg"))
            try files.createSymbolicLink(at: root.appendingPathComponent("linkdir"), withDestinationURL: outside)
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    @Test func localSourcesAreServedFromTheRootOnly() async throws {
        let tree = try LocalTree()
        let server = try await ServerHarness {
            $0.localRoot = tree.root.path
            $0.allowLoopbackSources = false
        }
        #expect(try await server.request(Self.plain("rs:fit:50:50", "local:///a.jpg")).imageSize?.width == 50)
        #expect(try await server.request(Self.plain("rs:fit:40:40", "local:///sub/b.jpg")).imageSize?.width == 40)
        #expect(try await server.request(Self.base64("rs:fit:30:30", "local:///sub/b.jpg")).imageSize?.width == 30)
        let secretPath = tree.outside.appendingPathComponent("secret.jpg").path
        // (spelling, status, what the message says): every way out is refused, before or at the open.
        let escapes: [(String, Int, String)] = [
            ("local:///..%2Foutside%2Fsecret.jpg", 400, "\"..\" segment"),          // .. once decoded
            ("local:///%2e%2e/outside/secret.jpg", 400, "\"..\" segment"),          // encoded dots
            ("local:///%2E%2E%2Foutside%2Fsecret.jpg", 400, "\"..\" segment"),      // encoded dots and slashes
            ("local:///sub/..%2F..%2Foutside/secret.jpg", 400, "\"..\" segment"),   // climbing from a subdirectory
            ("local:///./a.jpg", 400, "\".\" segment"),
            ("local:///%252e%252e/outside/secret.jpg", 404, "no such file"),      // decoded once only: a name
            ("local:///..%5Coutside%5Csecret.jpg", 400, "backslash"),
            ("local:///a.jpg%00.png", 400, "NUL"),
            ("local:///link.jpg", 403, "symbolic link"),                          // a link to a file outside
            ("local:///linkdir/secret.jpg", 403, "symbolic link"),                // a link to a directory outside
            ("local://" + secretPath, 404, "no such file"),                       // absolute: read under the root
            ("local://host/a.jpg", 400, "three slashes"),
            ("file://" + secretPath, 403, "only http and https"),                 // file: is never a source
        ]
        for (spelling, status, says) in escapes {
            let answer = try await server.request(Self.plain("rs:fit:50:50", spelling))
            #expect(answer.status == status, "\(spelling): \(answer.status) \(answer.json)")
            #expect(answer.json["message"]?.contains(says) == true, "\(spelling): \(answer.json)")
            // No answer names the machine's paths (the root, or where a link points).
            #expect(answer.json["message"]?.contains(tree.root.path) != true, "\(spelling): \(answer.json) root \(tree.root.path)")
            #expect(answer.json["message"]?.contains(tree.outside.path) != true, "\(spelling): \(answer.json)")
        }
        // The raw `..` as a client could send it (not normalised by the HTTP client).
        let raw = try await RawConnection.exchange(server.port,
                                                   "GET /unsafe/rs:fit:50:50/plain/local:///../outside/secret.jpg HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(raw.text.hasPrefix("HTTP/1.1 400"), "\(raw.text.prefix(200))")
        await server.stop()

        let off = try await ServerHarness()
        let refused = try await off.request(Self.plain("rs:fit:50:50", "local:///a.jpg"))
        #expect(refused.status == 403 && refused.json["message"]?.contains("--local-root") == true, "\(refused.json)")
        await off.stop()
        tree.remove()
    }

    @Test func signPrintsLocalSourcesAndRefusesTheirEscapes() throws {
        let good = try ServeProcess.run(["sign", "local:///sub/b.jpg", "--options", "rs:fit:40:40", "--plain"])
        #expect(good.status == 0 && String(decoding: good.stdout, as: UTF8.self) == "/unsafe/rs:fit:40:40/plain/local:///sub/b.jpg\n")
        let escape = try ServeProcess.run(["sign", "local:///../b.jpg", "--options", "rs:fit:40:40"])
        #expect(escape.status == 64 && escape.stderr.contains("\"..\" segment"), "\(escape.stderr)")
    }

    // MARK: base URL

    @Test func theBaseURLIsPrependedAndTheJoinedURLIsChecked() async throws {
        let origin = try await TestOrigin()
        origin.image("/img/a.jpg", Fixtures.jpeg)
        let base = origin.url("/img/")
        let server = try await ServerHarness { $0.sourceBaseURL = base }
        #expect(try await server.request(Self.plain("rs:fit:50:50", "a.jpg")).imageSize?.width == 50)
        #expect(try await server.request(Self.base64("rs:fit:40:40", "a.jpg")).imageSize?.width == 40)
        // A source that starts with the base already is not joined twice.
        #expect(try await server.request(Self.base64("rs:fit:30:30", base + "a.jpg")).imageSize?.width == 30)
        #expect(try await server.request(server.path("a.jpg", size: 20)).imageSize?.width == 20)
        // A source that would move the join out of the base: up its path (dot segments, escaped or not), to another
        // port or host. Each is refused before anything is fetched.
        origin.image("/secret.png", Fixtures.png)
        let port = base.split(separator: ":")[2].prefix { $0.isNumber }
        for escape in ["%2e%2e/secret.png", "..%2Fsecret.png", "../secret.png", "a/../../secret.png"] {
            let answer = try await server.request(Self.plain("rs:fit:50:50", escape))
            #expect(answer.status == 403 && answer.json["error"] == "source_refused", "\(escape): \(answer.json)")
        }
        await server.stop()
        // With a base of only a host (no port, no path), a source naming a port or a longer host is refused too.
        let hostOnly = try await ServerHarness { $0.sourceBaseURL = "http://127.0.0.1" }
        for escape in [":\(port)/secret.png", "1:\(port)/secret.png"] {
            let answer = try await hostOnly.request(Self.plain("rs:fit:50:50", escape))
            #expect(answer.status == 403 && answer.json["error"] == "source_refused", "\(escape): \(answer.json)")
        }
        await hostOnly.stop()
        #expect(origin.count("/secret.png") == 0, "nothing outside the base was asked for")

        // The joined URL meets the source policy: a loopback base is refused where loopback sources are.
        let guarded = try await ServerHarness {
            $0.sourceBaseURL = base
            $0.allowLoopbackSources = false
        }
        let refused = try await guarded.request(Self.plain("rs:fit:50:50", "a.jpg"))
        #expect(refused.status == 403 && refused.json["error"] == "source_refused", "\(refused.json)")
        await guarded.stop()
        let prefixed = try await ServerHarness {
            $0.sourceBaseURL = base
            $0.allowedSources = [origin.url("/other/")]
        }
        #expect(try await prefixed.request(Self.plain("rs:fit:50:50", "a.jpg")).status == 403)
        await prefixed.stop()
        #expect(origin.count("/img/a.jpg") == 1)
        await origin.stop()
    }

    // MARK: client hints

    @Test func clientHintsSetDprAndWidthAndVary() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.clientHints = true }
        let source = origin.url("/a.jpg")
        func width(_ options: String, _ headers: [(String, String)]) async throws -> ServerHarness.Answer {
            try await server.request(Self.base64(options, source), headers: headers)
        }
        let hinted = try await width("q:80", [("Sec-CH-Width", "100")])
        #expect(hinted.imageSize?.width == 100)
        #expect(hinted.header("Vary") == "Accept, Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        #expect(try await width("q:80/f:png", [("Sec-CH-Width", "100")]).header("Vary") == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        #expect(hinted.header("Accept-CH") == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        // Width is in device pixels: 100 at dpr 2 is w:50 with dpr:2, the same size, another key.
        #expect(try await width("q:80", [("DPR", "2"), ("Width", "100")]).imageSize?.width == 100)
        // A different DPR never gets another's variant.
        #expect(try await width("w:50", [("Sec-CH-DPR", "2")]).imageSize?.width == 100)
        let one = try await width("w:50", [("Sec-CH-DPR", "1")])
        #expect(one.imageSize?.width == 50 && one.header("X-Thumbcache") != "memory")
        // A memory hit (answered from the request's bytes) varies alike.
        let again = try await width("w:50", [("Sec-CH-DPR", "2")])
        #expect(again.header("X-Thumbcache") == "memory" && again.header("Vary") == "Accept, " + ClientHints.fieldList)
        #expect(again.header("Accept-CH") == ClientHints.fieldList)
        // Out of range (over 8) falls to the next field, as in imgproxy; garbage is no hint.
        #expect(try await width("w:50", [("Sec-CH-DPR", "9"), ("DPR", "2")]).imageSize?.width == 100)
        #expect(try await width("w:50", [("Sec-CH-DPR", "two")]).imageSize?.width == 50)
        // The URL's own dpr and width win over the hints.
        #expect(try await width("dpr:1/w:50", [("Sec-CH-DPR", "2")]).imageSize?.width == 50)
        #expect(try await width("w:60", [("Width", "100")]).imageSize?.width == 60)
        // The short grammar takes no hints and varies on Accept alone.
        let short = try await server.request(server.path(source, size: 64, format: .jpeg), headers: [("Sec-CH-DPR", "2")])
        #expect(short.imageSize?.width == 64 && short.header("Vary") == nil)
        // A dpr just above 0 with a width makes a width no Int holds (it trapped): capped, then the planner does what a
        // URL's `w:2147483647/dpr:1e-300` does (fit never enlarges, the dpr shrinks it to a pixel).
        let tiny = try await width("q:80", [("DPR", "1e-300"), ("Width", "100")])
        #expect(tiny.status == 200 && tiny.imageSize?.width == 1, "\(tiny.status) \(tiny.json)")
        #expect(ClientHints(HTTPFields([HTTPField(name: .init("DPR")!, value: "5e-324"),
                                        HTTPField(name: .init("Width")!, value: "\(Int.max)")])).baseOptions.geometry.width
                == ClientHints.maxWidth)
        await server.stop()

        let off = try await ServerHarness()
        let ignored = try await off.request(Self.base64("w:50", source), headers: [("Sec-CH-DPR", "2")])
        #expect(ignored.imageSize?.width == 50 && ignored.header("Vary") == "Accept" && ignored.header("Accept-CH") == nil)
        await off.stop()
        await origin.stop()
    }

    // MARK: enforced formats

    @Test func enforcedFormatsReplaceANamedOneWhenAcceptNamesThem() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.enforceWebP = true }
        let source = origin.url("/a.jpg")
        let webp = try await server.request(Self.base64("rs:fit:50:50/f:jpg", source), headers: [("Accept", "image/webp,*/*")])
        #expect(ImageFormat.sniff(webp.body) == .webp && webp.header("Vary") == "Accept")
        // Forced, not negotiated: the same image as a URL naming WebP (one render, one stored variant; the memory
        // keys differ, since whether WebP is enforced depends on the source: an animation passes AVIF over).
        let named = try await server.request(Self.base64("rs:fit:50:50/f:webp", source))
        #expect(named.header("X-Thumbcache") == "disk" && named.body == webp.body)
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 1)
        let jpeg = try await server.request(Self.base64("rs:fit:50:50", source) + ".jpg", headers: [("Accept", "*/*")])
        #expect(ImageFormat.sniff(jpeg.body) == .jpeg && jpeg.header("Vary") == "Accept")
        #expect(ImageFormat.sniff(try await server.request(server.path(source, size: 40, format: .png),
                                                           headers: [("Accept", "image/webp")]).body) == .webp)
        // raw answers the original whatever Accept says.
        let raw = try await server.request(Self.base64("raw:1", source), headers: [("Accept", "image/webp")])
        #expect(ImageFormat.sniff(raw.body) == .jpeg)
        await server.stop()

        let both = try await ServerHarness {
            $0.enforceWebP = true
            $0.enforceAVIF = true
        }
        let avif = try await both.request(Self.base64("rs:fit:50:50/f:png", source), headers: [("Accept", "image/avif,image/webp")])
        #expect(ImageFormat.sniff(avif.body) == .avif)
        let off = try await ServerHarness()
        let kept = try await off.request(Self.base64("rs:fit:50:50/f:jpg", source), headers: [("Accept", "image/webp")])
        #expect(ImageFormat.sniff(kept.body) == .jpeg && kept.header("Vary") == nil)
        await both.stop()
        await off.stop()
        await origin.stop()
    }

    // MARK: configuration

    @Test func settingsThatCannotWorkAreRefusedAtStart() throws {
        let tree = try LocalTree()
        defer { tree.remove() }
        func problem(_ change: (inout ServeConfiguration) -> Void) -> String? {
            var configuration = ServeConfiguration()
            change(&configuration)
            return configuration.problem()
        }
        #expect(problem { $0.maxResultDimension = 5000 }?.contains("--max-result-dimension") == true)
        #expect(problem { $0.maxResultDimension = 500 } == nil)
        #expect(problem { $0.localRoot = tree.base.appendingPathComponent("missing").path }?.contains("--local-root") == true)
        #expect(problem { $0.localRoot = "relative/dir" }?.contains("absolute") == true)
        #expect(problem { $0.localRoot = "/" }?.contains("every file") == true)
        #expect(problem { $0.localRoot = tree.root.path } == nil)
        #expect(problem { $0.sourceBaseURL = "ftp://example.com/" }?.contains("--source-base-url") == true)
        #expect(problem { $0.sourceBaseURL = "local:///" }?.contains("--local-root") == true)
        #expect(problem { $0.sourceBaseURL = "local:///"; $0.localRoot = tree.root.path } == nil)
        let presets = try Presets(definitions: ["small=mrd:100"])
        #expect(problem { $0.presets = presets }?.contains("--allow-security-options") == true)
        #expect(problem { $0.presets = presets; $0.allowSecurityOptions = true } == nil)
    }

    // MARK: allowed processing options

    @Test func onlyTheAllowedOptionsMayBeInAURLWhilePresetsUseAny() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness {
            $0.allowedProcessingOptions = ["w", "h", "pr"]
            $0.presets = try! Presets(definitions: ["soft=blur:0.5"])
        }
        let source = origin.url("/a.jpg")
        #expect(try await server.request(Self.base64("w:100/h:60", source)).status == 200)
        #expect(try await server.request(Self.base64("w:100/pr:soft", source)).status == 200, "a preset may use any option")
        let renders = server.metric("thumbcache_render_duration_seconds_count")
        for options in ["w:100/bl:2", "width:100", "pr:soft/bl:2"] {
            let refused = try await server.request(Self.base64(options, source))
            #expect(refused.status == 400 && refused.json["error"] == "forbidden_option", "\(options)")
            #expect(refused.json["message"]?.contains("--allowed-processing-options") == true)
        }
        #expect(server.metric("thumbcache_render_duration_seconds_count") == renders, "nothing rendered")
        var configuration = ServeConfiguration()
        configuration.allowedProcessingOptions = ["w", "nonsense"]
        #expect(configuration.problem()?.contains("\"nonsense\"") == true)
        await server.stop()
        await origin.stop()
    }

    // MARK: skip processing formats

    @Test func theServersSkipProcessingFormatsAnswerTheSourceAsItIs() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.png", Fixtures.png)
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.skipProcessingFormats = [.png] }
        let png = origin.url("/a.png")
        let kept = try await server.request(Self.plain("rs:fill:4:4", png))
        #expect(kept.status == 200 && kept.body == Fixtures.png, "a PNG is answered as fetched")
        #expect(try await server.request(Self.plain("rs:fill:4:4", png + "@png")).body == Fixtures.png)
        let converted = try await server.request(Self.plain("rs:fill:4:4", png + "@jpg"))
        #expect(converted.status == 200 && converted.body != Fixtures.png && converted.imageSize?.width == 4,
                "another format is still processed")
        #expect(try await server.request(Self.plain("rs:fill:4:4", origin.url("/a.jpg"))).imageSize?.width == 4)
        await server.stop()
        await origin.stop()
    }

    // MARK: path prefix

    @Test func thumbnailPathsLiveUnderThePrefix() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.pathPrefix = "/imgproxy" }
        let source = origin.url("/a.jpg")
        #expect(try await server.request("/imgproxy" + Self.plain("rs:fit:100:100", source)).imageSize?.width == 100)
        #expect(try await server.request("/imgproxy" + server.path(source, size: 64)).status == 200)
        let outside = try await server.request(Self.plain("rs:fit:100:100", source))
        #expect(outside.status == 404 && outside.json["error"] == "not_found")
        #expect(try await server.request("/imgproxyx" + Self.plain("rs:fit:100:100", source)).status == 404)
        #expect(try await server.request("/healthz").status == 200, "other routes stay where they are")
        var configuration = ServeConfiguration()
        for bad in ["imgproxy", "/", "/imgproxy/", "/a?b"] {
            configuration.pathPrefix = bad
            #expect(configuration.problem()?.contains("--path-prefix") == true, "\(bad)")
        }
        await server.stop()
        await origin.stop()
    }

    // MARK: base64 URLs with a filename

    @Test func aBase64SourcesLastPieceIsAFilenameWhenTheServerSaysSo() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.base64URLIncludesFilename = true }
        let encoded = Base64URL.encode(origin.url("/a.jpg"))
        let named = try await server.request("/unsafe/rs:fit:100:100/\(encoded).png/puppy.jpg")
        #expect(named.status == 200 && named.imageSize?.width == 100 && named.header("Content-Type") == "image/png")
        let split = encoded.index(encoded.startIndex, offsetBy: 10)
        let pieces = try await server.request("/unsafe/rs:fit:100:100/\(encoded[..<split])/\(encoded[split...])/name")
        #expect(pieces.status == 200, "the pieces before the name are joined")
        #expect(try await server.request("/unsafe/rs:fit:100:100/\(encoded)").status == 200, "one piece is the source")
        var path = try ProcessingPath(restored: RestoredPath(segments: ["sig", "w:10", "\(encoded)", "x.jpg"]),
                                      base64URLIncludesFilename: true)
        #expect(path.source == origin.url("/a.jpg"))
        path = try ProcessingPath(restored: RestoredPath(segments: ["sig", "w:10", "plain", "http:", "", "a.example", "x.jpg"]),
                                  base64URLIncludesFilename: true)
        #expect(path.source == "http://a.example/x.jpg", "a plain source keeps its last segment")
        await server.stop()
        await origin.stop()
    }
}
