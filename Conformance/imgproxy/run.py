#!/usr/bin/env python3
"""imgproxy's own test tables (cases/*.json, transcribed from its Go tests at commit eef3b312) asked of a real
`thumbcache serve`. Prints one line per case, `pass`, `FAIL <why>` or `skip <what serve lacks>`, then
`imgproxy conformance: N passed, M failed, K skipped`; exits 1 on any failure.

Run: Conformance/imgproxy/run.py [path/to/thumbcache] [--filter TEXT] [--verbose]
Python 3 standard library only. Sources come from a loopback origin serving images/ (imgproxy's test images); all
traffic is to 127.0.0.1. imgproxy's `local:///x` sources are asked as written, with serve's --local-root images/.

A case is skipped, never failed, when it needs something listed in MISSING below; each line names the option or
setting. When a feature lands in serve, delete its line: its cases run from then on."""
import base64, concurrent.futures, email.utils, hashlib, hmac, http.server, json, os, re, struct, subprocess, sys, tempfile, threading, time, zlib
import urllib.error, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMAGES = os.path.join(HERE, "images")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import loopback  # noqa: E402  (scripts/loopback.py: serve on 127.0.0.1)

# What serve lacks today, by what a case needs: an option (long and short names), a server setting, a source
# kind or an output property. Remove a line when serve gains the feature.
MISSING = {
    # options
    "preserve_hdr": "preserve_hdr (ph): 16-bit output", "ph": "preserve_hdr (ph): 16-bit output",
    # settings (imgproxy's config)
    "setting:use_linear_colorspace": "IMGPROXY_USE_LINEAR_COLORSPACE",
    "setting:url_replacements": "source URL replacements (IMGPROXY_URL_REPLACEMENTS)",
    "setting:arguments_separator": "another arguments separator (IMGPROXY_ARGUMENTS_SEPARATOR)",
    "source-file:absent": "a source image not copied into images/ (too large to commit, or not in the mirrored test-images)",
    "setting:max_src_resolution": "IMGPROXY_MAX_SRC_RESOLUTION",
    "setting:allowed_sources": "IMGPROXY_ALLOWED_SOURCES with wildcards and local://",
    "setting:cache_control_passthrough": "IMGPROXY_CACHE_CONTROL_PASSTHROUGH",
    "setting:etag": "IMGPROXY_USE_ETAG (serve's ETag is its own and always on)",
    "setting:last_modified": "IMGPROXY_USE_LAST_MODIFIED (the origin's Last-Modified, If-Modified-Since relayed)",
    "setting:last_modified_buster": "IMGPROXY_LAST_MODIFIED_BUSTER",
    "test-hook:redirect-all": "imgproxy's test hook sending every fetch to one local file (imagedata.RedirectAllRequestsTo)",
    "test-data:svgo-test-suite": "the svgo test suite (imgproxy's TEST_SVG_PATH; not in its repository)",
    "imgproxy-internal": "a request: the test calls an imgproxy-internal Go function whose input no request can carry",
    # sources
    # outputs
    "output:grey16": "16-bit greyscale output", "output:rgb16": "16-bit RGB output",
}
# imgproxy Pro's features: never expected of serve.
PRO = {"objects_position", "obj_pos", "op", "crop_objects", "c_obj", "blur_detections", "bd", "draw_detections", "dd",
       "gravity:obj", "gravity:objw"}
SETTING_FLAGS = {  # imgproxy settings serve has, as serve's flags
    "key": lambda value: [a for pair in value for a in ("--key", pair[0], "--salt", pair[1])],
    "presets": lambda value: [a for p in value for a in ("--preset", p)],
    "only_presets": lambda value: ["--only-presets"] if value else [],
    "watermark_path": lambda value: ["--watermark-path", os.path.join(IMAGES, value)],
    "enforce_webp": lambda value: ["--enforce-webp"] if value else [],
    "enforce_avif": lambda value: ["--enforce-avif"] if value else [],
    "enforce_jxl": lambda value: ["--enforce-jxl"] if value else [],
    "auto_jxl": lambda value: ["--auto-jxl"] if value else [],
    "preferred_formats": lambda value: ["--preferred-formats", ",".join(value)],
    "client_hints": lambda value: ["--client-hints"] if value else [],
    "base_url": lambda value: ["--source-base-url", value],  # a made-up host, pointed at the origin (server_args)
    "allow_security_options": lambda value: ["--allow-security-options"] if value else [],
    "local_root": lambda value: [],  # every serve has --local-root images/ (start_serve)
    "allow_loopback_sources": lambda value: [] if value else [NO_LOOPBACK],
    "quality": lambda value: ["--format-quality", f"jpeg={value},webp={value},avif={value},jxl={value},heic={value}"],
    "max_src_file_size": lambda value: ["--max-download-size", str(value)],
    "signature_size": lambda value: ["--signature-size", str(value)],
    "allowed_processing_options": lambda value: ["--allowed-processing-options", ",".join(value)],
    "skip_processing_formats": lambda value: [a for f in value for a in ("--skip-processing-format", f)],
    "path_prefix": lambda value: ["--path-prefix", value],
    "base64_url_includes_filename": lambda value: ["--base64-url-includes-filename"] if value else [],
    "trusted_signatures": lambda value: [a for sig in value for a in ("--trusted-signature", sig)],
    "always_rasterize_svg": lambda value: ["--always-rasterize-svg"] if value else [],
    "svg_sanitize": lambda value: [] if value else ["--no-sanitize-svg"],
}
NO_LOOPBACK = "(no --allow-loopback-sources)"
# imgproxy's server test suite (testutil/servertest/suite.go) starts every processing and integration test with
# AllowSecurityOptions = true: their URLs may name max_result_dimension, max_src_resolution, max_src_file_size.
SECURITY_OPTIONS_SUITES = ("processing/", "integration_test/")
# Settings that need nothing of serve: imgproxy's defaults, and IMGPROXY_PRESERVE_HDR, which changes only what a
# 16-bit source gives (those cases expect 16-bit output, output:rgb16/grey16 below).
DEFAULT_SETTINGS = {"use_linear_colorspace": False}
IRRELEVANT_SETTINGS = {"preserve_hdr"}


def needs(case):
    """What serve must have for this case, as MISSING/PRO keys, from the URL and the case's settings."""
    out = []
    url = re.sub(r"\{\w+:[^}]*\}", "SOURCE", case["url"] or "")  # a source to encode is not part of the path
    path = urllib.parse.urlsplit(url).path if url.startswith("/") else url
    head = path.split("/plain/")[0] if "/plain/" in path else path
    if "//" in head or path.startswith("/unsafe//"):
        out.append("path:empty-segment")
    if re.search(r"%3[aA]", head):
        out.append("path:percent-encoded-options")
    if re.search(r"/plain/[a-z]+:/[^/]", path):
        out.append("path:collapsed-slashes")
    for segment in path.split("/")[2:]:
        if segment in ("plain",) or segment.startswith("plain"):
            break
        name = segment.split(":", 1)[0]
        out.append(name)
        if name in ("g", "gravity") and segment.split(":")[1:2] in (["obj"], ["objw"]):
            out.append("gravity:" + segment.split(":")[1])
    for key, value in case.get("config", {}).items():
        if DEFAULT_SETTINGS.get(key, object()) != value and key not in IRRELEVANT_SETTINGS:
            out.append("setting:" + key)
    for src in re.findall(r"local:///[^@?]*|[\w/.-]+\.(?:bmp|tiff|heif|svg|ico|jxl)\b", url):
        ext = src.rsplit(".", 1)[-1]
        out.append("source:" + ext)
        if src.startswith("local:///") and not os.path.exists(os.path.join(IMAGES, src[len("local:///"):])):
            out.append("source-file:absent")
    expect = case["expect"]
    if expect.get("interpretation") in ("b-w", "grey16", "rgb16"):
        out.append("output:" + expect["interpretation"])
    if expect.get("format") in ("bmp", "tiff", "ico", "heic", "jxl", "gif", "svg"):
        out.append("output:" + expect["format"])
    out += case.get("request", {}).get("needs", [])
    return out


def missing_features(case):
    if any(need in PRO for need in needs(case)):
        return ["imgproxy Pro"]
    return sorted({MISSING[n] for n in needs(case) if n in MISSING})


def skip_reason(case):
    missing = missing_features(case)
    if missing == ["imgproxy Pro"]:
        return "imgproxy Pro"
    return "needs " + "; ".join(missing) if missing else None


# --- the origin -----------------------------------------------------------------------------------------------
# imgproxy's tests name made-up hosts and paths; the origin answers them with a 200x100 JPEG of imgproxy's.
HOSTS = re.compile(r"https?:/{1,2}(?:images\.dev|example\.com)/")
ALIASES = {"/lorem/ipsum.jpg": "test2.jpg", "/lorem/dolor/ipsum.jpg": "test2.jpg", "/image.jpg": "test2.jpg",
           "/path/to/image.jpg": "test2.jpg"}


BEHAVIOURS = {}  # "/o/<case>/<name>" -> a case's request.origin entry: status, headers, body file, expires_in


class Origin(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=IMAGES, **kwargs)

    def do_GET(self):
        behaviour = BEHAVIOURS.get("/".join(urllib.parse.urlsplit(self.path).path.split("/")[:4]))  # /o/<case>/<name>/…
        if behaviour is None:
            return super().do_GET()
        body = b""
        if behaviour.get("body"):
            with open(os.path.join(IMAGES, behaviour["body"]), "rb") as file:
                body = file.read()
        self.send_response(behaviour.get("status", 200))
        for name, value in behaviour.get("headers", {}).items():
            self.send_header(name, value)
        if "expires_in" in behaviour:
            self.send_header("Expires", email.utils.formatdate(time.time() + behaviour["expires_in"], usegmt=True))
        if body:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def translate_path(self, path):
        bare = urllib.parse.urlsplit(path).path
        return os.path.join(IMAGES, ALIASES[bare]) if bare in ALIASES else super().translate_path(path)

    def log_message(self, *args):
        pass


def start_origin():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- serve ----------------------------------------------------------------------------------------------------
def start_serve(binary, extra, cache):
    # imgproxy's tests read local:/// from their test data (servertest/suite.go): asked as written, under images/
    loopback_sources = [] if NO_LOOPBACK in extra else ["--allow-loopback-sources"]
    loopback_sources += ["--local-root", IMAGES]
    extra = [a for a in extra if a != NO_LOOPBACK]
    return loopback.start_serve(binary, ["--cache-dir", cache, *loopback_sources, "--max-size", "8192",
                                         "--timeout", "120", "--drain-timeout", "0", *extra])  # a debug build's blur of 400x400 takes seconds


fetch = loopback.fetch


# --- what came back -------------------------------------------------------------------------------------------
def sniff(body):
    """(format, width, height, interpretation or None) from an image's header."""
    if body.startswith(b"\x89PNG\r\n\x1a\n"):
        w, h, depth, ctype = struct.unpack(">IIBB", body[16:26])
        grey = ctype in (0, 4)
        interp = ("grey16" if grey else "rgb16") if depth == 16 else ("b-w" if grey else "srgb")
        return "png", w, h, interp
    if body.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(body):
            if body[i] != 0xFF:
                i += 1
                continue
            marker, length = body[i + 1], struct.unpack(">H", body[i + 2:i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w, comps = struct.unpack(">HHB", body[i + 5:i + 10])
                return "jpeg", w, h, "b-w" if comps == 1 else "srgb"
            i += 2 + length
        return "jpeg", None, None, None
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        chunk = body[12:16]
        if chunk == b"VP8X":
            w = 1 + int.from_bytes(body[24:27], "little")
            h = 1 + int.from_bytes(body[27:30], "little")
        elif chunk == b"VP8L":
            bits = int.from_bytes(body[21:25], "little")
            w, h = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        else:
            w, h = struct.unpack("<HH", body[26:30])
            w, h = w & 0x3FFF, h & 0x3FFF
        return "webp", w, h, "srgb"
    if body[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", body[6:10])
        return "gif", w, h, "srgb"
    if body.lstrip()[:5] in (b"<?xml", b"<svg ", b"<svg>"):
        return "svg", None, None, None
    if body[4:12] in (b"ftypavif", b"ftypavis", b"ftypheic", b"ftypheix", b"ftypmif1"):
        at = body.find(b"ispe")
        w, h = struct.unpack(">II", body[at + 8:at + 16]) if at > 0 else (None, None)
        return ("avif" if body[8:12] in (b"avif", b"avis") else "heic"), w, h, "srgb"
    if body.startswith(b"\xff\x0a") or body.startswith(b"\0\0\0\x0cJXL \r\n\x87\n"):
        w, h = jxl_size(body)
        return "jxl", w, h, "srgb"
    if body[:2] == b"BM" and len(body) >= 26:
        size = int.from_bytes(body[14:18], "little")
        if size == 12:
            w, h = struct.unpack("<HH", body[18:22])
        else:
            w, h = struct.unpack("<ii", body[18:26])
        return "bmp", w, abs(h), "srgb"
    if body[:4] == b"\0\0\1\0" and len(body) >= 22:
        return "ico", body[6] or 256, body[7] or 256, "srgb"
    if body[:4] in (b"II*\0", b"MM\0*"):
        order = "<" if body[:2] == b"II" else ">"
        at = struct.unpack(order + "I", body[4:8])[0]
        sizes = {}
        for i in range(struct.unpack(order + "H", body[at:at + 2])[0]):
            tag, kind, _ = struct.unpack(order + "HHI", body[at + 2 + 12 * i:at + 10 + 12 * i])
            value = body[at + 10 + 12 * i:at + 14 + 12 * i]
            sizes[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value[:2] if kind == 3 else value)[0]
        return "tiff", sizes.get(256), sizes.get(257), "srgb"
    return "unknown", None, None, None


def jxl_size(body):
    """The SizeHeader of a JPEG XL codestream, bare or in a container's first jxlc/jxlp box (ISO/IEC 18181-1)."""
    if not body.startswith(b"\xff\x0a"):
        at = 0
        while at + 8 <= len(body):
            size, kind = struct.unpack(">I4s", body[at:at + 8])
            if kind in (b"jxlc", b"jxlp"):
                body = body[at + 8 + (4 if kind == b"jxlp" else 0):]
                break
            if size < 8:
                return None, None
            at += size
        if not body.startswith(b"\xff\x0a"):
            return None, None
    bits = int.from_bytes(body[2:16], "little")
    position = 0

    def read(count):
        nonlocal position
        value = (bits >> position) & ((1 << count) - 1)
        position += count
        return value

    def u32():
        return 1 + read((9, 13, 18, 30)[read(2)])

    small = read(1)
    height = (read(5) + 1) * 8 if small else u32()
    ratio = read(3)
    ratios = {1: (1, 1), 2: (12, 10), 3: (4, 3), 4: (3, 2), 5: (16, 9), 6: (5, 4), 7: (2, 1)}
    if ratio:
        width = height * ratios[ratio][0] // ratios[ratio][1]
    else:
        width = (read(5) + 1) * 8 if small else u32()
    return width, height


def unfilter(kind, line, prev, bpp):
    """Undo one PNG row filter in place (a tight loop per filter: most rows of a framed image are Paeth)."""
    n = len(line)
    if kind == 1:
        for x in range(bpp, n):
            line[x] = (line[x] + line[x - bpp]) & 255
    elif kind == 2:
        if any(prev):
            line[:] = bytes((p + q) & 255 for p, q in zip(line, prev))
    elif kind == 3:
        for x in range(bpp):
            line[x] = (line[x] + (prev[x] >> 1)) & 255
        for x in range(bpp, n):
            line[x] = (line[x] + ((line[x - bpp] + prev[x]) >> 1)) & 255
    elif kind == 4:
        for x in range(bpp):
            line[x] = (line[x] + prev[x]) & 255
        for x in range(bpp, n):
            a, b, c = line[x - bpp], prev[x], prev[x - bpp]
            pa, pb = b - c, a - c
            pc = abs(pa + pb)
            pa, pb = abs(pa), abs(pb)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255


def png_rgba(body):
    """8-bit RGBA bytes of a PNG, as libvips' colourspace-to-sRGB plus alpha gives them (imgproxy's hash input):
    grey replicated, 16-bit samples' high byte, palette expanded, opaque alpha added."""
    pos, chunks = 8, []
    while pos < len(body):
        length, kind = struct.unpack(">I4s", body[pos:pos + 8])
        chunks.append((kind, body[pos + 8:pos + 8 + length]))
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if interlace:
        raise ValueError("interlaced PNG")
    data = zlib.decompress(b"".join(d for k, d in chunks if k == b"IDAT"))
    palette = next((d for k, d in chunks if k == b"PLTE"), b"")
    trns = next((d for k, d in chunks if k == b"tRNS"), b"")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = depth * channels
    bpp = max(1, bits // 8)
    stride = (w * bits + 7) // 8
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        kind, line = data[i], bytearray(data[i + 1:i + 1 + stride])
        i += 1 + stride
        unfilter(kind, line, prev, bpp)
        rows.append(line)
        prev = line
    out = bytearray()
    for line in rows:
        if depth == 16:
            samples = line[0::2]
        elif depth == 8:
            samples = line
        else:
            samples = bytearray((line[(x * depth) // 8] >> (8 - depth - (x * depth) % 8)) & ((1 << depth) - 1) for x in range(w))
        if ctype == 3:
            for index in samples[:w]:
                out += palette[3 * index:3 * index + 3] + bytes([trns[index] if index < len(trns) else 255])
        elif ctype == 0:
            scale = 255 // ((1 << depth) - 1) if depth < 8 else 1
            for s in samples[:w]:
                out += bytes([s * scale] * 3 + [255])
        elif ctype == 4:
            for x in range(w):
                out += bytes([samples[2 * x]] * 3 + [samples[2 * x + 1]])
        elif ctype == 2:
            for x in range(w):
                out += samples[3 * x:3 * x + 3] + b"\xff"
        else:
            out += samples[:4 * w]
    return bytes(out)


# --- cases ----------------------------------------------------------------------------------------------------
def b64(text):
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def resolve(case, url, origin):
    """The URL as asked of serve: imgproxy's made-up hosts pointed at the loopback origin, keeping a collapsed //
    collapsed; {b64:…} and {pathescape:…} sources encoded after that; {sig} signed with the case's key pair.
    local:/// sources are asked as written (serve has --local-root images/)."""
    url = HOSTS.sub(lambda m: ("http:/" if m.group(0).count("/") == 2 else "http://") + origin.split("//", 1)[1] + "/", url)
    url = re.sub(r"\{origin:([^}]*)\}", lambda m: f"{origin}/o/{id(case)}/{m.group(1)}", url)
    url = re.sub(r"\{b64:([^}]*)\}", lambda m: b64(m.group(1)), url)
    url = re.sub(r"\{pathescape:([^}]*)\}", lambda m: urllib.parse.quote(m.group(1), safe="$&+:=@"), url)
    if "{sig}" in url:
        request = case.get("request", {})
        key, salt = case["config"]["key"][request.get("sign_with", 0)]
        url = "/" + sign(key, salt, url.split("/", 2)[2], request.get("truncate")) + "/" + url.split("/", 2)[2]
    return url


def sign(key, salt, path, truncate=None):
    """imgproxy's signature: base64url of HMAC-SHA256(key, salt + path), optionally its first bytes only."""
    mac = hmac.new(bytes.fromhex(key), bytes.fromhex(salt) + ("/" + path if not path.startswith("/") else path).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:truncate] if truncate else mac).rstrip(b"=").decode()


def check_vectors(case):
    """imgproxy's own signature vectors (over the path "asd", signed as "/asd"): our signer must reproduce them."""
    for path, by_pair in case.get("request", {}).get("vectors", {}).items():
        for pair, expected in by_pair.items():
            key, salt = case["config"]["key"][int(pair)]
            got = sign(key, salt, path)
            if got != expected:
                return f"the runner's signer gives {got} for imgproxy's vector {expected}"
    return None


PIXELS, PIXELS_LOCK = {"bit-exact": 0, "resampled, not compared": 0}, threading.Lock()


def check(case, status, headers, body, ask):
    expect = case["expect"]
    if "status_not" in expect:
        return f"status {status}, expected none of {expect['status_not']}" if status in expect["status_not"] else None
    if status != expect.get("status", 200):
        detail = body[:160].decode("utf-8", "replace") if status != 200 else f"{len(body)} bytes"
        return f"status {status}, expected {expect.get('status', 200)} ({detail})"
    for key, value in expect.get("headers", {}).items():
        if headers.get(key) != value:
            return f"header {key}: {headers.get(key)!r}, expected {value!r}"
    for key, pattern in expect.get("headers_match", {}).items():
        if not re.fullmatch(pattern, headers.get(key) or ""):
            return f"header {key}: {headers.get(key)!r}, expected /{pattern}/"
    for key, value in expect.get("headers_not", {}).items():
        if headers.get(key) == value:
            return f"header {key}: {value!r}, expected anything else"
    for key in expect.get("headers_present", []):
        if key not in headers:
            return f"no {key} header"
    if expect.get("body_not_contains") and expect["body_not_contains"].encode() in body:
        return f"the answer quotes {expect['body_not_contains']!r}: {body[:160].decode('utf-8', 'replace')}"
    if status != 200:
        if "error" in expect:
            got = json.loads(body).get("error") if headers.get("Content-Type") == "application/json" else None
            if got != expect["error"]:
                return f"error {got!r}, expected {expect['error']!r}"
        return None
    fmt, w, h, interp = sniff(body)
    if expect.get("width") is not None and (w, h) != (expect["width"], expect["height"]):
        return f"{fmt} {w}x{h}, expected {expect['width']}x{expect['height']}"
    if expect.get("format") and fmt != expect["format"]:
        return f"format {fmt}, expected {expect['format']}"
    if expect.get("interpretation") and interp != expect["interpretation"]:
        return f"interpretation {interp}, expected {expect['interpretation']}"
    if "max_body_bytes" in expect and len(body) > expect["max_body_bytes"]:
        return f"{len(body)} bytes, over {expect['max_body_bytes']}"
    if "sha256_rgba" in expect and fmt == "png":
        got = hashlib.sha256(png_rgba(body)).hexdigest()
        if got == expect["sha256_rgba"]:
            with PIXELS_LOCK:
                PIXELS["bit-exact"] += 1
        elif expect.get("pixels_exact"):  # no resampling: any renderer must give these bytes
            return f"pixels differ from imgproxy's (SHA256 of RGBA {got[:16]}…, expected {expect['sha256_rgba'][:16]}…)"
        else:  # imgproxy's hash pins libvips' own resampling or filter: not a verdict on ours
            with PIXELS_LOCK:
                PIXELS["resampled, not compared"] += 1
    if "body_differs_from_source" in expect:
        with open(os.path.join(IMAGES, expect["body_differs_from_source"]), "rb") as source:
            if body == source.read():
                return "the source's own bytes, expected a processed image"
    if "body_equals_source" in expect:
        with open(os.path.join(IMAGES, expect["body_equals_source"]), "rb") as source:
            if body != source.read():
                return f"{len(body)} bytes, not the source's own bytes"
    for other in expect.get("same_body_as", []):
        other_status, _, other_body = ask(other)
        if other_status != 200 or other_body != body:
            return f"{other} answered differently ({other_status}, {len(other_body)} bytes)"
    return None


def server_args(case, origin):
    """serve's flags for the case's settings; a made-up host in a setting (IMGPROXY_BASE_URL) is the origin."""
    args = ["--allow-security-options"] if case["file"].startswith(SECURITY_OPTIONS_SUITES) else []
    for key, value in case.get("config", {}).items():
        if key in SETTING_FLAGS:
            args += SETTING_FLAGS[key](value)
    return [HOSTS.sub(origin + "/", arg) for arg in args]


def starts(binary, args):
    """Whether serve starts with these flags (a bad preset must stop it at start-up)."""
    cache = tempfile.mkdtemp(prefix="imgproxy-conformance-")
    try:
        proc, _ = start_serve(binary, args, cache)
    except RuntimeError:
        return False
    finally:
        subprocess.run(["rm", "-rf", cache])
    proc.terminate()
    proc.wait(timeout=30)
    return True


def run_case(case, binary, servers, lock, origin_url):
    """(verdict line, seconds): asks one runnable case, starting its serve configuration on first use."""
    key = tuple(server_args(case, origin_url))
    started = time.time()
    try:
        why = check_vectors(case)
        if why is None and "starts" in case["expect"]:
            started_ok = starts(binary, list(key))
            if started_ok != case["expect"]["starts"]:
                why = f"serve {'started' if started_ok else 'refused to start'} with {' '.join(key)}"
        elif why is None:
            with lock:
                if key not in servers:
                    cache = tempfile.mkdtemp(prefix="imgproxy-conformance-")
                    servers[key] = (*start_serve(binary, list(key), cache), cache)
            base = servers[key][1]
            headers = case.get("request", {}).get("headers", {})
            ask = lambda url: fetch(base, resolve(case, url, origin_url), headers)  # noqa: E731
            status, head, body = ask(case["url"])
            why = check(case, status, head, body, ask)
    except Exception as error:  # an undecodable answer or a server that would not start is a failure
        why = f"{type(error).__name__}: {error}"
    return why, time.time() - started


def inflate_images():
    """Test images too big to commit as they are (BMP's uncompressed rows) are committed gzipped: each one is inflated
    beside its .gz (git ignores the inflated copy, images/test-images/.gitignore) before any case asks for it."""
    import gzip
    for folder, _, names in os.walk(IMAGES):
        for name in names:
            if name.endswith(".gz") and not os.path.exists(os.path.join(folder, name[:-3])):
                with gzip.open(os.path.join(folder, name)) as packed, open(os.path.join(folder, name[:-3]) + ".part", "wb") as out:
                    out.write(packed.read())
                os.replace(os.path.join(folder, name[:-3]) + ".part", os.path.join(folder, name[:-3]))


def main():
    inflate_images()
    argv = sys.argv[1:]
    verbose = "--verbose" in argv
    pattern = argv[argv.index("--filter") + 1] if "--filter" in argv else None
    positional = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--filter")]
    binary = positional[0] if positional else os.path.join(ROOT, ".build", "debug", "thumbcache")
    if not os.access(binary, os.X_OK):
        sys.exit(f"no thumbcache binary at {binary}: run swift build first, or give its path")
    cases = []
    for name in sorted(os.listdir(os.path.join(HERE, "cases"))):
        if name.endswith(".json"):
            with open(os.path.join(HERE, "cases", name)) as file:
                cases += json.load(file)
    if pattern:
        cases = [c for c in cases if pattern in c["test"] or pattern in c["file"]]
    origin = start_origin()
    origin_url = f"http://127.0.0.1:{origin.server_port}"
    servers, lock, results, skips = {}, threading.Lock(), {"pass": 0, "FAIL": 0, "skip": 0}, {}
    started = time.time()
    runnable = [c for c in cases if not skip_reason(c)]
    for case in runnable:
        for name, behaviour in case.get("request", {}).get("origin", {}).items():
            BEHAVIOURS[f"/o/{id(case)}/{name}"] = behaviour
    try:
        # Four cases in flight: serve renders on its workers while this process decodes the previous answers.
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            verdicts = dict(zip(map(id, runnable), pool.map(lambda c: run_case(c, binary, servers, lock, origin_url), runnable)))
    finally:
        for proc, _, _ in servers.values():
            proc.terminate()
        for proc, _, cache in servers.values():
            proc.wait(timeout=30)
            subprocess.run(["rm", "-rf", cache])
        origin.shutdown()
    for case in cases:
        name = f"{case['file']} {case['test']}"
        reason = skip_reason(case)
        if reason:
            results["skip"] += 1
            features = missing_features(case)
            for feature in features:
                total, alone = skips.get(feature, (0, 0))
                skips[feature] = (total + 1, alone + (len(features) == 1))
            print(f"skip {name}: {reason}")
            continue
        why, seconds = verdicts[id(case)]
        if why:
            results["FAIL"] += 1
            print(f"FAIL {name}: {why}   {case['url']}")
        else:
            results["pass"] += 1
            print(f"pass {name}" + (f"   {case['url']} ({seconds:.2f} s)" if verbose else ""))
    print("what the skipped cases need (a case may need several; 'alone': the only thing it needs):")
    for feature, (total, alone) in sorted(skips.items(), key=lambda item: (-item[1][0], item[0])):
        print(f"  {total:4d} ({alone:3d} alone) {feature}")
    differing = [c for c in cases if "imgproxy_status" in c["expect"] and not skip_reason(c) and not verdicts[id(c)][0]]
    pairs = sorted({"%s for %s" % (c["expect"]["status"], c["expect"]["imgproxy_status"]) for c in differing})
    print(f"  statuses: {len(differing)} passing cases expect serve's documented status where imgproxy's differs "
          f"({', '.join(pairs)}; see each case's note)")
    print(f"  pixels of passing cases: {PIXELS['bit-exact']} bit-exact with imgproxy's SHA256, "
          f"{PIXELS['resampled, not compared']} resampled or filtered (imgproxy pins libvips' own kernel: not compared)")
    print(f"({time.time() - started:.1f} s, {len(servers)} serve configurations, {binary})")
    print(f"imgproxy conformance: {results['pass']} passed, {results['FAIL']} failed, {results['skip']} skipped")
    sys.exit(1 if results["FAIL"] else 0)


if __name__ == "__main__":
    main()
