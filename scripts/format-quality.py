#!/usr/bin/env python3
"""Default quality per format (issue 20): which WebP and AVIF quality matches JPEG q80 on the photo corpus.

For each photo of the corpus (MANIFEST.tsv rows of jpeg/ and png/ whose notes do not say "synthetic"), our
`thumbcache thumbnail --size 256` as PNG is the reference (lossless, our own resampler); JPEG q80 and WebP
and AVIF over a quality ladder are compared with it (SSIM on BT.601 luma, scripts/quality.py's function).
A format's default is the lowest ladder quality whose median SSIM over the photos reaches JPEG q80's median
SSIM. At that quality its median bytes must be below JPEG q80's, and every photo's bytes at most --max-ratio
times its JPEG's (the photos over are listed; serve then answers the JPEG for them when it negotiated the
format). A coarse ladder (step 5) is refined to step 1 below each choice. Prints markdown tables.

usage: scripts/format-quality.py [--binary .build/release/thumbcache] [--size 256] [--jobs 2] [--max-ratio 1.03]
run it with a Python that has Pillow (with WebP and AVIF), numpy and scipy.
"""
import argparse
import concurrent.futures
import csv
import os
import statistics
import subprocess
import sys
import tempfile

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import luma, ssim  # noqa: E402

FORMATS = ("webp", "avif")
JPEG_QUALITY = 80
COARSE = range(30, 100, 5)


def photos(corpus):
    with open(os.path.join(corpus, "MANIFEST.tsv"), newline="") as manifest:
        rows = csv.DictReader(manifest, delimiter="\t")
        return sorted(os.path.join(corpus, row["file"]) for row in rows
                      if row["file"].startswith(("jpeg/", "png/")) and "synthetic" not in row["notes"])


class Ladder:
    """Renders every photo at (format, quality) with one `thumbcache thumbnail` process each, and measures it."""

    def __init__(self, binary, size, files, work, jobs):
        self.binary, self.size, self.files, self.work, self.jobs = binary, size, files, work, jobs
        self.results = {}  # (format, quality) -> {photo: (bytes, ssim)}
        self.reference = {}

    def render(self, fmt, quality):
        out = os.path.join(self.work, f"{fmt}-{quality}")
        os.makedirs(out, exist_ok=True)
        # Exit 1 means some inputs were refused; the measurement skips photos without an output.
        subprocess.run([self.binary, "thumbnail", *self.files, "--size", str(self.size), "--format", fmt,
                        "--quality", str(quality), "--output-dir", out], check=False)
        ext = "jpg" if fmt == "jpeg" else fmt
        return {os.path.basename(f): os.path.join(out, os.path.splitext(os.path.basename(f))[0] + "." + ext)
                for f in self.files}

    def measure(self, points):
        points = [p for p in points if p not in self.results]
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            rendered = dict(zip(points, pool.map(lambda p: self.render(*p), points)))
        for point, outputs in rendered.items():
            measured = {}
            for photo, path in outputs.items():
                if os.path.exists(path) and photo in self.reference:
                    measured[photo] = (os.path.getsize(path), ssim(luma(Image.open(path)), self.reference[photo]))
            self.results[point] = measured

    def load_reference(self):
        for photo, path in self.render("png", 100).items():
            if os.path.exists(path):
                self.reference[os.path.basename(photo)] = luma(Image.open(path))


def row(results, jpeg, fmt, quality, max_ratio):
    measured = results[(fmt, quality)]
    common = [p for p in measured if p in jpeg]
    ratios = {p: measured[p][0] / jpeg[p][0] for p in common}
    over = sorted(((r, p) for p, r in ratios.items() if r > max_ratio), reverse=True)
    below = sum(1 for p in common if measured[p][1] < jpeg[p][1])
    return {
        "quality": quality,
        "ssim": statistics.median(measured[p][1] for p in common),
        "ratio": statistics.median(ratios.values()),
        "max": max(ratios.values()),
        "max_photo": max(ratios, key=ratios.get),
        "bytes": statistics.median(measured[p][0] for p in common),
        "below": below,
        "over": over,
        "count": len(common),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.dirname(here)
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(package, ".build", "release", "thumbcache"))
    parser.add_argument("--corpus", default=os.environ.get("THUMBCACHE_CORPUS", os.path.join(package, "..", "shared", "corpus")))
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-ratio", type=float, default=1.03)
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.corpus, "MANIFEST.tsv")):
        print(f"photo corpus not found at {args.corpus} (set THUMBCACHE_CORPUS or --corpus); nothing measured")
        return 0
    files = photos(args.corpus)
    with tempfile.TemporaryDirectory() as work:
        ladder = Ladder(args.binary, args.size, files, work, args.jobs)
        ladder.load_reference()
        ladder.measure([("jpeg", JPEG_QUALITY)] + [(f, q) for f in FORMATS for q in COARSE])
        jpeg = ladder.results[("jpeg", JPEG_QUALITY)]
        target = statistics.median(v[1] for v in jpeg.values())
        chosen = {}
        for fmt in FORMATS:
            reaching = [q for q in COARSE if row(ladder.results, jpeg, fmt, q, args.max_ratio)["ssim"] >= target]
            if not reaching:
                chosen[fmt] = None
                continue
            first = min(reaching)
            ladder.measure([(fmt, q) for q in range(max(1, first - 4), first)])
            chosen[fmt] = min(q for (f, q) in ladder.results if f == fmt
                              and row(ladder.results, jpeg, fmt, q, args.max_ratio)["ssim"] >= target)

    print(f"{len(jpeg)} photos, {args.size} px; reference: our PNG thumbnail. JPEG q{JPEG_QUALITY}: median SSIM "
          f"{target:.4f}, median {statistics.median(v[0] for v in jpeg.values()):.0f} bytes.\n")
    for fmt in FORMATS:
        print(f"### {fmt.upper()}\n")
        print(f"| quality | median SSIM | photos below JPEG's SSIM | median bytes | median bytes / JPEG q{JPEG_QUALITY} "
              f"| max bytes / JPEG (photo) | photos over {args.max_ratio:.2f}x |")
        print("|---|---|---|---|---|---|---|")
        for quality in sorted(q for (f, q) in ladder.results if f == fmt):
            r = row(ladder.results, jpeg, fmt, quality, args.max_ratio)
            mark = " **(default)**" if quality == chosen[fmt] else ""
            print(f"| {quality}{mark} | {r['ssim']:.4f} | {r['below']}/{r['count']} | {r['bytes']:.0f} | {r['ratio']:.3f} "
                  f"| {r['max']:.3f} ({os.path.splitext(r['max_photo'])[0]}) | {len(r['over'])} |")
        print()
    print("### Chosen defaults\n")
    ok = True
    for fmt in FORMATS:
        if chosen[fmt] is None:
            ok = False
            print(f"- {fmt}: no quality of the ladder reaches JPEG q{JPEG_QUALITY}'s median SSIM")
            continue
        r = row(ladder.results, jpeg, fmt, chosen[fmt], args.max_ratio)
        verdict = "smaller" if r["ratio"] < 1 else "NOT smaller"
        print(f"- {fmt}={chosen[fmt]}: median SSIM {r['ssim']:.4f} (JPEG {target:.4f}), median bytes {r['ratio']:.3f}x "
              f"JPEG's ({verdict}), largest {r['max']:.3f}x ({r['max_photo']})")
        ok = ok and r["ratio"] < 1
        for ratio, photo in r["over"]:
            print(f"  - over {args.max_ratio:.2f}x: {photo} at {ratio:.3f}x (serve answers the JPEG when negotiated)")
    print("\n--format-quality " + ",".join(f"{f}={chosen[f]}" for f in FORMATS if chosen[f] is not None))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
