#!/usr/bin/env python3
"""Writes Tests/ProcessingTests/Fixtures/imgproxy-urls.tsv: URLs built by PyPI's `imgproxy` URL builder
(an unmodified imgproxy client library), each with what it means, for ImgproxyURLTests.

Run: scripts/imgproxy-urls.py  (makes .build/imgproxy-venv and installs imgproxy==1.0.0 from PyPI once).

The builder writes base64 sources only, puts its `advanced` options first and always ends with
`g:<gravity>/rs:<type>:<w>:<h>:<enlarge>`; plain sources and presets, which it cannot write, are built
here as imgproxy's documentation describes (same HMAC-SHA256 signature).
Columns: url, signed (key = signed with KEY/SALT below, none = unsigned), encoding, source, canonical
(thumbcache's canonical form of the options: written by hand from imgproxy's documented meaning).
"""
import base64
import hashlib
import hmac
import os
import subprocess
import sys
from urllib.parse import quote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build", "imgproxy-venv")
OUT = os.path.join(ROOT, "Tests", "ProcessingTests", "Fixtures", "imgproxy-urls.tsv")
# imgproxy's documentation example key and salt (hex).
KEY = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
SALT = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
PRESETS = "thumb=rs:fill:150:150/g:sm,hero=rs:fit:1200:0/q:85,default=q:80"


def ensure_builder():
    python = os.path.join(VENV, "bin", "python")
    if sys.executable != python:
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
            subprocess.run([python, "-m", "pip", "install", "-q", "imgproxy==1.0.0"], check=True)
        os.execv(python, [python, *sys.argv])


ensure_builder()
from imgproxy import ImgProxy  # noqa: E402

CAT = "http://example.com/images/cat.jpg"
rows = []


def built(expected, image=CAT, advanced=(), signed=True, **options):
    """One URL from the library; `options` go to ImgProxy (or its call, for empty rs arguments)."""
    call = {k: options.pop(k) for k in list(options) if options[k] == ""}
    proxy = ImgProxy(image, key=KEY if signed else None, salt=SALT if signed else None, **options)
    rows.append((proxy(*advanced, **call), "key" if signed else "none", "base64", image, expected))


def by_hand(path, expected, image, encoding):
    """A path written as imgproxy's docs describe, signed like the library signs."""
    mac = hmac.new(bytes.fromhex(KEY), bytes.fromhex(SALT) + path.encode(), hashlib.sha256).digest()
    signature = base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
    rows.append((f"/{signature}{path}", "key", encoding, image, expected))


# Resizing types, sizes, enlarge (the builder's own fields). The default preset (q:80) applies to all.
built("rt:fill/w:300/h:200/q:80", resizing_type="fill", width=300, height=200)
built("w:300/q:80", resizing_type="fit", width=300)
built("rt:auto/q:80")
built("rt:auto/q:80", signed=False)
built("w:300/h:200/el:1/q:80", resizing_type="fit", width=300, height=200, enlarge=True)
# Gravity: compass with offsets, smart, focus point.
built("rt:fill/w:300/h:200/g:sm/q:80", resizing_type="fill", width=300, height=200, gravity="sm")
built("rt:fill/w:300/h:200/g:fp:0.25:0.75/q:80", resizing_type="fill", width=300, height=200, gravity="fp:0.25:0.75")
built("rt:fill/w:300/h:200/g:so:0:10/q:80", resizing_type="fill", width=300, height=200, gravity="so:0:10")
built("rt:fill/w:300/h:200/g:noea:5:0.1/q:80", resizing_type="fill", width=300, height=200, gravity="noea:5:0.1")
built("rt:fill/w:200/h:200/g:we/q:80", resizing_type="fill", width=200, height=200, gravity="we")
# Extensions set the format.
built("w:300/q:80/f:webp", resizing_type="fit", width=300, extension="webp")
built("w:300/q:80/f:avif", resizing_type="fit", width=300, extension="avif")
built("w:300/q:80/f:png", resizing_type="fit", width=300, extension="png")
built("w:300/q:80/f:jpeg", resizing_type="fit", width=300, extension="jpg")
built("rt:auto/q:80/f:webp", advanced=["format:png"], extension="webp")
built("rt:auto/q:80/f:webp", advanced=["f:webp"])
built("rt:auto/q:80/f:png", advanced=["ext:png"])
# Size arithmetic options.
built("rt:fill/w:300/h:200/dpr:2/q:80", advanced=["dpr:2"], resizing_type="fill", width=300, height=200)
built("w:300/h:200/z:1.5/q:80", advanced=["z:1.5"], resizing_type="fit", width=300, height=200)
built("w:300/h:200/z:2:3/q:80", advanced=["zoom:2:3"], resizing_type="fit", width=300, height=200)
built("w:300/h:200/mw:400/mh:300/q:80", advanced=["mw:400", "min-height:300"], resizing_type="fit", width=300, height=200)
built("rt:fill/w:300/h:200/ex:1:so/q:80", advanced=["ex:1:so"], resizing_type="fill", width=300, height=200)
built("w:300/h:200/ex:1/q:80", advanced=["extend:true"], resizing_type="fit", width=300, height=200)
built("w:300/h:300/exar:1:we/q:80", advanced=["exar:1:we"], resizing_type="fit", width=300, height=300)
built("w:300/exar:1/q:80", advanced=["extend_aspect_ratio:1:ce"], resizing_type="fit", width=300)
built("w:300/c:0.5:0.5/q:80", advanced=["c:0.5:0.5"], resizing_type="fit", width=300)
built("w:300/c:1000:500:nowe/q:80", advanced=["crop:1000:500:nowe"], resizing_type="fit", width=300)
built("rt:auto/pd:10:10:10:10/q:80", advanced=["pd:10"])
built("rt:auto/pd:10:20:30:20/q:80", advanced=["padding:10:20:30"])
built("rt:auto/ar:0/rot:90/q:80", advanced=["ar:0", "rot:90"])
built("rt:auto/rot:270/q:80", advanced=["rotate:-90"])
# Pixels and encoding.
built("rt:auto/bg:ff0000/q:80", advanced=["bg:255:0:0"])
built("rt:auto/bg:ff8800/q:80", advanced=["background:f80"])
built("rt:auto/bl:2/sh:0.5/pix:8/q:80", advanced=["bl:2", "sharpen:0.5", "pixelate:8"])
built("rt:auto/q:75",  # q overrides fq: the fq is no part of the image
      advanced=["q:75", "fq:webp:70:avif:60"])
built("rt:auto/q:80/mb:50000", advanced=["max_bytes:50000"])
built("rt:auto/q:80/sm:1/kcr:0/scp:1", advanced=["sm:1", "kcr:0", "scp:1"])
built("rt:auto/q:80/skp:gif:png", advanced=["skp:png:gif"])
built("rt:auto/q:80/raw:1", advanced=["raw:1"], extension="webp")
# Options that change the answer's headers or the URL, not the pixels.
built("rt:fill/w:300/h:200/q:80", advanced=["cb:v2", "exp:4102444800", "fn:cat-card", "att:1"],
      resizing_type="fill", width=300, height=200)
built("rt:auto/q:80", advanced=["fn:Y2F0IGNhcmQ:1", "return_attachment:true", "cachebuster:abc"])
# Meta-options in `advanced`, then the builder's `rs:::0` (empty arguments keep what is set; el is reset).
built("w:300/h:200/q:80", advanced=["s:300:200:1"], resizing_type="", width="", height="")
built("rt:fill-down/w:300/h:200/ex:1:so/q:80", advanced=["rs:fill-down:300:200:0:1:so"],
      resizing_type="", width="", height="")
built("rt:force/w:300/h:200/q:80", advanced=["rt:force", "w:300", "h:200"], resizing_type="", width="", height="")
built("rt:fill/w:300/h:200/q:80", advanced=["resizing_type:fill", "width:300", "height:200", "gravity:sm"],
      resizing_type="", width="", height="")
built("rt:auto/q:80", image="http://example.com/ünï/猫.jpg?size=large&v=2")

# Plain sources and presets, as imgproxy's documentation writes them.
by_hand("/rs:fill:300:200/g:sm/plain/" + quote("http://example.com/images/cat photo.jpg", safe="") + "@webp",
        "rt:fill/w:300/h:200/g:sm/q:80/f:webp", "http://example.com/images/cat photo.jpg", "plain")
by_hand("/w:300/plain/http://example.com/i.jpg%3Fv%3D2", "w:300/q:80", "http://example.com/i.jpg?v=2", "plain")
by_hand("/rs:fit:300:200/plain/" + quote("https://example.com/ünï.png", safe=":/") + "@avif",
        "w:300/h:200/q:80/f:avif", "https://example.com/ünï.png", "plain")
encoded = base64.urlsafe_b64encode(CAT.encode()).rstrip(b"=").decode()
by_hand("/rs:fit:300:200/" + "/".join(encoded[i:i + 16] for i in range(0, len(encoded), 16)) + ".png",
        "w:300/h:200/q:80/f:png", CAT, "base64")
by_hand("/pr:thumb/" + encoded, "rt:fill/w:150/h:150/g:sm/q:80", CAT, "base64")
by_hand("/preset:hero:thumb/" + encoded + ".webp", "rt:fill/w:150/h:150/g:sm/q:85/f:webp", CAT, "base64")
by_hand("/pr:hero/q:60/" + encoded, "w:1200/q:60", CAT, "base64")

with open(OUT, "w", encoding="utf-8") as out:
    out.write(f"# built by scripts/imgproxy-urls.py with PyPI imgproxy==1.0.0\n# key={KEY}\n# salt={SALT}\n")
    out.write(f"# presets={PRESETS}\n")
    out.write("url\tsigned\tencoding\tsource\tcanonical\n")
    for row in rows:
        out.write("\t".join(row) + "\n")
print(f"{len(rows)} URLs -> {os.path.relpath(OUT, ROOT)}")
