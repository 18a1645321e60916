#!/usr/bin/env python3
"""imgproxy URL compatibility, end to end: URLs built by two of PyPI's imgproxy URL builders, unmodified: `imgproxy`
(imgproxy==1.0.0, MIT) for each processing option, and a second, independent one, `pyimgproxy` (pyimgproxy==0.4,
BSD-3-Clause, its own option names, `True`/`False` booleans, base64 only for sources that need it), asked of a real `thumbcache serve` whose sources are a
loopback origin serving committed fixtures, and what comes back checked against imgproxy's documented meaning
(size, format, headers, pixels where it matters). Prints one line per check and a summary; exits 1 on a failure.

Run: scripts/imgproxy-compat.py [path/to/thumbcache]   (default .build/debug/thumbcache; builds nothing)
Makes .build/imgproxy-venv (imgproxy==1.0.0, pyimgproxy==0.4, Pillow) from PyPI once. All traffic is to 127.0.0.1.
Two key/salt pairs are configured (rotation): URLs are signed with the second, as a client mid-rotation would.
"""
import atexit, base64, hashlib, hmac, http.server, io, json, os, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build", "imgproxy-venv")


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    if sys.executable != python:
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        if subprocess.run([python, "-c", "import imgproxy, pyimgproxy, PIL"], capture_output=True).returncode != 0:
            subprocess.run([python, "-m", "pip", "install", "-q", "imgproxy==1.0.0", "pyimgproxy==0.4", "pillow"], check=True)
        os.execv(python, [python, *sys.argv])


ensure_venv()
import loopback  # noqa: E402  (scripts/loopback.py: serve on 127.0.0.1)
from imgproxy import ImgProxy  # noqa: E402
from pyimgproxy import ImgProxy as PyImgProxy  # noqa: E402  (the second builder)
from PIL import Image, ImageFilter, ImageStat  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "thumbcache")
FIXTURES = os.path.join(ROOT, "Tests", "ImageDecodeTests", "Fixtures")
# Old pair, then the new one; both verify, the builder signs with the new one.
KEYS = ["943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881", "0f" * 32]
SALTS = ["520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5", "a1b2c3"]
PRESETS = ["card=rs:fill:300:200/g:sm", "default=sh:0"]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


def start_origin():
    handler = lambda *a, **k: Quiet(*a, directory=FIXTURES, **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_serve(cache):
    args = ["--cache-dir", cache, "--allow-loopback-sources", "--max-size", "2048"]
    for key, salt in zip(KEYS, SALTS):
        args += ["--key", key, "--salt", salt]
    for preset in PRESETS:
        args += ["--preset", preset]
    try:
        return loopback.start_serve(BIN, args)
    except RuntimeError as error:
        sys.exit(str(error))


fetch = loopback.fetch


def image(body):
    return Image.open(io.BytesIO(body))


def edges(img):
    return ImageStat.Stat(img.convert("L").filter(ImageFilter.FIND_EDGES)).mean[0]


def main():
    origin = start_origin()
    src = lambda name: f"http://127.0.0.1:{origin.server_port}/{name}"  # noqa: E731
    rocket, png, rotated = src("rocket.jpg"), src("testorig.png"), src("orientation/Landscape_6.jpg")
    rocket_bytes = open(os.path.join(FIXTURES, "rocket.jpg"), "rb").read()
    cache = tempfile.mkdtemp(prefix="imgproxy-compat-")
    proc, base = start_serve(cache)
    # A check that raises must not leave serve running: it holds test.sh's pipe to tee open, and CI would hang.
    atexit.register(lambda: proc.poll() is None and (proc.terminate(), proc.wait(timeout=30)))
    results = []

    def url(image_url=rocket, *advanced, **options):
        return ImgProxy(image_url, key=KEYS[1], salt=SALTS[1], **options)(*advanced)

    def check(name, path, test, headers=None):
        status, head, body = fetch(base, path, headers)
        try:
            ok, got = test(status, head, body)
        except Exception as error:  # an undecodable body is a failure, with its reason
            ok, got = False, f"{status} {type(error).__name__}: {error}"
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name:<34} {got}   {path}")
        return body

    def size(w, h, fmt="JPEG"):
        def test(status, head, body):
            img = image(body)
            return status == 200 and img.size == (w, h) and img.format == fmt, f"{status} {img.format} {img.size[0]}x{img.size[1]}"
        return test

    def status_is(code, error=None):
        def test(status, head, body):
            got = json.loads(body) if head.get("Content-Type") == "application/json" else {}
            return status == code and (error is None or got.get("error") == error), f"{status} {got.get('error', '')}: {got.get('message', '')[:70]}"
        return test

    # rocket.jpg is 640x427.
    check("rs:fit 300x200", url(rocket, resizing_type="fit", width=300, height=200), size(300, 200))
    check("rs:fill 300x300", url(rocket, resizing_type="fill", width=300, height=300), size(300, 300))
    check("rs:auto portrait box: fit", url(rocket, resizing_type="auto", width=200, height=300), size(200, 133))
    check("rt:force 100x100", url(rocket, "rt:force", width=100, height=100, resizing_type="force"), size(100, 100))
    check("rt:fill-down 800x100", url(rocket, resizing_type="fill-down", width=800, height=100), size(640, 80))
    check("w only", url(rocket, resizing_type="fit", width=100), size(100, 67))
    check("h only", url(rocket, resizing_type="fit", height=100), size(150, 100))
    check("no enlarge", url(rocket, resizing_type="fit", width=1000, height=1000), size(640, 427))
    check("el:1", url(rocket, resizing_type="fit", width=1000, height=1000, enlarge=True), size(1000, 667))
    check("dpr:2", url(rocket, "dpr:2", resizing_type="fill", width=150, height=100), size(300, 200))
    check("z:2", url(rocket, "z:2", resizing_type="fit", width=100, height=100), size(200, 133))
    # imgproxy's docs: "when both width and min-width are set, the final image will be cropped according to width".
    check("mw:200 (then cut to w)", url(rocket, "mw:200", resizing_type="fit", width=100, height=100), size(100, 100))
    check("mw:200, no width", url(rocket, "mw:200", resizing_type="fit", height=50), size(200, 50))
    check("mh:200, no height", url(rocket, "mh:200", resizing_type="fit", width=50), size(50, 200))
    # The builder always ends with g:…/rs:…, which would override these: written as its docs say, signed alike.
    check("s:100:100 (size)", "/" + sign("/s:100:100/" + b64(rocket)) + "/s:100:100/" + b64(rocket), size(100, 67))
    check("c:200:200 then fit 100", url(rocket, "c:200:200", resizing_type="fit", width=100, height=100), size(100, 100))
    check("rot:90", url(rocket, "rot:90", resizing_type="fit", width=100), size(100, 150))
    # Landscape_6.jpg is stored 120x180 with EXIF orientation 6: upright it is 180x120.
    check("ar on (EXIF 6 applied)", url(rotated, resizing_type="fit", width=60), size(60, 40))
    check("ar:0 (EXIF 6 ignored)", url(rotated, "ar:0", resizing_type="fit", width=60), size(60, 90))

    def corner(rgb, w, h, at=(0, 0)):
        def test(status, head, body):
            img = image(body).convert("RGB")
            pixel = img.getpixel(at)
            close = all(abs(a - b) <= 8 for a, b in zip(pixel, rgb))
            return status == 200 and img.size == (w, h) and close, f"{status} {img.size[0]}x{img.size[1]} corner {pixel}"
        return test
    check("ex:1 + bg:255:0:0", url(rocket, "ex:1", "bg:255:0:0", resizing_type="fit", width=300, height=300), corner((255, 0, 0), 300, 300))
    check("ex:1:no (gravity)", url(rocket, "ex:1:no", "bg:0:0:255", resizing_type="fit", width=300, height=300), corner((0, 0, 255), 300, 300, at=(0, 299)))  # the image sits at the top
    check("exar:1 3:1 box", url(rocket, "exar:1", "bg:00ff00", resizing_type="fit", width=300, height=100), corner((0, 255, 0), 300, 100))
    check("pd:10 + bg", url(rocket, "pd:10", "bg:ffffff", resizing_type="fit", width=100, height=100), corner((255, 255, 255), 120, 87))

    plain = check("baseline fill 200x200", url(rocket, resizing_type="fill", width=200, height=200), size(200, 200))
    base_edges = edges(image(plain))
    def compare(name, advanced, predicate, label):
        def test(status, head, body):
            value = edges(image(body))
            return status == 200 and predicate(value), f"{status} edge mean {value:.2f} vs {base_edges:.2f} ({label})"
        check(name, url(rocket, *advanced, resizing_type="fill", width=200, height=200), test)
    compare("bl:3", ["bl:3"], lambda v: v < base_edges * 0.7, "lower")
    compare("sh:2", ["sh:2"], lambda v: v > base_edges * 1.1, "higher")

    def blocks(status, head, body):
        img = image(body).convert("L")
        block = [img.getpixel((x, y)) for x in range(10, 20) for y in range(10, 20)]
        return status == 200 and max(block) - min(block) <= 6, f"{status} 10x10 block spread {max(block) - min(block)}"
    check("pix:10", url(rocket, "pix:10", resizing_type="fill", width=200, height=200), blocks)

    def gravity_differs(status, head, body):
        return status == 200 and body != plain and image(body).size == (200, 200), f"{status} differs from centre: {body != plain}"
    check("g:nowe", url(rocket, resizing_type="fill", width=200, height=200, gravity="nowe"), gravity_differs)
    check("g:soea", url(rocket, resizing_type="fill", width=200, height=200, gravity="soea"), gravity_differs)
    check("g:fp:0.2:0.8", url(rocket, resizing_type="fill", width=200, height=200, gravity="fp:0.2:0.8"), gravity_differs)
    check("g:sm", url(rocket, resizing_type="fill", width=200, height=200, gravity="sm"), size(200, 200))
    check("g:ce:20:10 (offsets)", url(rocket, resizing_type="fill", width=200, height=200, gravity="ce:20:10"), gravity_differs)

    low = check("q:10", url(rocket, "q:10", resizing_type="fit", width=300), size(300, 200))
    def smaller(reference, label):
        return lambda status, head, body: (status == 200 and len(body) > len(reference), f"{status} {len(body)} bytes vs {len(reference)} ({label})")
    check("q:90 bigger than q:10", url(rocket, "q:90", resizing_type="fit", width=300), smaller(low, "q:10"))
    check("fq:jpeg:10 = q:10", url(rocket, "fq:jpeg:10", resizing_type="fit", width=300),
          lambda s, h, b: (s == 200 and b == low, f"{s} {len(b)} bytes, same as q:10: {b == low}"))
    check("mb:4000", url(rocket, "mb:4000", resizing_type="fit", width=300),
          lambda s, h, b: (s == 200 and len(b) <= 4000, f"{s} {len(b)} bytes"))
    check("f:webp", url(rocket, "f:webp", resizing_type="fit", width=100), size(100, 67, "WEBP"))
    check(".avif extension", url(rocket, resizing_type="fit", width=100, extension="avif"),
          lambda s, h, b: (s == 200 and h.get("Content-Type") == "image/avif" and "Vary" not in h, f"{s} {h.get('Content-Type')} vary={h.get('Vary')}"))
    check("no format, Accept webp", url(rocket, resizing_type="fit", width=100),
          lambda s, h, b: (s == 200 and h.get("Content-Type") == "image/webp" and h.get("Vary") == "Accept", f"{s} {h.get('Content-Type')} vary={h.get('Vary')}"),
          headers={"Accept": "image/webp,*/*"})
    check("no format: the source's (png)", url(png, resizing_type="fit", width=100), size(100, 66, "PNG"))
    for option in ["sm:1", "kcr:1", "scp:1", "cb:v2"]:
        check(option, url(rocket, option, resizing_type="fit", width=100), size(100, 67))
    check("raw:1", url(rocket, "raw:1"), lambda s, h, b: (s == 200 and b == rocket_bytes, f"{s} {len(b)} bytes = original: {b == rocket_bytes}"))
    check("skp:jpg", url(rocket, "skp:jpg", resizing_type="fit", width=100), lambda s, h, b: (s == 200 and b == rocket_bytes, f"{s} original: {b == rocket_bytes}"))
    check("fn:launch", url(rocket, "fn:launch", resizing_type="fit", width=100),
          lambda s, h, b: (h.get("Content-Disposition") == 'inline; filename="launch.jpg"', h.get("Content-Disposition")))
    check("att:1", url(rocket, "att:1", resizing_type="fit", width=100, extension="png"),
          lambda s, h, b: (h.get("Content-Disposition") == 'attachment; filename="rocket.png"', h.get("Content-Disposition")))
    future = int(time.time()) + 3600
    check("exp (future)", url(rocket, f"exp:{future}", resizing_type="fit", width=100), size(100, 67))
    check("exp (past): 404", url(rocket, "exp:1000", resizing_type="fit", width=100), status_is(404, "expired"))
    check("pr:card (preset)", url(rocket, "pr:card"), size(640, 427))  # the builder's rs:auto:0:0 comes after it
    check("preset:card alone", "/" + sign("/pr:card/" + b64(rocket)) + "/pr:card/" + b64(rocket), size(300, 200))
    check("signed by the old pair", "/" + sign("/rs:fit:50:50/" + b64(rocket), 0) + "/rs:fit:50:50/" + b64(rocket), size(50, 33))
    check("bad signature: 403", "/" + sign("/rs:fit:50:50/" + b64(rocket), 0) + "/rs:fit:51:50/" + b64(rocket), status_is(403, "bad_signature"))
    # No --watermark-* on this serve: wm draws nothing, as imgproxy without a configured watermark.
    check("wm without a watermark image", url(rocket, "wm:0.5:ce", resizing_type="fit", width=100), size(100, 67))
    check("a Pro option (wmt): 400", url(rocket, "wmt:abc", resizing_type="fit", width=100), status_is(400, "not_supported"))
    check("unknown option: 400", url(rocket, "bogus:1", resizing_type="fit", width=100), status_is(400, "unknown_option"))
    check("bad argument: 400", url(rocket, "q:abc", resizing_type="fit", width=100), status_is(400, "bad_argument"))
    check("over --max-size: 400", url(rocket, resizing_type="fit", width=3000, height=3000, enlarge=True), status_is(400, "result_too_large"))
    check("plain source", "/" + sign("/rs:fit:100:0/plain/" + rocket + "@png") + "/rs:fit:100:0/plain/" + rocket + "@png", size(100, 67, "PNG"))
    first_builder = len(results)

    # The second builder, pyimgproxy: signed with the new pair, long option names, booleans as True/False, a plain
    # source unless the URL holds @ ? % or non-ASCII (then base64). Expected values from imgproxy's documentation.
    second = PyImgProxy(url=base, key=KEYS[1], salt=SALTS[1])
    unsigned = PyImgProxy(url=base)
    def py(built):
        return built.url[len(base):]
    img, queried = second.image(rocket), second.image(rocket + "?v=1")
    check("py: resize fit 300x200", py(img.resize("fit", 300, 200)), size(300, 200))
    check("py: resize fill, all 8 arguments", py(img.resize("fill", 300, 200, True, False, "no", 0, 10)), size(300, 200))
    check("py: enlarge(True) 1000x1000", py(img.resize("fit", 1000, 1000).enlarge(True)), size(1000, 667))
    check("py: size(100, 100, False, True)", py(img.size(100, 100, False, True)), size(100, 100))
    check("py: width + height (fit)", py(img.width(150).height(150)), size(150, 100))
    check("py: min-width 700 (hyphenated name)", py(img.min_width(700)), size(700, 467))
    # imgproxy's docs: with both, the image grows to min-height, then is cut to width.
    check("py: min-height 100 + width 50", py(img.width(50).min_height(100)), size(50, 100))
    check("py: zoom 0.25", py(img.zoom(0.25)), size(160, 107))
    check("py: dpr 2 + fill 150x100", py(img.resize("fill", 150, 100).dpr(2)), size(300, 200))
    check("py: extend(True, so) 800x800", py(img.resize("fit", 800, 800).extend(True, "so")), size(800, 800))
    check("py: extend_aspect_ratio 1:1", py(img.resize("fit", 300, 300).extend_aspect_ratio(True)), size(300, 300))
    check("py: gravity sm + fill", py(img.resize("fill", 200, 200).gravity("sm")), size(200, 200))
    check("py: crop 200x200 + fit 100", py(img.crop(200, 200).resize("fit", 100, 100)), size(100, 100))
    check("py: rotate 90 + width 100", py(img.rotate(90).width(100)), size(100, 150))
    check("py: auto_rotate(False)", py(second.image(rotated).auto_rotate(False).width(60)), size(60, 90))
    check("py: auto_rotate(True)", py(second.image(rotated).auto_rotate(True).width(60)), size(60, 40))
    # PNG: in a JPEG the corner's chroma block reaches the photo 10 px in.
    check("py: padding 10 + background hex", py(img.padding(10).background(hex_color="ff0000").format("png")), corner((255, 0, 0), 660, 447))
    check("py: background rgb + extend", py(img.resize("fit", 700, 500).extend(True).background(red=0, green=0, blue=255)), corner((0, 0, 255), 700, 500))
    for name, built in [("blur 2", img.blur(2)), ("sharpen 1", img.sharpen(1)), ("pixelate 8", img.pixelate(8)),
                        ("strip_metadata / keep_copyright / strip_color_profile", img.strip_metadata(True).keep_copyright(True).strip_color_profile(True)),
                        ("cachebuster v2", img.cachebuster("v2")), ("resizing_type fill + width/height", img.resizing_type("fill").width(200).height(200))]:
        check("py: " + name, py(built.resize("fit", 320, 320) if "fill" not in name else built), size(320, 214) if "fill" not in name else size(200, 200))
    low = check("py: quality 10", py(img.quality(10).width(300)), size(300, 200))
    check("py: quality 90 bigger", py(img.quality(90).width(300)), smaller(low, "quality 10"))
    check("py: format webp", py(img.format("webp").width(100)), size(100, 67, "WEBP"))
    check("py: format png", py(img.format("png").width(100)), size(100, 67, "PNG"))
    check("py: raw(True)", py(img.raw(True)), lambda s, h, b: (s == 200 and b == rocket_bytes, f"{s} {len(b)} bytes = original: {b == rocket_bytes}"))
    check("py: return_attachment(True) + png", py(img.return_attachment(True).format("png").width(100)),
          lambda s, h, b: (h.get("Content-Disposition") == 'attachment; filename="rocket.png"', h.get("Content-Disposition")))
    check("py: base64 source (query string)", py(queried.width(100)), size(100, 67))
    check("py: base64 source + format avif", py(queried.width(100).format("avif")),
          lambda s, h, b: (s == 200 and h.get("Content-Type") == "image/avif", f"{s} {h.get('Content-Type')}"))
    check("py: plain source has no base64", py(img.width(100)), lambda s, h, b: (s == 200 and "/plain/" in py(img.width(100)), f"{s} plain"))
    tampered = py(img.width(100)).replace("width:100", "width:101")
    check("py: tampered URL: 403", tampered, status_is(403, "bad_signature"))
    check("py: unsigned builder (/_/): 403", py(unsigned.image(rocket).width(100)), status_is(403, "bad_signature"))

    proc.terminate()
    proc.wait(timeout=30)
    origin.shutdown()
    subprocess.run(["rm", "-rf", cache])
    failed = results.count(False)
    firsts, seconds = results[:first_builder], results[first_builder:]
    print(f"pyimgproxy==0.4 (second URL builder): {seconds.count(True)} passed, {seconds.count(False)} failed")
    print(f"imgproxy compat: {len(results) - failed} passed, {failed} failed (imgproxy==1.0.0 URL builder: "
          f"{firsts.count(True)} passed, pyimgproxy==0.4: {seconds.count(True)} passed; {BIN})")
    sys.exit(1 if failed else 0)


def b64(text):
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def sign(path, pair=1):
    mac = hmac.new(bytes.fromhex(KEYS[pair]), bytes.fromhex(SALTS[pair]) + path.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


if __name__ == "__main__":
    main()
