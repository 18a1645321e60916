import Foundation
import Testing
@testable import ImageDecode
#if canImport(Glibc)
import Glibc
#endif

/// SVG through librsvg: sizes as libvips works them out, rendering at the plan's size (never the declared canvas),
/// no external reference followed, hostile documents refused or bounded.
struct SVGDecodeTests {
    static func svg(_ text: String) -> Data { Data(text.utf8) }

    @Test func readsImgproxysTestFileAtItsDeclaredSize() throws {
        let info = try ImageDecoder.probe(Fixtures.data("svg/test1.svg"))
        #expect(info.format == .svg)
        #expect((info.width, info.height) == (200, 100))
        #expect(info.hasAlpha)
        let image = try ImageDecoder.decode(Fixtures.data("svg/test1.svg"))
        #expect((image.width, image.height, image.channels) == (200, 100, 4))
        // The black 190x90 rectangle with a white stroke: black inside, opaque.
        let inside = (50 * 200 + 100) * 4
        #expect(Array(image.pixels[inside..<inside + 4]) == [0, 0, 0, 255])
        // Outside the rectangle (x 197): nothing drawn.
        let outside = (50 * 200 + 197) * 4
        #expect(image.pixels[outside + 3] == 0)
    }

    @Test(arguments: [
        ("<svg xmlns='http://www.w3.org/2000/svg' width='2in' height='1in'/>", 144, 72),   // 72 DPI, as libvips
        ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 300 150'/>", 300, 150),
        ("<svg xmlns='http://www.w3.org/2000/svg' width='600' viewBox='0 0 300 150'/>", 600, 300),
        ("<svg xmlns='http://www.w3.org/2000/svg' height='30' viewBox='0 0 300 150'/>", 60, 30),
        ("<svg xmlns='http://www.w3.org/2000/svg' width='10.4' height='10.5'/>", 10, 11),  // rounded half up
        // Neither a size nor a viewBox: the size of what is drawn (librsvg measures the element by itself, so its
        // offset from the origin does not count; libvips gives the same).
        ("<svg xmlns='http://www.w3.org/2000/svg'><rect x='10' y='20' width='30' height='40'/></svg>", 30, 40),
    ])
    func naturalSizeIsLibvips(text: String, width: Int, height: Int) throws {
        let info = try ImageDecoder.probe(Self.svg(text))
        #expect((info.width, info.height) == (width, height))
    }

    /// A 100000x100000 canvas thumbnailed to 300 pixels is drawn at 300 pixels: the estimate (and what is
    /// allocated) follows the plan, not the declared size.
    @Test func hugeCanvasIsDrawnAtThePlansSize() throws {
        let data = Self.svg("""
            <svg xmlns='http://www.w3.org/2000/svg' width='100000' height='100000' viewBox='0 0 10 10'>
            <rect width='5' height='10' fill='#f00'/><rect x='5' width='5' height='10' fill='#00f'/></svg>
            """)
        let info = try ImageDecoder.probe(data)
        #expect((info.width, info.height) == (100000, 100000))
        let request = ThumbnailRequest(size: 300, format: .png, maxPixels: 20_000_000_000)
        let memory = try Thumbnailer().workingMemory(for: .data(data), request)
        #expect(memory < 16 << 20)
        let made = try Thumbnailer().makeThumbnail(from: data, request)
        #expect((made.width, made.height) == (300, 300))
        let pixels = try ImageDecoder.decode(made.data)
        #expect(Array(pixels.pixels[(150 * 300 + 20) * pixels.channels..<(150 * 300 + 20) * pixels.channels + 3]) == [255, 0, 0])
        #expect(Array(pixels.pixels[(150 * 300 + 280) * pixels.channels..<(150 * 300 + 280) * pixels.channels + 3]) == [0, 0, 255])
    }

    /// imgproxy's rule: a vector's declared size is not refused for the pixel limit; it is drawn scaled down to fit.
    @Test func declaredSizeOverThePixelLimitIsScaledToFit() throws {
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='40000' height='10000'/>")
        let info = try ImageDecoder.probe(.data(data), maxPixels: 1_000_000)
        #expect((info.width, info.height) == (2000, 500))
        let image = try ImageDecoder.decode(data, maxPixels: 1_000_000)
        #expect((image.width, image.height) == (2000, 500))
    }

    /// imgproxy's prepare.go: a vector is enlarged to the box whether or not `enlarge` is set (dpr too); a raster
    /// only with it.
    @Test func aVectorPlanEnlargesWhateverEnlargeSays() {
        var geometry = GeometryOptions()
        (geometry.width, geometry.height) = (400, 300)
        let vector = ProcessingPlan(sourceWidth: 100, sourceHeight: 100, geometry: geometry, vector: true)
        #expect((vector.resultWidth, vector.resultHeight) == (300, 300))
        let raster = ProcessingPlan(sourceWidth: 100, sourceHeight: 100, geometry: geometry)
        #expect((raster.resultWidth, raster.resultHeight) == (100, 100))
        geometry.dpr = 2
        let doubled = ProcessingPlan(sourceWidth: 100, sourceHeight: 100, geometry: geometry, vector: true)
        #expect((doubled.resultWidth, doubled.resultHeight) == (600, 600))
        // The detector's re-plan keeps it a vector's.
        #expect(vector.resolvingDetection(focusX: 0.5, focusY: 0.5).vector)
    }

    /// The library's thumbnail (and `thumbcache thumbnail --size`) draws an SVG at the box's size too, unlike a raster.
    @Test func aThumbnailOfASmallSVGIsDrawnAtTheBoxSize() throws {
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='50'><rect width='100' height='50'/></svg>")
        let made = try Thumbnailer().makeThumbnail(from: data, ThumbnailRequest(size: 400, format: .png))
        #expect((made.width, made.height) == (400, 200))
        let raster = try ImageEncoder.encode(ImageDecoder.decode(data), as: .png)
        let kept = try Thumbnailer().makeThumbnail(from: raster, ThumbnailRequest(size: 400, format: .png))
        #expect((kept.width, kept.height) == (100, 50))
    }

    /// Asked to enlarge (`shrink` below 1), the decoder draws larger, up to the pixel limit and no further.
    @Test func enlargedDrawingStopsAtThePixelLimit() throws {
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='50'/>")
        try data.withUnsafeBytes { bytes in
            let decoder = try SVGDecoder(bytes, maxPixels: 20_000)
            #expect(decoder.drawsAtAnyScale)
            #expect(decoder.renderedSize(shrink: 0.5) == (200, 100))
            let bounded = decoder.renderedSize(shrink: 0.1)
            #expect(bounded.width * bounded.height <= 20_000 && bounded.width == 2 * bounded.height && bounded.width >= 199)
            #expect(decoder.renderedSize(shrink: 2) == (50, 25))
        }
    }

    // MARK: No external references

    /// A listening socket on 127.0.0.1: a connection librsvg made while rendering would wait in its backlog.
    final class Listener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                        && getsockname(descriptor, pointer, &length) == 0
                }
            }
            port = UInt16(bigEndian: address.sin_port)
            guard bound else { throw CocoaError(.fileNoSuchFile) }
        }

        deinit { close(descriptor) }

        /// Whether a connection is waiting, asked without waiting: the kernel completes a handshake before `accept`.
        var hasConnection: Bool {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) > 0
        }
    }

    @Test func networkReferencesAreNeverFetched() throws {
        let listener = try Listener()
        let url = "http://127.0.0.1:\(listener.port)/x.png"
        let data = Self.svg("""
            <?xml version="1.0"?>
            <!DOCTYPE svg [<!ENTITY remote SYSTEM "\(url)">]>
            <svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink'
                 xmlns:xi='http://www.w3.org/2001/XInclude' width='20' height='20'>
            <style>@import url("\(url)");</style>
            <image href='\(url)' width='20' height='20'/>
            <image xlink:href='\(url)' width='20' height='20'/>
            <use href='\(url)#a'/>
            <rect width='20' height='20' fill='url(\(url)#g)' filter='url(\(url)#f)'/>
            <xi:include href='\(url)' parse='text'/>
            <text>&remote;</text>
            </svg>
            """)
        let image = try? ImageDecoder.decode(data)
        _ = image
        #expect(!listener.hasConnection)
    }

    @Test func fileReferencesReadNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("svg-file-ref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A red PNG and a text file: neither may reach the render.
        let red = try ImageEncoder.encode(Fixtures.image(width: 8, height: 8, channels: 3) { _, _ in [255, 0, 0] }, as: .png)
        let png = directory.appendingPathComponent("red.png")
        try red.write(to: png)
        let secret = directory.appendingPathComponent("secret.txt")
        try Data("SECRET-WORDS-HERE".utf8).write(to: secret)
        let data = Self.svg("""
            <?xml version="1.0"?>
            <!DOCTYPE svg [<!ENTITY leak SYSTEM "file://\(secret.path)">]>
            <svg xmlns='http://www.w3.org/2000/svg' xmlns:xi='http://www.w3.org/2001/XInclude' width='40' height='20'>
            <image href='file://\(png.path)' width='20' height='20'/>
            <image href='red.png' x='20' width='20' height='20'/>
            <text x='0' y='15' font-size='12' fill='#0f0'>&leak;<xi:include href='file://\(secret.path)' parse='text'/></text>
            </svg>
            """)
        // Refused, or drawn without the file's pixels (no red) and without its text (nothing green drawn).
        if let image = try? ImageDecoder.decode(data) {
            var drawn = 0
            for index in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[index + 3] != 0 { drawn += 1 }
            #expect(drawn == 0, "something was drawn from a file reference")
        }
    }

    // MARK: Hostile documents: refused, or bounded

    @Test func billionLaughsIsRefused() throws {
        var doctype = "<!ENTITY lol0 \"lollollollollollollollollollol\">"
        for level in 1...10 {
            doctype += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let data = Self.svg("<?xml version='1.0'?><!DOCTYPE svg [\(doctype)]>"
            + "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><text>&lol10;</text></svg>")
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
        // Passed through, the sanitiser expands entities once and refuses ones that name others.
        #expect(throws: ImageDecodeError.self) { try SVGSanitizer.sanitize(data) }
        // A flat expansion past the bound: 200,000 references to a 100-byte entity.
        let wide = Self.svg("<!DOCTYPE svg [<!ENTITY w \"" + String(repeating: "w", count: 100) + "\">]>"
            + "<svg xmlns='http://www.w3.org/2000/svg'><text>" + String(repeating: "&w;", count: 200_000) + "</text></svg>")
        #expect(throws: ImageDecodeError.self) { try SVGSanitizer.sanitize(wide) }
    }

    /// 40 levels of `<use>` each drawing the level below twice: 2^40 instances unless librsvg stops it.
    @Test func exponentialUseChainIsBounded() throws {
        var defs = "<rect id='u0' width='1' height='1'/>"
        for level in 1...40 {
            defs += "<g id='u\(level)'><use href='#u\(level - 1)'/><use href='#u\(level - 1)' x='1'/></g>"
        }
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='50' height='50'><defs>\(defs)</defs><use href='#u40'/></svg>")
        do {
            _ = try ImageDecoder.decode(data)
        } catch {
            #expect(error.description.contains("SVG"))
        }
    }

    @Test func selfReferencingUseIsRefusedOrBounded() throws {
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><g id='a'><use href='#a'/></g></svg>")
        _ = try? ImageDecoder.decode(data)
    }

    /// A huge blur and stroke are drawn on the render's surface, which the plan bounds.
    @Test func hugeFilterAndStrokeAreBounded() throws {
        let data = Self.svg("""
            <svg xmlns='http://www.w3.org/2000/svg' width='200' height='200'>
            <filter id='f' x='-1e6' y='-1e6' width='2e6' height='2e6'><feGaussianBlur stdDeviation='1e9'/></filter>
            <rect width='100' height='100' filter='url(#f)' stroke='#000' stroke-width='1e12'/>
            <circle r='1e15' cx='50' cy='50' stroke-dasharray='0.0001' stroke='#000'/>
            </svg>
            """)
        let made = try? Thumbnailer().makeThumbnail(from: data, ThumbnailRequest(size: 50, format: .png))
        if let made { #expect((made.width, made.height) == (50, 50)) }
    }

    @Test func deepNestingIsRefused() throws {
        let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>"
            + String(repeating: "<g>", count: 100_000) + String(repeating: "</g>", count: 100_000) + "</svg>")
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(data) }
        #expect(throws: ImageDecodeError.self) { try SVGSanitizer.sanitize(data) }
    }

    @Test(arguments: [
        "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect",    // cut short
        "<svg xmlns='http://www.w3.org/2000/svg' width='0' height='10'/>",          // empty
        "<svg xmlns='http://www.w3.org/2000/svg' width='-5' height='10'/>",
        "<svg xmlns='http://www.w3.org/2000/svg'/>",                                // no size, nothing drawn
        "<svg xmlns='http://www.w3.org/2000/svg' width='1e300' height='1e300'/>",
    ])
    func brokenDocumentsAreRefused(text: String) throws {
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(Self.svg(text)) }
    }

    /// librsvg 2.54 lays out one run of text in quadratic time (20,000 characters: 26 s): a long run is refused
    /// before librsvg reads it (`SVGTextBudget`), even one an entity makes long; the same text over many elements
    /// is drawn.
    @Test func longTextRunsAreRefusedBeforeLayout() throws {
        for length in [20_000, 2_000_000] {
            let data = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='20'><text y='15'>"
                + String(repeating: "W", count: length) + "</text></svg>")
            #expect(throws: ImageDecodeError.self) { try ImageDecoder.probe(data) }
        }
        let entity = Self.svg("<!DOCTYPE svg [<!ENTITY w \"" + String(repeating: "W", count: 9000) + "\">]>"
            + "<svg xmlns='http://www.w3.org/2000/svg' width='100' height='20'><text>&w;</text></svg>")
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.probe(entity) }
        let split = Self.svg("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='20'>"
            + String(repeating: "<text y='15'>WWWWWWWWWW</text>", count: 2000) + "</svg>")
        let made = try Thumbnailer().makeThumbnail(from: split, ThumbnailRequest(size: 50, format: .png))
        #expect(made.width == 50)
    }

    /// The budget's scan counts only what librsvg lays out: character data (and CDATA) inside a text element, under
    /// any prefix and past a `>` in a quoted value; not comments, not other elements, not after a self-closed one.
    /// 6,000 bytes in one run is over the budget (36 M > 32 M), 5,000 is under.
    @Test(arguments: [
        ("<svg:text xmlns:svg='http://www.w3.org/2000/svg'>RUN</svg:text>", true),
        ("<text title='a>b' y=\"1>2\">RUN</text>", true),
        ("<text><![CDATA[RUN]]></text>", true),
        ("<text><tspan>RUN</tspan></text>", true),
        ("<textPath>RUN</textPath>", true),
        ("<!-- <text>RUN</text> -->", false),
        ("<texts>RUN</texts>", false),
        ("<desc>RUN</desc>", false),
        ("<text/>RUN", false),
        ("<?pi <text> ?>RUN", false),
        ("<text>one</text>RUN<text>two</text>", false),
    ])
    func textBudgetCountsTextRunsOnly(body: String, refused: Bool) throws {
        func check(_ length: Int) -> Bool {
            let text = "<svg xmlns='http://www.w3.org/2000/svg'>"
                + body.replacingOccurrences(of: "RUN", with: String(repeating: "W", count: length)) + "</svg>"
            return Array(text.utf8).withUnsafeBytes { bytes in
                do throws(ImageDecodeError) { try SVGTextBudget.check(bytes); return false } catch { return true }
            }
        }
        #expect(check(6000) == refused)
        #expect(check(5000) == false)
    }

    @Test func textBudgetFindsEveryPlaceANeedleCanBe() {
        func find(_ text: String, from start: Int = 0) -> Int? {
            Array(text.utf8).withUnsafeBytes { SVGTextBudget.find("-->", in: $0, from: start) }
        }
        #expect(find("-->") == 0)
        #expect(find("a-->") == 1)
        #expect(find("a--b-->") == 4)
        #expect(find("ab--") == nil)
        #expect(find("") == nil)
        #expect(find("-->x-->", from: 1) == 4)
        #expect(find("-->", from: 3) == nil)
    }

    /// W3C SVG 1.1 test-suite files decode (one per area: shapes, use recursion, blur, images by reference).
    @Test(arguments: ["shapes-rect-01-t", "struct-use-recursion-01-t", "filters-gauss-01-b", "struct-image-01-t"])
    func w3cTestSuiteFilesDecode(name: String) throws {
        let made = try Thumbnailer().makeThumbnail(from: Fixtures.data("svg/\(name).svg"), ThumbnailRequest(size: 120, format: .png))
        #expect((made.width, made.height) == (120, 90))
    }
}

/// imgproxy's `IMGPROXY_SANITIZE_SVG`, and where we are stricter.
struct SVGSanitizerTests {
    static func clean(_ text: String) throws -> String {
        String(decoding: try SVGSanitizer.sanitize(Data(text.utf8)), as: UTF8.self)
    }

    /// imgproxy's own test: test1.svg sanitises to test1.sanitized.svg, byte for byte.
    @Test func imgproxysTestFileSanitisesAsImgproxy() throws {
        let cleaned = try SVGSanitizer.sanitize(Fixtures.data("svg/test1.svg"))
        #expect(cleaned == (try Fixtures.data("svg/test1.sanitized.svg")))
    }

    @Test func scriptsEventsAndUnsafeLinksAreRemoved() throws {
        let cleaned = try Self.clean("""
            <svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' ONLOAD='x()'>\
            <a xlink:href='java&#x09;script:alert(1)'><rect/></a>\
            <a href=' JaVaScRiPt:alert(1)'><rect/></a>\
            <a href='/relative/path'>r</a><a href='https://example.com/'>s</a>\
            <image href='file:///etc/passwd'/><use href='https://example.com/x.svg#a'/><use href='#local'/>\
            <set attributeName='xlink:href' to='javascript:alert(1)'/><animate attributeName='fill' to='red'/>\
            <iframe><p>x</p></iframe><svg:script xmlns:svg='http://www.w3.org/2000/svg'>alert(2)</svg:script>\
            </svg>
            """)
        #expect(cleaned == """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\
            <a><rect/></a><a><rect/></a>\
            <a href="/relative/path">r</a><a href="https://example.com/">s</a>\
            <image/><use/><use href="#local"/>\
            <animate attributeName="fill" to="red"/>\
            </svg>
            """)
    }

    /// An entity cannot hide a script from the rules: entities are expanded once, before the document is read,
    /// and the internal subset is dropped.
    @Test func entitiesCannotHideMarkup() throws {
        let cleaned = try Self.clean("""
            <?xml version="1.0"?>
            <!DOCTYPE svg [<!ENTITY x "<script>alert(1)</script>"><!ENTITY ns "http://www.w3.org/2000/svg">]>
            <svg xmlns="&ns;">&x;<rect/></svg>
            """)
        #expect(cleaned == "<?xml version=\"1.0\"?>\n\n<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>")
    }

    @Test func aDoctypeWithoutASubsetIsKept() throws {
        let text = "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg/>"
        #expect(try Self.clean(text) == text)
    }

    @Test(arguments: ["<svg><g></svg>", "<svg>", "<svg a=b/>", "<svg/><svg/>", "text only", "<svg></g></svg>"])
    func brokenDocumentsAreRefused(text: String) {
        #expect(throws: ImageDecodeError.self) { try SVGSanitizer.sanitize(Data(text.utf8)) }
    }
}
