import Foundation
import ImageDecode
import Testing
import ThumbcacheKit
@testable import ThumbcacheServer

/// imgproxy's processing URLs on a real server, from a real loopback origin: signing with rotated keys, the JSON
/// refusals and their statuses, the result's size and format, one render per meaning, variants on disk across a
/// restart and gone after a purge, `raw`, and `Content-Disposition`.
@Suite(.serialized) struct ProcessingURLTests {
    static let keyA = Data((0..<32).map { UInt8($0) })
    static let saltA = Data("pepper".utf8)
    static let keyB = Data((0..<32).map { UInt8(255 - $0) })
    static let saltB = Data("salt-2".utf8)

    /// A processing path for `source`, its options then the base64url source (`ext` appended).
    static func path(_ options: String, _ source: String, ext: String? = nil, signer: URLSigner) -> String {
        let signed = "/" + (options.isEmpty ? "" : options + "/") + Base64URL.encode(source) + (ext.map { "." + $0 } ?? "")
        return "/" + signer.signature(for: signed) + signed
    }

    @Test func everyConfiguredKeyPairVerifiesAndTheShortGrammarStillWorks() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness {
            ($0.key, $0.salt) = (Self.keyA, Self.saltA)
            $0.additionalKeys = [URLSigner.KeyPair(key: Self.keyB, salt: Self.saltB)]
        }
        let source = origin.url("/a.jpg")
        let byA = URLSigner(key: Self.keyA, salt: Self.saltA), byB = URLSigner(key: Self.keyB, salt: Self.saltB)
        let stranger = URLSigner(key: Data(repeating: 9, count: 32), salt: Self.saltA)
        let first = try await server.request(Self.path("rs:fit:100:100", source, signer: byA))
        #expect(first.status == 200)
        #expect(first.imageSize?.width == 100)
        #expect(try await server.request(Self.path("rs:fit:100:100", source, signer: byB)).status == 200)
        // Key A with salt B is no pair.
        let mixed = URLSigner(key: Self.keyA, salt: Self.saltB)
        for signer in [stranger, mixed] {
            let refused = try await server.request(Self.path("rs:fit:90:90", source, signer: signer))
            #expect(refused.status == 403 && refused.json["error"] == "bad_signature")
        }
        #expect(try await server.request(Self.path("rs:fit:90:90", source, signer: URLSigner(key: nil))).status == 403)
        // The signature is checked before the options are read, as imgproxy does: a stranger's bad option is a 403,
        // not a 400 describing the grammar; the same option signed is the 400.
        let unsignedJunk = try await server.request(Self.path("bogus:1", source, signer: stranger))
        #expect(unsignedJunk.status == 403 && unsignedJunk.json["error"] == "bad_signature", "\(unsignedJunk.json)")
        #expect(try await server.request(Self.path("bogus:1", source, signer: byA)).json["error"] == "unknown_option")
        // The short grammar, signed by the first pair, as before.
        #expect(try await server.request(server.path(source, size: 64)).status == 200)
        #expect(origin.count("/a.jpg") == 1, "one download for every answer above")
        await server.stop()
        await origin.stop()
    }

    @Test func refusalsAreJSONNamingWhatToChange() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { $0.maxSize = 1000 }
        let source = origin.url("/a.jpg")
        let signer = URLSigner(key: nil)
        let cases: [(options: String, status: Int, code: String, mentions: [String])] = [
            ("bogus:1", 400, "unknown_option", ["bogus"]),
            ("rs:fill:abc:10", 400, "bad_argument", ["abc", "rs"]),
            ("q:101", 400, "bad_argument", ["101", "quality"]),
            ("wmt:abc", 400, "not_supported", ["wmt"]),
            ("exp:1000", 404, "expired", ["1000"]),
            ("pr:nothing", 400, "unknown_preset", ["nothing"]),
            ("rs:fit:1500:1500/el:1", 400, "result_too_large", ["1500", "1000"]),
        ]
        for item in cases {
            let answer = try await server.request(Self.path(item.options, source, signer: signer))
            #expect(answer.status == item.status, "\(item.options)")
            #expect(answer.json["error"] == item.code, "\(item.options): \(answer.json)")
            #expect(answer.header("Content-Type") == "application/json")
            for word in item.mentions { #expect(answer.json["message"]?.contains(word) == true, "\(item.options): \(answer.json)") }
        }
        // Refused from the source's header: fetched once (for its size), never rendered, nothing stored.
        #expect(origin.count("/a.jpg") <= 1)
        #expect(server.metric("thumbcache_render_duration_seconds_count") == 0)
        // A far-future expiry is served; without a key, any signature segment passes.
        let future = Int64(Date().timeIntervalSince1970) + 3600
        #expect(try await server.request(Self.path("exp:\(future)/w:50", source, signer: signer)).status == 200)
        let anySignature = "/whatever/w:50/" + Base64URL.encode(source)
        #expect(try await server.request(anySignature).status == 200)
        await server.stop()
        await origin.stop()
    }

    @Test func sizesFormatsAndOneRenderPerMeaning() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)  // 227×149
        origin.image("/b.png", Fixtures.png, type: "image/png")
        let server = try await ServerHarness()
        let signer = URLSigner(key: nil)
        let jpeg = origin.url("/a.jpg"), png = origin.url("/b.png")
        let table: [(String, Int, Int)] = [
            ("rs:fill:100:50", 100, 50), ("rs:fit:100:100", 100, 66), ("rs:fit:50:50/dpr:2", 100, 66),
            ("rs:force:80:80", 80, 80), ("w:100", 100, 66), ("h:50", 76, 50), ("rs:fill:300:300", 227, 149),
            // fill never enlarges without el: the box is cut down to the image (imgproxy's cropToResult).
            ("rs:fill:300:300/el:1", 300, 300), ("rs:fit:100:100/ex:1", 100, 100), ("rs:fit:100:0/pd:10", 120, 86),
            ("c:100:100/rs:fit:50:50", 50, 50), ("rot:90/w:100", 100, 152),
        ]
        for (options, width, height) in table {
            let answer = try await server.request(Self.path(options, jpeg, signer: signer))
            #expect(answer.status == 200, "\(options): \(answer.json)")
            #expect(answer.imageSize?.width == width && answer.imageSize?.height == height,
                    "\(options): \(String(describing: answer.imageSize)), expected \(width)×\(height)")
        }
        // Without a format: the source's, and `Vary: Accept` (a browser naming WebP gets WebP).
        let plain = try await server.request(Self.path("w:60", jpeg, signer: signer))
        #expect(plain.header("Content-Type") == "image/jpeg" && plain.header("Vary") == "Accept")
        let pngAnswer = try await server.request(Self.path("w:60", png, signer: signer))
        #expect(pngAnswer.header("Content-Type") == "image/png")
        let webp = try await server.request(Self.path("w:60", jpeg, signer: signer), headers: [("Accept", "image/webp,*/*")])
        #expect(webp.header("Content-Type") == "image/webp" && webp.header("Vary") == "Accept")
        // An extension or f: fixes the format: no Vary.
        let fixed = try await server.request(Self.path("w:60", jpeg, ext: "png", signer: signer), headers: [("Accept", "image/webp")])
        #expect(fixed.header("Content-Type") == "image/png" && fixed.header("Vary") == nil)
        let byOption = try await server.request(Self.path("w:60/f:webp", jpeg, signer: signer))
        #expect(byOption.header("Content-Type") == "image/webp" && byOption.header("Vary") == nil)

        // Two spellings of one image: one render, the second from memory with the same bytes.
        let rendered = server.metric("thumbcache_render_duration_seconds_count")
        let long = try await server.request(Self.path("resize:fill:70:40:0/gravity:ce/quality:70", jpeg, signer: signer))
        let short = try await server.request(Self.path("q:70/rs:fill:70:40/cb:123", jpeg, signer: signer))
        #expect(long.status == 200 && short.status == 200)
        #expect(long.body == short.body && short.header("X-Thumbcache") == "memory")
        #expect(server.metric("thumbcache_render_duration_seconds_count") == rendered + 1)
        #expect(origin.count("/a.jpg") == 1 && origin.count("/b.png") == 1)
        await server.stop()
        await origin.stop()
    }

    @Test func variantsSurviveARestartAndGoWithAPurge() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbcache-variants-\(UUID().uuidString)")
        let signer = URLSigner(key: nil)
        let source = origin.url("/a.jpg")
        let path = Self.path("rs:fill:90:60/g:nowe", source, signer: signer)
        var server = try await ServerHarness(directory: directory) { $0.adminToken = "s3cret" }
        let made = try await server.request(path)
        #expect(made.status == 200 && made.header("X-Thumbcache") == "network")
        await server.stop(removingDirectory: false)

        server = try await ServerHarness(directory: directory) { $0.adminToken = "s3cret" }
        let again = try await server.request(path)
        #expect(again.status == 200 && again.header("X-Thumbcache") == "disk", "read back from variants/ after a restart")
        #expect(again.body == made.body && again.header("ETag") == made.header("ETag"))
        #expect(origin.count("/a.jpg") == 1)
        #expect(try Self.valueFiles(in: directory.appendingPathComponent("variants")).count == 2, "one variant: record and image")

        let purge = try await server.request("/admin/purge/\(Base64URL.encode(source))", method: .POST,
                                             headers: [("Authorization", "Bearer s3cret")])
        #expect(purge.status == 200)
        #expect(try Self.valueFiles(in: directory.appendingPathComponent("variants")).isEmpty, "the purge removed the source's variants")
        let afterPurge = try await server.request(path)
        #expect(afterPurge.status == 200 && afterPurge.header("X-Thumbcache") == "network")
        #expect(origin.count("/a.jpg") == 2)
        await server.stop()
        await origin.stop()
    }

    /// A DiskLru directory's value files (`<key>.<index>`), its journal and lock left out.
    static func valueFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("journal") }
    }

    @Test func rawStreamsTheOriginalAndFilenamesAreQuotedSafely() async throws {
        let origin = try await TestOrigin()
        origin.image("/photos/Beach%20day.jpg", Fixtures.jpeg)
        let server = try await ServerHarness()
        let signer = URLSigner(key: nil)
        let source = origin.url("/photos/Beach%20day.jpg")
        let raw = try await server.request(Self.path("raw:1/w:10", source, signer: signer), headers: [("Accept", "image/avif")])
        #expect(raw.status == 200 && raw.body == Fixtures.jpeg && raw.header("Content-Type") == "image/jpeg")
        #expect(raw.header("Vary") == nil, "raw answers the original whatever Accept says")

        let named = try await server.request(Self.path("w:40/att:1", source, ext: "png", signer: signer))
        #expect(named.header("Content-Disposition") == "attachment; filename=\"Beach day.png\"")
        let inline = try await server.request(Self.path("w:40/fn:r%C3%A9sum%C3%A9", source, signer: signer))
        #expect(inline.header("Content-Disposition") == "inline; filename=\"r_sum_.jpg\"; filename*=UTF-8''r%C3%A9sum%C3%A9.jpg")
        #expect(try await server.request(Self.path("w:40", source, signer: signer)).header("Content-Disposition") == nil)
        await server.stop()
        await origin.stop()
    }

    @Test func onlyPresetsRefusesEverythingElse() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let presets = try Presets(definitions: ["card=rs:fill:60:40", "default=q:70"])
        let server = try await ServerHarness { ($0.presets, $0.onlyPresets) = (presets, true) }
        let signer = URLSigner(key: nil)
        let source = origin.url("/a.jpg")
        let card = try await server.request(Self.path("pr:card", source, signer: signer))
        #expect(card.status == 200 && card.imageSize?.width == 60 && card.imageSize?.height == 40)
        // imgproxy's only-presets form: the first segment names presets.
        let bare = try await server.request(Self.path("card", source, signer: signer))
        #expect(bare.status == 200 && bare.body == card.body)
        // An option after a preset is refused by name; an option first is read as imgproxy reads it in this
        // mode, as preset names, and refused as unknown presets.
        let refused = try await server.request(Self.path("pr:card/rs:fill:61:40", source, signer: signer))
        #expect(refused.status == 400 && refused.json["error"] == "only_presets", "\(refused.json)")
        let first = try await server.request(Self.path("rs:fill:61:40", source, signer: signer))
        #expect(first.status == 400 && first.json["error"] == "unknown_preset", "\(first.json)")
        // No preset at all is not the full-size image: an empty list, an empty name, or options-free paths.
        for options in ["pr:", "pr:card:", "preset:", "card:", "plain"] {
            let empty = try await server.request(Self.path(options, source, signer: signer))
            #expect(empty.status == 400 && ["only_presets", "unknown_preset"].contains(empty.json["error"]), "\(options): \(empty.json)")
        }
        let none = try await server.request("/unsafe/plain/" + source)
        #expect(none.status == 400 && none.json["error"] == "unknown_preset", "\(none.json)")
        // The short grammar names any size, so it is refused too, and nothing of it is fetched or stored.
        let short = try await server.request(server.path(source, size: 64))
        #expect(short.status == 400 && short.json["error"] == "only_presets", "\(short.json)")
        #expect(origin.count("/a.jpg") == 1, "only the card's render downloaded the source")
        await server.stop()
        await origin.stop()
    }

    @Test func pathsThatProxiesRewroteAreRestoredAsImgproxyRestoresThem() async throws {
        let origin = try await TestOrigin()
        origin.image("/a.jpg", Fixtures.jpeg)
        let server = try await ServerHarness { ($0.key, $0.salt) = (Self.keyA, Self.saltA) }
        let signer = URLSigner(key: Self.keyA, salt: Self.saltA)
        let source = origin.url("/a.jpg")
        let signedPart = "/rs:fill:30:20/plain/" + source
        let expected = try await server.request("/" + signer.signature(for: signedPart) + signedPart)
        #expect(expected.status == 200 && expected.imageSize?.width == 30 && expected.imageSize?.height == 20)
        let signature = signer.signature(for: signedPart)
        // The author's URL, as a CDN escaped its colons, merged the source's "//", or as a builder left an empty
        // option segment: each is the same image, under the signature of the path as written.
        let rewritten = [
            "/rs%3Afill%3A30%3A20/plain/" + source,
            "/rs%3afill%3a30%3a20/plain/" + source,
            "/rs:fill:30:20/plain/" + source.replacingOccurrences(of: "http://", with: "http:/"),
            "//rs:fill:30:20/plain/" + source,
            "/rs:fill:30:20//plain/" + source,
        ]
        for path in rewritten {
            let answer = try await server.request("/" + signature + path)
            #expect(answer.status == 200 && answer.body == expected.body, "\(path): \(answer.status) \(answer.json)")
        }
        // A builder that signed the path it sent, the empty segment included, is accepted too.
        let sentPart = "//rs:fill:30:20/plain/" + source
        #expect(try await server.request("/" + signer.signature(for: sentPart) + sentPart).status == 200)
        // Another signature still fails; restoring never turns a bad signature good.
        let stranger = URLSigner(key: Self.keyB, salt: Self.saltB)
        #expect(try await server.request("/" + stranger.signature(for: signedPart) + rewritten[0]).status == 403)
        #expect(origin.count("/a.jpg") == 1, "one download: every spelling is one image")
        await server.stop()
        await origin.stop()
    }
}
