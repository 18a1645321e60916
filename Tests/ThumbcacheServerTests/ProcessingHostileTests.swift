import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// Issue 20's hostile review on a real server: URLs that would cost a render's worth of CPU or memory many times
/// over, `skp` against an asked format, header injection through `fn`, what a signature covers, and the variant
/// store under concurrent renders while a purge runs.
@Suite(.serialized) struct ProcessingHostileTests {
    static func path(_ options: String, _ source: String, ext: String? = nil, signer: URLSigner = URLSigner(key: nil)) -> String {
        ProcessingURLTests.path(options, source, ext: ext, signer: signer)
    }

    @Test func costlyOptionsAreRefusedBeforeRenderingAndTheServerStaysUp() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)  // 227×149
        let server = try await ServerHarness { $0.maxSize = 1000 }
        let source = origin.url("/a.jpg")
        let cases: [(options: String, code: String, mentions: [String])] = [
            ("w:100/bl:5000", "bad_argument", ["bl", "5000", "100"]),
            ("w:100/sharpen:101", "bad_argument", ["sharpen", "101"]),
            // A 100×100 result cut by g:sm from an image min-width scales to 2^40 a side: this trapped on Int overflow.
            ("rs:fill:100:100/mw:1099511627776/g:sm", "result_too_large", ["1000", "min-width"]),
            ("rs:fill:100:100/mh:5000/g:entropy", "result_too_large", ["1000"]),
        ]
        for item in cases {
            let answer = try await server.request(Self.path(item.options, source))
            #expect(answer.status == 400, "\(item.options): \(answer.json)")
            #expect(answer.json["error"] == item.code, "\(item.options): \(answer.json)")
            for word in item.mentions { #expect(answer.json["message"]?.contains(word) == true, "\(item.options): \(answer.json)") }
        }
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 0, "refused from the header, nothing rendered")
        // What stays allowed costs what an ordinary render does: the largest sigma, a block larger than the image,
        // a min-width without a detector (only the 100×100 crop is read), the tiniest max_bytes (at most 3 encodes).
        for (options, width, height) in [("w:100/bl:100/sh:100", 100, 66), ("w:100/pix:1000000000", 100, 66),
                                         ("rs:fill:100:100/mw:1099511627776/g:no", 100, 100), ("w:100/mb:1", 100, 66)] {
            let answer = try await server.request(Self.path(options, source))
            #expect(answer.status == 200, "\(options): \(answer.json)")
            #expect(answer.imageSize?.width == width && answer.imageSize?.height == height, "\(options)")
        }
        await server.stop()
        await origin.stop()
    }

    @Test func skipProcessingOnlyWhenNoOtherFormatIsAsked() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let source = origin.url("/a.jpg")
        let skipped = try await server.request(Self.path("skp:jpg/w:50", source))
        #expect(skipped.status == 200 && skipped.body == Fixtures.jpeg)
        // A format negotiated from Accept does not stop the skip (imgproxy decides it after), ...
        let negotiated = try await server.request(Self.path("skp:jpg/w:50", source), headers: [("Accept", "image/webp")])
        #expect(negotiated.body == Fixtures.jpeg && negotiated.header("Content-Type") == "image/jpeg")
        // ... a named one does: imgproxy skips only when the asked format is the source's.
        let named = try await server.request(Self.path("skp:jpg/w:50/f:png", source))
        #expect(named.status == 200 && named.header("Content-Type") == "image/png" && named.imageSize?.width == 50)
        let byExtension = try await server.request(Self.path("skp:jpg/w:50", source, ext: "webp"))
        #expect(byExtension.header("Content-Type") == "image/webp" && byExtension.imageSize?.width == 50)
        let sameFormat = try await server.request(Self.path("skp:jpg/w:50", source, ext: "jpg"))
        #expect(sameFormat.body == Fixtures.jpeg)
        await server.stop()
        await origin.stop()
    }

    @Test func rawAndSkipStreamOnlyImagesFromAllowedSources() async throws {
        let origin = try await TestOrigin()
        // A page labelled as an image: the body is probed before anything is answered, raw or not.
        origin.image("/page.jpg", Data("<html><script>alert(1)</script></html>".utf8), type: "image/jpeg")
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        for options in ["raw:1", "skp:jpg"] {
            let answer = try await server.request(Self.path(options, origin.url("/page.jpg")))
            #expect(answer.status != 200 && answer.header("Content-Type")?.hasPrefix("image/") != true,
                    "\(options): \(answer.status) \(answer.header("Content-Type") ?? "")")
        }
        await server.stop()
        // The source policy applies to raw as to any render: loopback refused unless allowed.
        let strict = try await ServerHarness { $0.allowLoopbackSources = false }
        let refused = try await strict.request(Self.path("raw:1", origin.url("/a.jpg")))
        #expect(refused.status == 403 && refused.json["error"] == "source_refused", "\(refused.json)")
        #expect(origin.count("/a.jpg") == 0)
        await strict.stop()
        await origin.stop()
    }

    @Test func filenamesCannotInjectHeaders() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let source = origin.url("/a.jpg")
        let hostile = "a\"b\\c\r\nSet-Cookie: x=1"
        let encoded = try await server.request(Self.path("w:40/fn:\(Base64URL.encode(hostile)):1", source))
        #expect(encoded.status == 200)
        #expect(encoded.header("Content-Disposition")
                == "inline; filename=\"a\\\"b\\\\cSet-Cookie: x=1.jpg\"; filename*=UTF-8''a%22b%5Cc%0D%0ASet-Cookie%3A%20x%3D1.jpg")
        #expect(encoded.header("Set-Cookie") == nil)
        // The same through percent-encoding, and a name as long as a URL allows, stay one header line.
        // (`%3A` in an option is a ":" again, as imgproxy restores it, so the header's colon is a literal here.)
        let percent = try await server.request(Self.path("w:40/fn:a%0D%0AX-Injected%20%201/att:1", source))
        #expect(percent.status == 200 && percent.header("X-Injected") == nil)
        #expect(percent.header("Content-Disposition")?.hasPrefix("attachment; filename=\"aX-Injected  1.jpg\"") == true)
        let colon = try await server.request(Self.path("w:40/fn:a%0D%0AX-Injected%3A%201/att:1", source))
        #expect(colon.status == 200 && colon.header("X-Injected") == nil)
        #expect(colon.header("Content-Disposition")?.hasPrefix("attachment; filename=\"aX-Injected.jpg\"") == true)
        let long = String(repeating: "é", count: 127) + "x"  // 255 bytes, the most a name may have
        let longAnswer = try await server.request(Self.path("w:40/fn:\(Base64URL.encode(long)):1", source))
        let value = longAnswer.header("Content-Disposition") ?? ""
        #expect(longAnswer.status == 200 && value.contains(String(repeating: "_", count: 127) + "x.jpg"))
        #expect(!value.contains("\r") && !value.contains("\n"))
        await server.stop()
        await origin.stop()
    }

    /// Issue 33: what a URL puts into a header is bounded, and refused beyond the bound by name before anything is
    /// fetched; a name from the source (no `fn`) is cut to the same bound instead, the source being no option.
    @Test func whatAURLPutsIntoAHeaderIsBounded() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let longSegment = String(repeating: "n", count: 2000)
        origin.image("/\(longSegment).jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let source = origin.url("/a.jpg")
        let over = String(repeating: "é", count: 128)  // 256 bytes
        for options in ["w:40/fn:\(Base64URL.encode(over)):1", "w:40/fn:" + String(repeating: "%C3%A9", count: 128),
                        "w:40/fn:" + String(repeating: "a", count: 256) + "/att:1",
                        "w:40/fn:" + String(repeating: "%C3%A9", count: 2_000)] {
            let answer = try await server.request(Self.path(options, source))
            #expect(answer.status == 400 && answer.json["error"] == "bad_argument", "\(options.prefix(60)): \(answer.json)")
            let message = answer.json["message"] ?? ""
            #expect(message.contains("option fn") && message.contains("255 UTF-8 bytes"), "\(message)")
            #expect(answer.header("Content-Disposition") == nil)
        }
        // The issue's: 10,000 non-ASCII characters, a 60 KB path, was a 70 KB header on every hit. Any target over
        // 16 KiB is now refused with the connection's other malformed heads, before the router (`RequestHeadRules`).
        for options in ["w:40/fn:" + String(repeating: "%C3%A9", count: 10_000), "w:40/cb:" + String(repeating: "c", count: 17_000)] {
            let answer = try await server.request(Self.path(options, source))
            #expect(answer.status == 400 && answer.header("Content-Disposition") == nil, "\(answer.status)")
        }
        #expect(origin.count("/a.jpg") == 0, "refused before the source is fetched")
        let atLimit = try await server.request(Self.path("w:40/fn:" + String(repeating: "a", count: 255), source))
        #expect(atLimit.status == 200)
        #expect(atLimit.header("Content-Disposition") == "inline; filename=\"\(String(repeating: "a", count: 255)).jpg\"")
        // The other options that change no pixels reach no header: a long cache buster and an expiry change the
        // URL only (the answer's fields are those of the URL without them, but for the per-answer timing).
        let plain = try await server.request(Self.path("w:40", source))
        let busted = try await server.request(Self.path("w:40/cb:\(String(repeating: "c", count: 15_000))/exp:4102444800", source))
        #expect(busted.status == 200 && busted.body == plain.body)
        let fields = { (answer: ServerHarness.Answer) in
            answer.headers.filter { !["Server-Timing", "Date", "X-Thumbcache", "Cache-Control"].contains($0.name) }.map { "\($0.name): \($0.value)" }
        }
        #expect(fields(busted) == fields(plain))
        #expect(!busted.headers.contains { $0.value.contains("cccc") || $0.value.contains("4102444800") })
        // The source's own name, as long as a URL allows, is cut to the bound.
        let named = try await server.request(Self.path("w:40/att:1", origin.url("/\(longSegment).jpg")))
        #expect(named.status == 200)
        #expect(named.header("Content-Disposition") == "attachment; filename=\"\(String(repeating: "n", count: 255)).jpg\"")
        await server.stop()
        await origin.stop()
    }

    /// Issue 33: a hit's answer does no work that grows with the URL. The `Content-Disposition` of a path is built
    /// once per format it is answered in, and every later answer reuses it: memory hits from the bytes and by the
    /// router (`Connection: close`), and disk hits after the memory cache is emptied.
    @Test func aPathsDispositionIsBuiltOncePerFormat() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let name = String(repeating: "é", count: 100) + "-x"
        let path = Self.path("w:40/fn:\(Base64URL.encode(name)):1", origin.url("/a.jpg"))
        let expected = "inline; filename=\"\(String(repeating: "_", count: 100))-x.jpg\"; filename*=UTF-8''"
            + String(repeating: "%C3%A9", count: 100) + "-x.jpg"
        let first = try await server.request(path)
        #expect(first.status == 200 && first.header("Content-Disposition") == expected)
        let fromBytes = server.hitsFromBytes, byRouter = server.hitsByRouter
        for _ in 0..<5 {
            #expect(try await server.request(path).header("Content-Disposition") == expected)
            #expect(try await server.request(path, headers: [("Connection", "close")]).header("Content-Disposition") == expected)
        }
        #expect(server.hitsFromBytes - fromBytes == 5 && server.hitsByRouter - byRouter == 5, "both ways of answering a hit")
        server.endpoints.pipeline.memory.removeAll()
        let disk = try await server.request(path)
        #expect(disk.header("X-Thumbcache") == "disk" && disk.header("Content-Disposition") == expected)
        // A negotiated path: one value per format it is answered in.
        let negotiated = Self.path("w:40/att:1", origin.url("/a.jpg"))
        for accept in ["image/webp", "image/jpeg", "image/webp", "image/jpeg"] {
            let answer = try await server.request(negotiated, headers: [("Accept", accept)])
            #expect(answer.header("Content-Disposition") == "attachment; filename=\"a.\(accept == "image/webp" ? "webp" : "jpg")\"")
        }
        let check = try server.endpoints.checks.check(target: path, accept: nil)
        #expect(check.disposition?.builds == 1, "one format, built once for 12 answers")
        #expect(try server.endpoints.checks.check(target: negotiated, accept: nil).disposition?.builds == 2)
        await server.stop()
        await origin.stop()
    }

    @Test func theSignatureCoversEverythingThatChangesTheAnswer() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { ($0.key, $0.salt) = (ProcessingURLTests.keyA, ProcessingURLTests.saltA) }
        let signer = URLSigner(key: ProcessingURLTests.keyA, salt: ProcessingURLTests.saltA)
        let plain = origin.url("/a.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let signedPart = "/w:40/plain/\(plain)@png"
        let signature = signer.signature(for: signedPart)
        let good = try await server.request("/\(signature)\(signedPart)")
        #expect(good.status == 200 && good.header("Content-Type") == "image/png")
        // A query is no part of the answer: the same bytes, nothing new to sign.
        let queried = try await server.request("/\(signature)\(signedPart)?w=500&f=webp")
        #expect(queried.status == 200 && queried.body == good.body)
        // Another extension, another spelling of the same escapes, an option more: each needs its own signature.
        for altered in ["/w:40/plain/\(plain)@webp", "/w:40/plain/\(plain.lowercased())@png", "/w:40/plain/\(plain)",
                        "/w:40/bl:2/plain/\(plain)@png", "/w:40/plain/\(plain)@png/"] {
            let answer = try await server.request("/\(signature)\(altered)")
            #expect(answer.status == 403 || answer.status == 400, "\(altered): \(answer.status)")
            #expect(answer.status != 200)
        }
        await server.stop()
        await origin.stop()
    }

    @Test func concurrentRendersOfOneSourceWhileItIsPurgedKeepEachVariantItsOwn() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.adminToken = "s3cret" }
        let source = origin.url("/a.jpg")
        let variants: [(options: String, width: Int, height: Int, type: String)] = [
            ("rs:fill:40:40", 40, 40, "image/jpeg"), ("rs:fill:60:30", 60, 30, "image/jpeg"),
            ("w:50/bl:2", 50, 33, "image/jpeg"), ("rs:fill:30:60/f:png", 30, 60, "image/png"),
            ("rs:fill:30:60/f:webp/pix:4", 30, 60, "image/webp"),
        ]
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: (Int, ServerHarness.Answer).self) { group in
                for (index, variant) in variants.enumerated() {
                    for _ in 0..<3 {
                        group.addTask { (index, try await server.request(Self.path(variant.options, source))) }
                    }
                }
                group.addTask {
                    (-1, try await server.request("/admin/purge/\(Base64URL.encode(source))", method: .POST,
                                                  headers: [("Authorization", "Bearer s3cret")]))
                }
                for try await (index, answer) in group {
                    if index < 0 { #expect(answer.status == 200, "purge: \(answer.status)"); continue }
                    let variant = variants[index]
                    #expect(answer.status == 200, "round \(round) \(variant.options): \(answer.json)")
                    #expect(answer.header("Content-Type") == variant.type, "round \(round) \(variant.options)")
                    #expect(answer.imageSize?.width == variant.width && answer.imageSize?.height == variant.height,
                            "round \(round) \(variant.options): \(String(describing: answer.imageSize))")
                }
            }
        }
        // Afterwards each option still answers its own image, from whichever store kept it.
        for variant in variants {
            let answer = try await server.request(Self.path(variant.options, source))
            #expect(answer.status == 200 && answer.header("Content-Type") == variant.type)
            #expect(answer.imageSize?.width == variant.width && answer.imageSize?.height == variant.height, "\(variant.options)")
        }
        await server.stop()
        await origin.stop()
    }
}
