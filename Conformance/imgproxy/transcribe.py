#!/usr/bin/env python3
"""How cases/*.json were made: imgproxy's Go test tables (commit eef3b312), read from a local mirror of its
repository, written out as data. Not run by the tests; rerun it only to re-transcribe:
    Conformance/imgproxy/transcribe.py /path/to/imgproxy/repo-git-dir
The processing suites' tables are read from the Go files with regular expressions (they are uniform struct
literals); each case's expected pixel hash comes from imgproxy's testdata/test-hashes (a type byte, then 32 bytes of
SHA256 over the output decoded to 8-bit RGBA, or a DCT vector we cannot reproduce). Tables that are code rather than
literals (parser, path, signature, integration tests) are written out by hand below, each citing its test function."""
import json, os, re, subprocess, sys

if len(sys.argv) != 2:
    sys.exit("usage: transcribe.py IMGPROXY_GIT_DIR   (a clone of imgproxy's repository holding commit eef3b312)")
GIT = sys.argv[1]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
COMMIT = "eef3b31299727e05cb7d35c02cfbb009666dafa6"


def show(path):
    return subprocess.run(["git", "-C", GIT, "show", f"{COMMIT}:{path}"], capture_output=True, check=True).stdout


def text(path):
    return show(path).decode()


GRAVITY = {"Center": "ce", "North": "no", "South": "so", "East": "ea", "West": "we", "NorthEast": "noea",
           "NorthWest": "nowe", "SouthEast": "soea", "SouthWest": "sowe", "Replicate": "re", "FocusPoint": "fp",
           "Smart": "sm"}
COLORS = {"White": (255, 255, 255), "Gray": (127, 127, 127), "Red": (255, 0, 0), "Blue": (0, 0, 255),
          "Magenta": (255, 0, 255)}
INTERP = {"SRGB": "srgb", "RGB16": "rgb16", "BW": "b-w", "Grey16": "grey16"}


def v(x):  # Go's %v of a float64 or int
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


def g(x):  # Go's %g
    return "%g" % x


def f6(x):  # Go's %f
    return "%.6f" % x


def hash_of(test_path):
    """imgproxy's pinned hash for a test path (TestX/TestY/sub/key): ('sha256', hex) or ('dct', None) or None."""
    try:
        data = show(f"testdata/test-hashes/{test_path}.hash")
    except subprocess.CalledProcessError:
        return None
    if data[0] == 0:
        return ("sha256", data[1:33].hex())
    return ("dct", None)


def function_body(source, name):
    start = source.index(f") {name}() {{")
    end = source.find("\nfunc ", start)
    return source[start:end if end > 0 else len(source)]


def parse_value(raw, env):
    raw = raw.strip().rstrip(",")
    if m := re.fullmatch(r"processing\.Gravity(\w+)", raw):
        return GRAVITY[m.group(1)]
    if m := re.fullmatch(r"processing\.Resize(\w+)", raw):
        return {"Fit": "fit", "Fill": "fill", "FillDown": "fill-down", "Force": "force", "Auto": "auto"}[m.group(1)]
    if m := re.fullmatch(r"&color\.(\w+)", raw):
        return COLORS[m.group(1)]
    if m := re.fullmatch(r"imagetype\.(\w+)", raw):
        return m.group(1).lower()
    if m := re.fullmatch(r"vips\.Interpretation(\w+)", raw):
        return INTERP[m.group(1)]
    if m := re.fullmatch(r'"(.*)"', raw):
        return m.group(1)
    if raw == "nil":
        return None
    if raw in ("true", "false"):
        return raw == "true"
    if m := re.fullmatch(r"testSize\{(.*)\}", raw, re.S):
        parts = [p.split(":")[-1] for p in m.group(1).split(",") if p.strip()]
        return tuple(int(parse_value(p, env)) for p in parts)
    if raw in env:
        return env[raw]
    expr = re.sub(r"(\w+)\.width", r"env['\1'][0]", raw)
    expr = re.sub(r"(\w+)\.height", r"env['\1'][1]", expr).replace("/", "//")
    return eval(expr, {"env": env})  # numbers and size arithmetic from the table, nothing else


def table(source, func, struct):
    """The entries of func's testCases literal: (fields, outSize, outInterpretation)."""
    body = function_body(source, func)
    env = {}
    for name, value in re.findall(r"(\w+)\s*:=\s*(testSize\{[^}]*\})", body):
        env[name] = parse_value(value, env)
    for name, value in re.findall(r"^var (\w+)\s*=\s*(testSize\{[^}]*\})", source, re.M):
        env[name] = parse_value(value, env)
    entries = []
    pattern = struct + r"\{(.*?)\}\s*,\s*(?://[^\n]*\s*)?outSize:\s*(testSize\{[^}]*\}|\w+)\s*,?\s*(?:outInterpretation:\s*([\w.]+))?"
    for fields_text, out, interp in re.findall(pattern, body, re.S):
        fields_text = re.sub(r"//[^\n]*", "", fields_text)
        fields = {}
        if ":" in fields_text:
            for key, value in re.findall(r"(\w+):\s*([^,\n]+)", fields_text):
                fields[key] = parse_value(value, env)
        else:
            fields["_positional"] = [parse_value(p, env) for p in fields_text.split(",") if p.strip()]
        entries.append((fields, parse_value(out, env), parse_value(interp, env) if interp else None))
    assignments = dict(re.findall(r"tc\.opts\.(\w+)\s*=\s*(.+)", body))
    for fields, _, _ in entries:
        for key, value in assignments.items():
            fields[key] = parse_value(value, env)
    return entries


def opts(pairs):
    return "/".join(f"{k}:{':'.join(a)}" for k, a in pairs)


def args(*values):
    """OptionArgs: Set(i, v) at positions, trailing empties dropped."""
    out = list(values)
    while out and out[-1] == "":
        out.pop()
    return out


cases = []


def unique(names, name):
    n = names.get(name, 0)
    names[name] = n + 1
    return name if n == 0 else f"{name}#{n:02d}"


def add(file, test, url, expect, config=None, note=None, request=None):
    """One case: imgproxy's file and test (function/subtest), the URL, imgproxy settings it runs under (config),
    how to ask (request: headers, which key pair signs {sig}, needs), and what imgproxy expects."""
    record = {"file": file, "test": test, "url": url}
    if request:
        record["request"] = request
    if config:
        record["config"] = config
    record["expect"] = expect
    if note:
        record["note"] = note
    cases.append(record)


def pixel_expect(test_path, size, interp=None, fmt=None, exact=False):
    """exact: imgproxy's result is the source's pixels moved, cropped or framed, never resampled or filtered, so any
    renderer must give the same bytes; otherwise its hash pins libvips' own resampling and is only compared."""
    expect = {"status": 200, "width": size[0], "height": size[1]}
    if fmt:
        expect["format"] = fmt
    if interp:
        expect["interpretation"] = interp
    pinned = hash_of(test_path)
    if pinned is None:
        raise SystemExit(f"no hash for {test_path}: transcription out of step with imgproxy's tables")
    if pinned[0] == "sha256":
        expect["sha256_rgba"] = pinned[1]
        expect["pixels_exact"] = exact
    else:
        expect["hash_skipped"] = "imgproxy pins a DCT hash computed by libvips (testutil/dct2.c); not reproduced here"
    return expect


def processing_url(options, image):
    return f"/unsafe/{options}/plain/local:///{image}"


def write(name):
    global cases
    with open(os.path.join(OUT, name), "w") as out:
        out.write("[\n" + ",\n".join(json.dumps(c, separators=(", ", ": ")) for c in cases) + "\n]\n")
    print(f"{name}: {len(cases)} cases")
    cases = []


def geometry_scale(kind, w, h, dpr=0, enlarge=False, src=(200, 100)):
    """imgproxy's scale of geometry.png (200x100) for rs:kind:w:h at dpr: 1.0 means no resampling."""
    d = dpr or 1
    factors = [f for f in ((w * d / src[0]) if w else None, (h * d / src[1]) if h else None) if f]
    scale = (min(factors) if kind == "fit" else max(factors)) if factors else d
    return scale if enlarge else min(scale, 1.0)


def offset_name(x, y):
    return f"_offset_{f6(x)}_{f6(y)}" if x or y else ""


def dpr_name(d):
    return f"_dpr_{g(d)}" if d else ""


def crop_tests():
    file = "processing/crop_test.go"
    src = text(file)
    names = {}
    for fields, out, interp in table(src, "TestResizeFill", "resizeFillGravityTestCase"):
        w, h = fields["size"]
        gr, x, y, d = fields.get("gravity"), fields.get("xOffset", 0), fields.get("yOffset", 0), fields.get("dpr", 0)
        pairs = [("rs", ["fill", v(w), v(h)])]
        if gr:
            pairs.append(("g", args(gr, v(x) if x else "", v(y) if y else "")))
        if d:
            pairs.append(("dpr", [v(d)]))
        name = unique(names, f"resizeFill_{w}x{h}" + (f"_gravity_{gr}" if gr else "") + offset_name(x, y) + dpr_name(d))
        test = f"TestCrop/TestResizeFill/{name}"
        add(file, test, processing_url(opts(pairs), "geometry.png"),
            pixel_expect(test + "/test", out, interp, exact=geometry_scale("fill", w, h, d) == 1))
    names = {}
    for fields, out, interp in table(src, "TestCrop", "cropTestCase"):
        w, h = fields["cropSize"]
        gr, cg = fields.get("gravity"), fields.get("cropGravity")
        x, y, d = fields.get("xOffset", 0), fields.get("yOffset", 0), fields.get("dpr", 0)
        crop = [v(w), v(h)]
        if cg:
            crop = args(v(w), v(h), cg, v(x) if x else "", v(y) if y else "")
        pairs = [("crop", crop)]
        if gr:
            pairs.append(("gravity", [gr]))
        if d:
            pairs.append(("dpr", [v(d)]))
        name = (f"_gravity_{gr}" if gr else "") + (f"_crop_gravity_{cg}" if cg else "") + f"_crop_{w}x{h}" + offset_name(x, y) + dpr_name(d)
        name = unique(names, name.lstrip("_"))
        test = f"TestCrop/TestCrop/{name}"
        add(file, test, processing_url(opts(pairs), "geometry.png"), pixel_expect(test + "/test", out, interp, exact=d in (0, 1)))
    # TestCropGravityPriority: crop's own gravity wins over g; three URLs, identical bytes.
    urls = [processing_url("crop:50:50/gravity:no", "geometry.png"), processing_url("crop:50:50:no", "geometry.png"),
            processing_url("crop:50:50:no/gravity:so", "geometry.png")]
    add(file, "TestCrop/TestCropGravityPriority", urls[0], {"status": 200, "width": 50, "height": 50, "same_body_as": urls[1:]})


def extend_tests():
    file = "processing/extend_test.go"
    src = text(file)
    for func, struct, option, prefix in [("TestExtend", "extendTestCase", "extend", "extend"),
                                         ("TestExtendAspectRatio", "extendArTestCase", "extend_aspect_ratio", "extendAr")]:
        names = {}
        for fields, out, interp in table(src, func, struct):
            w, h = fields["size"]
            gr, x, y, d = fields.get("gravity"), fields.get("xOffset", 0), fields.get("yOffset", 0), fields.get("dpr", 0)
            pairs = [("width", [v(w)]), ("height", [v(h)]),
                     (option, args("1", gr or "", v(x) if x else "", v(y) if y else ""))]
            if d:
                pairs.append(("dpr", [v(d)]))
            name = unique(names, f"{prefix}_{w}x{h}" + (f"_gravity_{gr}" if gr else "") + offset_name(x, y) + dpr_name(d))
            test = f"TestExtend/{func}/{name}"
            add(file, test, processing_url(opts(pairs), "geometry.png"),
                pixel_expect(test + "/test", out, interp, exact=geometry_scale("fit", 0, 0, d) == 1))


def padding_tests():
    file = "processing/padding_test.go"
    for fields, out, interp in table(text(file), "TestPadding", "paddingTestCase"):
        d, t, r, b, l = (fields.get(k, 0) for k in ("dpr", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft"))
        url = processing_url(f"dpr:{f6(d)}/padding:{t}:{r}:{b}:{l}/background:f00/enlarge:1", "geometry.png")
        test = f"TestPadding/TestPadding/dpr_{g(d)}_pad_{t}_{r}_{b}_{l}"
        add(file, test, url, pixel_expect(test + "/test", out, interp, exact=d == 1))


def size_tests():
    file = "processing/processing_test.go"
    src = text(file)
    for func in ["TestResizeToFit", "TestResizeToFitEnlarge", "TestResizeToFitExtend", "TestResizeToFitExtendAR",
                 "TestResizeToFill", "TestResizeToFillEnlarge", "TestResizeToFillExtend", "TestResizeToFillExtendAR",
                 "TestResizeToFillDown", "TestResizeToFillDownEnlarge", "TestResizeToFillDownExtend",
                 "TestResizeToFillDownExtendAR", "TestResultSizeLimit"]:
        short = func != "TestResultSizeLimit"
        for fields, out, interp in table(src, func, "sizeTestCase"):
            f = lambda k, d=0: fields.get(k, d)  # noqa: E731
            pairs = []
            if f("limit"):
                pairs.append(("max_result_dimension", [v(f("limit"))]))
            pairs.append(("resize", [f("resizingType"), v(f("width")), v(f("height"))]))
            for key, option in [("enlarge", "enlarge"), ("extend", "extend"), ("extendAR", "extend_aspect_ratio")]:
                if f(key, False):
                    pairs.append((option, ["1"]))
            if f("rotate"):
                pairs.append(("rotate", [v(f("rotate"))]))
            pad = [f("paddingTop"), f("paddingRight"), f("paddingBottom"), f("paddingLeft")]
            if any(pad):
                pairs.append(("padding", [v(p) for p in pad]))
            if short:
                name = f"{f('width')}x{f('height')}"
            else:
                name = f"{f('resizingType')}:{f('width')}x{f('height')}" + (f":limit:{f('limit')}" if f("limit") else "")
                name += "".join(f"_{label}:true" for key, label in [("enlarge", "en"), ("extend", "ex"), ("extendAR", "exAR")] if f(key, False))
                name += f"_rotate:{f('rotate')}" if f("rotate") else ""
                name += "_padding:{}x{}x{}x{}".format(*pad) if any(pad) else ""
            test = f"TestProcessing/{func}/{name}"
            exact = not f("limit") and geometry_scale(f("resizingType").replace("fill-down", "fill"), f("width"), f("height"), 0, f("enlarge", False)) == 1
            add(file, test, processing_url(opts(pairs), "geometry.png"), pixel_expect(test + "/test", out, interp, exact=exact))
    add(file, "TestProcessing/TestImageResolutionTooLarge", "/unsafe/max_src_resolution:0.00001/plain/local:///geometry.png",
        {"status": 422})


def rotate_flip_tests():
    file = "processing/rotate_and_flip_test.go"
    images = [f"orientation-{i}.png" for i in range(8)]

    def url(i, rotate, flip_h, flip_v, auto):
        pairs = []
        if rotate:
            pairs.append(("rotate", [v(rotate)]))
        if flip_h or flip_v:
            pairs.append(("flip", args("1" if flip_h else "", "1" if flip_v else "")))
        if not auto:
            pairs.append(("auto_rotate", ["0"]))
        return processing_url(opts(pairs), images[i])

    def key(i, rotate, flip_h, flip_v, auto):
        return f"img-{i}_rotate-{rotate}_flip-{v(flip_h)}_{v(flip_v)}_ar-{v(auto)}"

    for auto in [False, True]:
        for i in range(8):
            k = key(i, 0, False, False, auto)
            add(file, f"TestRotateAndFlip/TestOrientationAutoRotate/{k}", url(i, 0, False, False, auto),
                pixel_expect(f"TestRotateAndFlip/TestOrientationAutoRotate/{k}", (0, 0), exact=True) | {"width": None, "height": None})
    for func, auto in [("TestRotateFlip", False), ("TestRotateFlipAutoRotate", True)]:
        for i in range(8):
            for rotate in [0, 90, 180, 270]:
                for flip_h in [False, True]:
                    for flip_v in [False, True]:
                        k = key(i, rotate, flip_h, flip_v, auto)
                        add(file, f"TestRotateAndFlip/{func}/{k}", url(i, rotate, flip_h, flip_v, auto),
                            pixel_expect(f"TestRotateAndFlip/{func}/{k}", (0, 0), exact=True) | {"width": None, "height": None})


def trim_tests():
    file = "processing/trim_test.go"
    src = text(file)
    for func in ["TestThreshold", "TestColor", "TestAlpha"]:
        for fields, out, interp in table(src, func, "trimTestCase"):
            t, c = fields.get("threshold", 0), fields.get("color")
            eh, ev = fields.get("equalHor", False), fields.get("equalVer", False)
            a = args(v(t), "%02x%02x%02x" % c if c else "", "1" if eh else "", "1" if ev else "")
            name = f"trim_threshold_{t}" + (f"_color_#{'%02x%02x%02x' % c}" if c else "") + ("_equalHor" if eh else "") + ("_equalVer" if ev else "")
            test = f"TestTrim/{func}/{name}"
            add(file, test, processing_url(opts([("trim", a)]), fields["sourceFile"]), pixel_expect(test + "/test", out, interp, exact=True))


def watermark_tests():
    file = "processing/watermark_test.go"
    src = text(file)
    for func in ["TestWatermark", "TestWatermarkAnimation"]:
        names = {}
        for fields, out, interp in table(src, func, "watermarkTestCase"):
            p, o = fields["position"], fields.get("opacity", 0)
            x, y, s, d = (fields.get(k, 0) for k in ("xOffset", "yOffset", "scale", "dpr"))
            pairs = [("watermark", args(v(o), p, v(x) if x else "", v(y) if y else "", v(s) if s else ""))]
            if d:
                pairs.append(("dpr", [v(d)]))
            if fields.get("format"):
                pairs.append(("format", [fields["format"]]))
            name = f"{p}_opacity_{g(o)}" + (f"_offset_{g(x)}_{g(y)}" if x or y else "") + (f"_scale_{g(s)}" if s else "") + dpr_name(d)
            test = f"TestWatermark/{func}/{unique(names, name)}"
            note = ("imgproxy answers an animated GIF, every frame watermarked; its test pins no format, only size and "
                    "a hash of libvips' resampling; serve answers the first frame as PNG") if func == "TestWatermarkAnimation" else None
            add(file, test, processing_url(opts(pairs), fields["sourceFile"]), pixel_expect(test + "/test", out, interp),
                config={"watermark_path": "geometry.png"}, note=note)


def colorspace_tests():
    file = "processing/colorspace_test.go"
    src = text(file)
    for func, suffix, config in [("TestColorspace", "", {"preserve_hdr": True}),
                                 ("TestLinearColorspace", "_linear", {"preserve_hdr": True, "use_linear_colorspace": True}),
                                 ("TestDownscaleHDR", "_no_preserve_hdr", {}),
                                 ("TestWatermarkColorspace", "", {"preserve_hdr": True})]:
        for fields, out, interp in table(src, func, "colorspaceTestCase"):
            options = f"resize:fill:{out[0]}:{out[1]}/enlarge:1/format:{fields['outFormat']}"
            cfg = dict(config)
            if fields.get("watermarkFile"):
                options += "/watermark:0.5"
                cfg["watermark_path"] = fields["watermarkFile"]
            test = f"TestColorspace/{func}/{fields['name']}{suffix}"
            add(file, test, processing_url(options, fields["sourceFile"]),
                pixel_expect(test + "/test", out, interp, fields["outFormat"]), config=cfg or None)
    # This table's rows carry configValue between opts and outSize: read them as two rows by hand.
    for name, hdr, config_value, interp in [("option-true-overrides-config-false", True, False, "rgb16"),
                                            ("option-false-overrides-config-true", False, True, "srgb")]:
        fields, out = {"name": name, "sourceFile": "test-images/png/16-bpp.png", "outFormat": "png",
                       "preserveHDR": hdr, "configValue": config_value}, (100, 100)
        options = f"resize:fill:{out[0]}:{out[1]}/enlarge:1/format:{fields['outFormat']}/preserve_hdr:{v(fields['preserveHDR'])}"
        test = f"TestColorspace/TestPreserveHDROptionOverride/{fields['name']}"
        add(file, test, processing_url(options, fields["sourceFile"]), pixel_expect(test + "/test", out, interp, fields["outFormat"]),
            config={"preserve_hdr": fields["configValue"]})


def flatten_tests():
    file = "processing/flatten_test.go"
    for fields, out, interp in table(text(file), "TestBackground", "flattenTestCase"):
        pairs = [("resize", ["fill", "300", "300"]), ("enlarge", ["1"]), ("padding", ["100"]), ("format", [fields["format"]])]
        if fields.get("background"):
            pairs.append(("background", [v(c) for c in fields["background"]]))
        test = f"TestFlatten/TestBackground/{fields['name']}"
        add(file, test, processing_url(opts(pairs), fields["sourceFile"]), pixel_expect(test + "/test", out, interp, fields["format"]),
            config={"preserve_hdr": True})


def filter_tests():
    file = "processing/apply_filters_test.go"
    for fields, out, interp in table(text(file), "TestEffects", "effectTestCase"):
        b, s, p = fields["_positional"]
        name = "_".join(part for part in [f"blur_{f6(b)}" if b else "", f"sharpen_{f6(s)}" if s else "", f"pixelate_{p}" if p else ""] if part)
        test = f"TestApplyFilters/TestEffects/{name}"
        add(file, test, processing_url(f"blur:{f6(b)}/sharpen:{f6(s)}/pixelate:{p}", "test-images/png/png.png"),
            pixel_expect(test + "/test", out, interp))


# --- tables written out by hand (their tests are code, not literals) ------------------------------------------
SRC = "http://images.dev/lorem/ipsum.jpg"  # the runner's origin answers it with images/test2.jpg (200x100 JPEG)
BAD = {"status": 400, "imgproxy_status": 404}  # imgproxy: 404 "Invalid URL"; serve: 400 naming the option
INTERNAL = "imgproxy-internal"  # a unit test of a Go function with no request of its own


def jpeg(w, h, fmt="jpeg"):
    return {"status": 200, "width": w, "height": h, "format": fmt}


def parser_tests():
    file = "options/parser/processing_options_test.go"
    t = lambda name: f"TestProcessingOptions/{name}"  # noqa: E731
    b64src = "{b64:" + SRC + "?param=value}"
    add(file, t("TestParseBase64URL"), f"/unsafe/size:100:100/{b64src}.png", jpeg(100, 50, "png"))
    add(file, t("TestParseBase64URLWithFilename"), f"/unsafe/size:100:100/{b64src}.png/puppy.jpg", jpeg(100, 50, "png"),
        config={"base64_url_includes_filename": True})
    add(file, t("TestParseBase64URLWithoutExtension"), f"/unsafe/size:100:100/{b64src}", jpeg(100, 50))
    add(file, t("TestParseBase64URLWithBase"), "/unsafe/size:100:100/{b64:lorem/ipsum.jpg?param=value}.png", jpeg(100, 50, "png"),
        config={"base_url": "http://images.dev/"})
    add(file, t("TestParseBase64URLWithReplacement"), "/unsafe/size:100:100/{b64:test://lorem/ipsum.jpg?param=value}.png",
        jpeg(100, 50, "png"), config={"url_replacements": ["^test://([^/]*)/=test2://images.dev/${1}/dolor/", "^test2://=http://"]})
    add(file, t("TestParsePlainURL"), f"/unsafe/size:100:100/plain/{SRC}@png", jpeg(100, 50, "png"))
    add(file, t("TestParsePlainURLWithoutExtension"), f"/unsafe/size:100:100/plain/{SRC}", jpeg(100, 50))
    add(file, t("TestParsePlainURLEscaped"), "/unsafe/size:100:100/plain/{pathescape:" + SRC + "?param=value}@png", jpeg(100, 50, "png"))
    add(file, t("TestParsePlainURLWithBase"), "/unsafe/size:100:100/plain/lorem/ipsum.jpg@png", jpeg(100, 50, "png"),
        config={"base_url": "http://images.dev/"})
    add(file, t("TestParsePlainURLWithReplacement"), "/unsafe/size:100:100/plain/test://lorem/ipsum.jpg@png", jpeg(100, 50, "png"),
        config={"url_replacements": ["^test://([^/]*)/=test2://images.dev/${1}/dolor/", "^test2://=http://"]})
    add(file, t("TestParsePlainURLEscapedWithBase"), "/unsafe/size:100:100/plain/{pathescape:lorem/ipsum.jpg?param=value}@png",
        jpeg(100, 50, "png"), config={"base_url": "http://images.dev/"})
    add(file, t("TestParseWithArgumentsSeparator"), f"/unsafe/size,100,100,1/plain/{SRC}", jpeg(100, 50),
        config={"arguments_separator": ","})
    add(file, t("TestParsePathFormat"), f"/unsafe/format:webp/plain/{SRC}", jpeg(200, 100, "webp"))
    add(file, t("TestParsePathResize"), f"/unsafe/resize:fill:100:200:1/plain/{SRC}", jpeg(100, 200))
    add(file, t("TestParsePathResizingType"), f"/unsafe/resizing_type:fill/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathSize"), f"/unsafe/size:100:200:1/plain/{SRC}", jpeg(100, 50))
    add(file, t("TestParsePathWidth"), f"/unsafe/width:100/plain/{SRC}", jpeg(100, 50))
    add(file, t("TestParsePathHeight"), f"/unsafe/height:100/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathEnlarge"), f"/unsafe/enlarge:1/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathExtend"), f"/unsafe/extend:1:so:10:20/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathExtendSmartGravity"), f"/unsafe/extend:1:sm/plain/{SRC}", BAD)
    add(file, t("TestParsePathExtendReplicateGravity"), f"/unsafe/extend:1:re/plain/{SRC}", BAD)
    add(file, t("TestParsePathGravity"), f"/unsafe/gravity:soea/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathGravityFocusPoint"), f"/unsafe/gravity:fp:0.5:0.75/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathGravityReplicate"), f"/unsafe/gravity:re/plain/{SRC}", BAD)
    add(file, t("TestParsePathCrop"), f"/unsafe/crop:100:200/plain/{SRC}", {"status": 200, "format": "jpeg"},
        note="the test pins the parsed crop only; a crop taller than the source is clipped to it")
    add(file, t("TestParsePathCropGravity"), f"/unsafe/crop:100:200:nowe:10:20/plain/{SRC}", {"status": 200, "format": "jpeg"})
    add(file, t("TestParsePathCropGravityReplicate"), f"/unsafe/crop:100:200:re/plain/{SRC}", BAD)
    add(file, t("TestParsePathQuality"), f"/unsafe/quality:55/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathBackground"), f"/unsafe/background:128:129:130/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathBackgroundHex"), f"/unsafe/background:ffddee/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathBackgroundDisable"), f"/unsafe/background:fff/background:/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathBlur"), f"/unsafe/blur:0.2/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathSharpen"), f"/unsafe/sharpen:0.2/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathDpr"), f"/unsafe/dpr:2/plain/{SRC}", jpeg(200, 100), note="dpr without enlarge does not enlarge")
    add(file, t("TestParsePathWatermark"), f"/unsafe/watermark:0.5:soea:10:20:0.6/plain/{SRC}", jpeg(200, 100),
        config={"watermark_path": "geometry.png"})
    add(file, t("TestParsePathPreset"), f"/unsafe/preset:test1:test2/plain/{SRC}", jpeg(200, 100),
        config={"presets": ["test1=resizing_type:fill", "test2=blur:0.2/quality:50"]})
    add(file, t("TestParsePathPresetDefault"), f"/unsafe/quality:70/plain/{SRC}", jpeg(200, 100),
        config={"presets": ["default=resizing_type:fill/blur:0.2/quality:50"]})
    add(file, t("TestParsePathPresetLoopDetection"), f"/unsafe/preset:test1/plain/{SRC}", jpeg(200, 100),
        config={"presets": ["test1=resizing_type:fill/preset:test2", "test2=blur:0.2/preset:test1"]})
    add(file, t("TestParsePathCachebuster"), f"/unsafe/cachebuster:123/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathStripMetadata"), f"/unsafe/strip_metadata:true/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParsePathPreserveHDR"), f"/unsafe/ph:1/plain/{SRC}", jpeg(200, 100))
    # Client features: imgproxy derives them from Accept (prefer, with IMGPROXY_AUTO_*) or its enforce settings.
    add(file, t("TestParsePathWebpDetection"), f"/unsafe/plain/{SRC}", jpeg(200, 100, "webp") | {"headers": {"Vary": "Accept"}},
        note="PreferWebP: an Accept naming image/webp", request={"headers": {"Accept": "image/webp"}})
    add(file, t("TestParsePathWebpEnforce"), f"/unsafe/plain/{SRC}@png", jpeg(200, 100, "webp"),
        config={"enforce_webp": True}, request={"headers": {"Accept": "image/webp"}})
    add(file, t("TestParsePathAvifDetection"), f"/unsafe/plain/{SRC}", jpeg(200, 100, "avif") | {"headers": {"Vary": "Accept"}},
        note="PreferAvif: an Accept naming image/avif", request={"headers": {"Accept": "image/avif"}})
    add(file, t("TestParsePathAvifEnforce"), f"/unsafe/plain/{SRC}@png", jpeg(200, 100, "avif"),
        config={"enforce_avif": True}, request={"headers": {"Accept": "image/avif"}})
    # imgproxy's test sets PreferJxl itself: what IMGPROXY_AUTO_JXL derives from such an Accept (off by default).
    add(file, t("TestParsePathJxlDetection"), f"/unsafe/plain/{SRC}", jpeg(200, 100, "jxl"),
        config={"auto_jxl": True}, request={"headers": {"Accept": "image/jxl"}})
    add(file, t("TestParsePathJxlEnforce"), f"/unsafe/plain/{SRC}@png", jpeg(200, 100, "jxl"),
        config={"enforce_jxl": True}, request={"headers": {"Accept": "image/jxl"}})
    # TestParsePathClientHints: (headers) -> width, dpr; with a 200x100 source, w:100 dpr:2 gives 100 wide.
    for name, headers, size in [("no_hints", {}, (200, 100)), ("width", {"Sec-CH-Width": "100"}, (100, 50)),
                                ("dpr", {"Sec-CH-DPR": "2"}, (200, 100)), ("width_and_dpr", {"Sec-CH-Width": "100", "Sec-CH-DPR": "2"}, (100, 50))]:
        add(file, t(f"TestParsePathClientHints/{name}"), f"/unsafe/plain/{SRC}@png", jpeg(*size, "png"),
            config={"client_hints": True}, request={"headers": headers},
            note="imgproxy's table: width hint 100 with dpr 2 parses as width 50 at dpr 2 (100 device pixels)")
    add(file, t("TestParsePathClientHintsRedefine"), f"/unsafe/width:150/dpr:3.0/plain/{SRC}@png", jpeg(200, 100, "png"),
        config={"client_hints": True}, request={"headers": {"Sec-CH-Width": "100", "Sec-CH-DPR": "2"}},
        note="URL options win over hints: width 150 at dpr 3 (450, no enlarge: 200x100)")
    add(file, t("TestParseSkipProcessing"), f"/unsafe/skp:jpg:png/plain/{SRC}", {"status": 200, "body_equals_source": "test2.jpg"})
    add(file, t("TestParseSkipProcessingInvalid"), f"/unsafe/skp:jpg:png:bad_format/plain/{SRC}", BAD)
    add(file, t("TestParseExpires"), f"/unsafe/exp:32503669200/plain/{SRC}", jpeg(200, 100))
    add(file, t("TestParseExpiresExpired"), f"/unsafe/exp:1609448400/plain/{SRC}", {"status": 404}, note="imgproxy: 404 Expired URL")
    presets = ["test1=blur:0.2", "test2=quality:50"]
    add(file, t("TestParsePathOnlyPresets"), f"/unsafe/test1:test2/plain/{SRC}@png", jpeg(200, 100, "png"),
        config={"only_presets": True, "presets": presets})
    add(file, t("TestParseBase64URLOnlyPresets"), f"/unsafe/test1:test2/{b64src}.png", jpeg(200, 100, "png"),
        config={"only_presets": True, "presets": presets})
    for options, error in [("w:100/h:200", None), ("w:100/h:200/blur:10", "Forbidden processing option blur"),
                           ("w:100/h:200/pr:test1", None), ("w:100/h:200/pr:test1/blur:10", "Forbidden processing option blur")]:
        add(file, t("TestParseAllowedOptions/" + options.replace("/", "_")), f"/unsafe/{options}/{b64src}.png",
            BAD if error else {"status": 200, "format": "png"}, note=error,
            config={"allowed_processing_options": ["w", "h", "pr"], "presets": ["test1=blur:0.2"]})
    write("parser.json")


def presets_tests():
    file = "options/parser/presets_test.go"
    t = lambda name: f"TestPresets/{name}"  # noqa: E731
    for name, preset, starts in [("TestParsePreset", "test=resize:fit:100:200/sharpen:2", True),
                                 ("TestParsePresetInvalidString", "resize:fit:100:200/sharpen:2", False),
                                 ("TestParsePresetEmptyName", "=resize:fit:100:200/sharpen:2", False),
                                 ("TestParsePresetEmptyValue", "test=", False),
                                 ("TestParsePresetInvalidValue", "test=resize:fit:100:200/sharpen:2/blur", False),
                                 ("TestParsePresetEmptyString", "   ", True),
                                 ("TestParsePresetComment", "#  test=resize:fit:100:200/sharpen:2", True),
                                 ("TestValidatePresets", "test=resize:fit:100:200/sharpen:2", True),
                                 ("TestValidatePresetsInvalid", "test=resize:fit:-1:-2/sharpen:2", False)]:
        if starts and preset.startswith("test="):
            add(file, t(name), f"/unsafe/pr:test/plain/{SRC}", jpeg(100, 50), config={"presets": [preset]})
        elif starts:
            add(file, t(name), f"/unsafe/rs:fit:50:50/plain/{SRC}", jpeg(50, 25), config={"presets": [preset]},
                note="a blank or commented preset defines nothing; the server starts")
        else:
            add(file, t(name), None, {"starts": False}, config={"presets": [preset]},
                note="a bad preset refuses start-up (imgproxy: error from the parser's constructor)")
    write("presets.json")


def path_tests():
    file = "handlers/path_test.go"
    img = "http://example.com/image.jpg"  # the runner's origin answers it with images/test2.jpg
    for name, url, expect, config, needs in [
        ("BasicPath", f"/dummy_signature/rs:fill:300:200/plain/{img}", jpeg(200, 100), None, None),
        ("PathWithQueryParams", f"/dummy_signature/rs:fill:300:200/plain/{img}?param1=value1&param2=value2", jpeg(200, 100), None, None),
        ("PathWithPrefix", f"/imgproxy/dummy_signature/rs:fill:300:200/plain/{img}", jpeg(200, 100), {"path_prefix": "/imgproxy"}, None),
        ("PathWithPlainUrlRedenormalization", "/dummy_signature/rs:fill:300:200/plain/https:/example.com/path/to/image.jpg", jpeg(200, 100), None, None),
        ("PathWithOptionsSeparatorUnescapingPLain", "/dummy_signature/rs%3Afill%3A300%3A200/plain/https://example.com/path/to/image.jpg", jpeg(200, 100), None, None),
        ("PathWithOptionsSeparatorUnescapingBas64", "/dummy_signature/rs%3Afill%3A300%3A200/abc/abc",
         {"status": 400, "imgproxy_status": 404, "body_not_contains": "%3A"}, None, None),
        ("NoSignatureSeparator", "/invalid_path_without_slash", BAD, None, None),
        ("EmptyPath", "/", BAD, None, [INTERNAL]),
        ("OnlySignature", "/signature_only", BAD, None, None),
    ]:
        note = "imgproxy answers / itself (its index); SplitPathSignature's error is not reachable by request" if needs else None
        if name.endswith("Bas64"):
            note = "abc/abc is no source (400; imgproxy 404 Invalid URL), but the options must have been unescaped: the error must not quote them"
        add(file, f"TestPathTestSuite/TestParsePath/{name}", url, expect, config=config,
            request={"needs": needs} if needs else None, note=note)
    for name, url, expect, needs in [
        ("HTTP", "/unsafe/plain/http:/example.com/image.jpg", jpeg(200, 100), None),
        ("HTTPS", "/unsafe/plain/https:/example.com/image.jpg", jpeg(200, 100), None),
        ("Local", "/unsafe/plain/local:/test2.jpg", jpeg(200, 100), None),
        ("WithOptions", "/unsafe/rs:fill:300:200/plain/http:/example.com/image.jpg", jpeg(200, 100), None),
        ("NormalizedPath", "/unsafe/plain/http://example.com/image.jpg", jpeg(200, 100), None),
        ("ProtocolMissing", "/unsafe/rs:fill:300:200/plain/example.com/image.jpg", {}, [INTERNAL]),
        ("EmptyString", "", {}, [INTERNAL]),
        ("SingleSlash", "/", {}, [INTERNAL]),
        ("NoPlainPrefix", "/unsafe/http:/example.com/image.jpg", {}, [INTERNAL]),
        ("NoProtocol", "/unsafe/plain/example.com/image.jpg", {}, [INTERNAL]),
        ("EndsWithProtocol", "/unsafe/plain/http:", {}, [INTERNAL]),
        ("OnlyProtocol", "/unsafe/plain/http:/test", {}, [INTERNAL]),
    ]:
        add(file, f"TestPathTestSuite/TestRedenormalizePathHTTPProtocol/{name}", url, expect,
            config={"local_root": True} if name == "Local" else None, request={"needs": needs} if needs else None,
            note="RedenormalizePath's own input; no request pins an outcome" if needs else None)
    write("path.json")


def signature_tests():
    file = "security/signature_test.go"
    key, salt = b"test-key".hex(), b"test-salt".hex()
    key2, salt2 = b"test-key2".hex(), b"test-salt2".hex()
    url = "/{sig}/rs:fit:50:50/plain/" + SRC
    # imgproxy's own vectors sign the path "asd": the runner checks its signer against them first.
    vectors = {"asd": {"0": "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", "1": "jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI"}}
    one, two = [[key, salt]], [[key, salt], [key2, salt2]]
    add(file, "TestSignature/TestVerifySignature", url, jpeg(50, 25), config={"key": one},
        request={"sign_with": 0, "vectors": {"asd": {"0": vectors["asd"]["0"]}}})
    add(file, "TestSignature/TestVerifySignatureTruncated", url, jpeg(50, 25), config={"key": one, "signature_size": 8},
        request={"sign_with": 0, "truncate": 8})
    add(file, "TestSignature/TestVerifySignatureInvalid", url, {"status": 403}, config={"key": one},
        request={"sign_with": 0, "truncate": 8})
    add(file, "TestSignature/TestVerifySignatureMultiplePairs/second", url, jpeg(50, 25), config={"key": two},
        request={"sign_with": 1, "vectors": vectors})
    add(file, "TestSignature/TestVerifySignatureMultiplePairs/first", url, jpeg(50, 25), config={"key": two}, request={"sign_with": 0})
    add(file, "TestSignature/TestVerifySignatureMultiplePairs/truncated", url, {"status": 403}, config={"key": two},
        request={"sign_with": 1, "truncate": 8})
    add(file, "TestSignature/TestVerifySignatureTrusted/trusted", "/truested/rs:fit:50:50/plain/" + SRC, jpeg(50, 25),
        config={"key": one, "trusted_signatures": ["truested"]})
    add(file, "TestSignature/TestVerifySignatureTrusted/untrusted", "/untrusted/rs:fit:50:50/plain/" + SRC, {"status": 403},
        config={"key": one, "trusted_signatures": ["truested"]})
    write("signature.json")


def matrix_tests():
    """integration_test/matrix_test.go: every test image of 9 formats, unprocessed, saved as each of 9 formats. The
    hash files say which pairs ran in imgproxy's own environment; each is one case (a DCT hash: not reproduced)."""
    file = "integration_test/matrix_test.go"
    folders = {"heic": "heif", "jpeg": "jpg"}
    listing = subprocess.run(["git", "-C", GIT, "ls-tree", "-r", "--name-only", COMMIT, "testdata/test-hashes/TestMatrix/TestMatrix"],
                             capture_output=True, text=True, check=True).stdout.split()
    for path in listing:
        source, target, name = path.split("/")[-3:]
        name = name[:-len(".hash")]
        folder = folders.get(source, source)
        expect = {"status": 200, "format": target, "hash_skipped": "imgproxy pins a DCT hash computed by libvips (testutil/dct2.c); not reproduced here"}
        note, needs = None, [f"source:{source}"]
        if name == "4-bpp-grayscale.tiff":
            needs.append(f"output:{target}")
            # The file's last strip is cut short; libvips renders the rows that are there, serve refuses a truncated
            # source as it refuses every truncated JPEG, PNG or GIF.
            expect, note = {"status": 422, "imgproxy_status": 200}, "truncated TIFF (libtiff: not enough data at scanline 320): refused"
        add(file, f"TestMatrix/TestMatrix/{source}/{target}/{name}", f"/insecure/plain/local:///test-images/{folder}/{name}@{target}",
            expect, request={"needs": needs}, note=note)
    write("matrix.json")


def handler_tests():
    """integration_test/processing_handler_test.go (and bmp_overflow_test.go, svg_test.go). Sources that the tests
    serve from an httptest server are {origin:NAME}: the runner's origin answers them as request.origin says."""
    file = "integration_test/processing_handler_test.go"
    t = lambda name: f"TestProcessingHandler/{name}"  # noqa: E731
    key = [[b"test-key".hex(), b"test-salt".hex()]]
    png4 = {"status": 200, "width": 4, "height": 4, "format": "png"}
    for name, url, expect, request in [
        ("NoSignature", "/unsafe/rs:fill:4:4/plain/local:///test1.png", {"status": 403}, None),
        ("BadSignature", "/bad-signature/rs:fill:4:4/plain/local:///test1.png", {"status": 403}, None),
        ("ValidSignature", "/{sig}/rs:fill:4:4/plain/local:///test1.png", png4,
         {"sign_with": 0, "vectors": {"/rs:fill:4:4/plain/local:///test1.png": {"0": "My9d3xq_PYpVHsPrCyww0Kh1w5KZeZhIlWhsa4az1TI"}}})]:
        add(file, t(f"TestSignatureValidationFailure/{name}"), url, expect, config={"key": key}, request=request)
    for name, allowed, url, ok in [
        ("match_http_URL_without_wildcard", ["local://", "http://images.dev/"], "/unsafe/plain/http://images.dev/lorem/ipsum.jpg", True),
        ("match_http_URL_with_wildcard_in_hostname_single_level", ["local://", "http://*.mycdn.dev/"], "/unsafe/plain/http://a-1.mycdn.dev/lorem/ipsum.jpg", True),
        ("match_http_URL_with_wildcard_in_hostname_multiple_levels", ["local://", "http://*.mycdn.dev/"], "/unsafe/plain/http://a-1.b-2.mycdn.dev/lorem/ipsum.jpg", True),
        ("no_match_s3_URL_with_allowed_local_and_http_URLs", ["local://", "http://images.dev/"], "/unsafe/plain/s3://images/lorem/ipsum.jpg", False),
        ("no_match_http_URL_with_wildcard_in_hostname_including_slash", ["local://", "http://*.mycdn.dev/"], "/unsafe/plain/http://other.dev/.mycdn.dev/lorem/ipsum.jpg", False)]:
        add(file, t(f"TestSourceValidation/{name}"), url, {"status": 200} if ok else {"status": 403, "imgproxy_status": 404},
            config={"allowed_sources": allowed}, request={"needs": ["test-hook:redirect-all"]},
            note="imgproxy's test sends every fetch to local:///test1.png (imagedata.RedirectAllRequestsTo); serve refuses a source with 403")
    add(file, t("TestSourceNetworkValidation/AllowLoopbackSourceAddressesTrue"), "/unsafe/rs:fill:4:4/plain/{origin:test1}/test1.png", png4,
        request={"origin": {"test1": {"body": "test1.png"}}})
    add(file, t("TestSourceNetworkValidation/AllowLoopbackSourceAddressesFalse"), "/unsafe/rs:fill:4:4/plain/{origin:test1}/test1.png",
        {"status": 403, "imgproxy_status": 404}, config={"allow_loopback_sources": False},
        request={"origin": {"test1": {"body": "test1.png"}}}, note="serve refuses a source with 403 (docs/serve.md), imgproxy with 404")
    add(file, t("TestSourceFormatNotSupported"), "/unsafe/rs:fill:4:4/plain/local:///test1.png", {"status": 422},
        request={"needs": [INTERNAL]}, note="the test turns libvips' PNG loader off (vips.DisableLoadSupport)")
    add(file, t("TestResultingFormatNotSupported"), "/unsafe/rs:fill:4:4/plain/local:///test1.png@png", {"status": 422},
        request={"needs": [INTERNAL]}, note="the test turns libvips' PNG saver off (vips.DisableSaveSupport)")
    add(file, t("TestSkipProcessingConfig"), "/unsafe/rs:fill:4:4/plain/local:///test1.png", {"status": 200, "body_equals_source": "test1.png"},
        config={"skip_processing_formats": ["png"]})
    add(file, t("TestSkipProcessingPO"), "/unsafe/rs:fill:4:4/skp:png/plain/local:///test1.png", {"status": 200, "body_equals_source": "test1.png"})
    add(file, t("TestSkipProcessingSameFormat"), "/unsafe/rs:fill:4:4/plain/local:///test1.png@png", {"status": 200, "body_equals_source": "test1.png"},
        config={"skip_processing_formats": ["png"]})
    add(file, t("TestSkipProcessingDifferentFormat"), "/unsafe/rs:fill:4:4/plain/local:///test1.png@jpg", {"status": 200, "format": "jpeg", "body_differs_from_source": "test1.png"},
        config={"skip_processing_formats": ["png"]})
    add(file, t("TestSkipProcessingSVG"), "/unsafe/rs:fill:4:4/plain/local:///test1.svg",
        {"status": 200, "format": "svg", "body_equals_source": "test1.sanitized.svg"},
        note="the answer is the source sanitised by imgproxy's default config: its testdata/test1.sanitized.svg")
    add(file, t("TestNotSkipProcessingSVGToJPG"), "/unsafe/rs:fill:4:4/plain/local:///test1.svg@jpg", {"status": 200, "format": "jpeg"})
    add(file, t("TestErrorSavingToSVG"), "/unsafe/rs:fill:4:4/plain/local:///test1.png@svg", {"status": 422},
        note="svg is answered only by passing an SVG source through: a raster asked as svg fails when saving")
    cache = {"body": "test1.png", "headers": {"Cache-Control": "max-age=1234, public"}, "expires_in": 3600}
    add(file, t("TestCacheControlPassthroughCacheControl"), "/unsafe/rs:fill:4:4/plain/{origin:cc}", {"status": 200, "headers": {"Cache-Control": "max-age=1234, public", "Expires": None}},
        config={"cache_control_passthrough": True}, request={"origin": {"cc": cache}})
    add(file, t("TestCacheControlPassthroughExpires"), "/unsafe/rs:fill:4:4/plain/{origin:exp}", {"status": 200, "headers_match": {"Cache-Control": "max-age=123[0-9], public"}, "headers": {"Expires": None}},
        config={"cache_control_passthrough": True}, request={"origin": {"exp": {"body": "test1.png", "expires_in": 1239}}})
    add(file, t("TestCacheControlPassthroughDisabled"), "/unsafe/rs:fill:4:4/plain/{origin:cc}", {"status": 200, "headers_not": {"Cache-Control": "max-age=1234, public"}, "headers": {"Expires": None}},
        request={"origin": {"cc": cache}}, note="imgproxy's default: the origin's caching headers are not passed through")
    add(file, t("TestETagDisabled"), "/unsafe/rs:fill:4:4/plain/local:///test1.png", {"status": 200, "headers": {"ETag": None}}, config={"etag": False})
    add(file, t("TestETagDataMatch"), "/unsafe/plain/{origin:etag}", {"status": 304, "headers": {"ETag": '"loremipsumdolor"'}},
        config={"etag": True}, request={"headers": {"If-None-Match": '"loremipsumdolor"'},
                                        "origin": {"etag": {"status": 304, "headers": {"ETag": '"loremipsumdolor"'}}}},
        note="the origin's ETag passed through and revalidated with it")
    lm = {"body": "test1.png", "headers": {"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"}}
    add(file, t("TestLastModifiedEnabled"), "/unsafe/rs:fill:4:4/plain/{origin:lm}", {"status": 200, "headers": {"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"}},
        config={"last_modified": True}, request={"origin": {"lm": lm}})
    add(file, t("TestLastModifiedDisabled"), "/unsafe/rs:fill:4:4/plain/{origin:lm}", {"status": 200, "headers": {"Last-Modified": None}},
        config={"last_modified": False}, request={"origin": {"lm": lm}})
    for name, enabled, since, origin_status, status in [
        ("TestModifiedSinceReqExactMatchLastModifiedDisabled", False, "Wed, 21 Oct 2015 07:28:00 GMT", 200, 200),
        ("TestModifiedSinceReqExactMatchLastModifiedEnabled", True, "Wed, 21 Oct 2015 07:28:00 GMT", 304, 304),
        ("TestModifiedSinceReqCompareMoreRecentLastModifiedDisabled", False, "Thu, 25 Feb 2021 01:45:00 GMT", 200, 200),
        ("TestModifiedSinceReqCompareMoreRecentLastModifiedEnabled", True, "Thu, 25 Feb 2021 01:45:00 GMT", 304, 304),
        ("TestModifiedSinceReqCompareTooOldLastModifiedDisabled", False, "Tue, 01 Oct 2013 17:31:00 GMT", 200, 200),
        ("TestModifiedSinceReqCompareTooOldLastModifiedEnabled", True, "Tue, 01 Oct 2013 17:31:00 GMT", 200, 200)]:
        add(file, t(name), "/unsafe/plain/{origin:ims}", {"status": status}, config={"last_modified": enabled},
            request={"headers": {"If-Modified-Since": since},
                     "origin": {"ims": {"status": origin_status, "body": "test1.png" if origin_status == 200 else None}}},
            note="with Last-Modified on, imgproxy forwards If-Modified-Since to the origin and relays its 304")
    add(file, t("TestLastModifiedBuster"), "/unsafe/rs:fill:4:4/plain/{origin:lm}", {"status": 200, "headers_present": ["Last-Modified"]},
        config={"last_modified": True, "last_modified_buster": "now"}, request={"origin": {"lm": lm}},
        note="Last-Modified becomes the buster's time when that is later than the origin's")
    for name, options, accept, fmt, config in [
            ("TestAlwaysRasterizeSvg", "rs:fill:40:40/", None, "png", {"always_rasterize_svg": True}),
            ("TestAlwaysRasterizeSvgWithEnforceWebP", "", "image/webp", "webp", {"always_rasterize_svg": True, "enforce_webp": True}),
            ("TestAlwaysRasterizeSvgDisabled", "", None, "svg", {"always_rasterize_svg": False, "enforce_webp": True}),
            ("TestAlwaysRasterizeSvgWithFormat", "", None, "svg", {"always_rasterize_svg": True, "skip_processing_formats": ["svg"]})]:
        add(file, t(name), f"/unsafe/{options}plain/local:///test1.svg" + ("@svg" if name.endswith("WithFormat") else ""),
            {"status": 200, "format": fmt}, config=config, request={"headers": {"Accept": accept}} if accept else None)
    add(file, t("TestMaxSrcFileSizeGlobal"), "/unsafe/rs:fill:4:4/plain/{origin:big}", {"status": 413, "imgproxy_status": 422},
        config={"max_src_file_size": 1}, request={"origin": {"big": {"body": "test1.png"}}},
        note="IMGPROXY_MAX_SRC_FILE_SIZE is serve's --max-download-size; serve answers 413 too_large (docs/serve.md), imgproxy 422")
    add(file, t("TestRawOption"), "/unsafe/raw:1/plain/local:///test1.png", {"status": 200, "body_equals_source": "test1.png"})
    with open(os.path.join(os.path.dirname(OUT), "images", "test-images", "jpg", "jpg.jpg"), "rb") as source:
        half = len(source.read()) // 2
    add(file, t("TestMaxBytes"), f"/unsafe/mb:{half}/plain/local:///test-images/jpg/jpg.jpg@jpg", {"status": 200, "format": "jpeg", "max_body_bytes": half},
        note="mb is half the source's size")
    dct = "imgproxy compares DCT hashes with the source's (testutil/dct2.c); not reproduced here"
    for name, urls in [("q_99", ["/unsafe/q:99/plain/local:///test-images/jpg/jpg.jpg@jpg"]),
                       ("no_q", ["/unsafe/plain/local:///test-images/jpg/jpg.jpg@jpg"]),
                       ("q_1_fq_1", ["/unsafe/q:1/plain/local:///test-images/jpg/jpg.jpg@jpg", "/unsafe/fq:jpg:1/plain/local:///test-images/jpg/jpg.jpg@jpg"])]:
        expect = {"status": 200, "format": "jpeg", "width": 600, "height": 800, "hash_skipped": dct}
        if len(urls) > 1:
            expect["same_body_as"] = urls[1:]
        add(file, t(f"TestQualitySettings/{name}"), urls[0], expect, config={"quality": 99})
    add(file, t("TestPresetUsage"), "/unsafe/preset:default/plain/local:///geometry.png", {"status": 200, "body_differs_from_source": "geometry.png"},
        config={"presets": ["default=pixelate:10"]})
    add("integration_test/bmp_overflow_test.go", t("TestBMPUnsupportedBitDepthRejected"), "/unsafe/rs:fill:4:4/plain/local:///bmp-invalid-bpp.bmp",
        {"status": 422, "imgproxy_status": 500}, note="a BMP declaring 40 bits per pixel: refused, not read past its rows "
        "(serve answers an image it cannot read 422 bad_image, as for every unreadable source; imgproxy 500)")
    add("integration_test/svg_test.go", "TestSvgSuite/TestSvgSuite", "/insecure/plain/local:///{svgo-test-suite}/*.svg", {"status": 200, "format": "svg"},
        config={"svg_sanitize": True}, request={"needs": ["source:svg", "test-data:svgo-test-suite"]},
        note="imgproxy skips this test unless TEST_SVG_PATH holds the svgo test suite (not in its repository); SVGs in, sanitized SVGs out, pixel-identical")
    write("integration.json")


if __name__ == "__main__":
    for suite in [crop_tests, extend_tests, padding_tests, size_tests, rotate_flip_tests, trim_tests, watermark_tests,
                  colorspace_tests, flatten_tests, filter_tests]:
        suite()
    write("processing.json")
    parser_tests()
    presets_tests()
    path_tests()
    signature_tests()
    matrix_tests()
    handler_tests()
