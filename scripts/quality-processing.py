#!/usr/bin/env python3
"""Processing quality: `rs:fill:300:200` with each compass gravity, our render against a float reference.

Reference: the photo as scripts/quality.py reads it (Pillow full-resolution decode, EXIF orientation, ICC to
sRGB), resized with Image.LANCZOS to the size imgproxy's fill scales it to (the larger of 300/width and
200/height, sides rounded), then the 300x200 crop cut where imgproxy's calc_position puts it for that gravity
(centre: (outer - inner + 1) // 2 on each axis; no/so/ea/we and the corners: flush with those edges). Ours:
`thumbcache thumbnail FILE --options 'rs:fill:300:200/g:G' --format png` (the renderer serve uses).
Metric: mean SSIM on BT.601 luma (scripts/quality.py's). Prints a table per photo and the minimum; exits 1 when
any SSIM is below --min (default 0.99).

usage: scripts/quality-processing.py [--binary .build/release/thumbcache] [--min 0.99] [--limit N] [DIR...]
"""
import argparse, importlib.util, os, subprocess, sys, tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("quality", os.path.join(HERE, "quality.py"))
quality = importlib.util.module_from_spec(spec)
spec.loader.exec_module(quality)

GRAVITIES = ["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe"]
WIDTH, HEIGHT = 300, 200


def position(gravity, outer_w, outer_h):
    left, top = (outer_w - WIDTH + 1) // 2, (outer_h - HEIGHT + 1) // 2
    if "no" in gravity: top = 0
    if "so" in gravity: top = outer_h - HEIGHT
    if "we" in gravity: left = 0
    if "ea" in gravity: left = outer_w - WIDTH
    return left, top


def main():
    package = os.path.dirname(HERE)
    corpus = os.environ.get("THUMBCACHE_CORPUS", os.path.join(package, "..", "shared", "corpus"))
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(package, ".build", "release", "thumbcache"))
    parser.add_argument("--min", type=float, default=0.99)
    parser.add_argument("--limit", type=int, default=0, help="photos at most (0: all)")
    parser.add_argument("dirs", nargs="*", default=[os.path.join(corpus, "jpeg")])
    args = parser.parse_args()
    dirs = [d for d in args.dirs if os.path.isdir(d)]
    if not dirs:
        print(f"no photo directory ({', '.join(args.dirs)}): ../shared/corpus is absent")
        return 0
    files = sorted(os.path.join(d, f) for d in dirs for f in os.listdir(d) if f.lower().endswith((".jpg", ".jpeg")))
    if args.limit: files = files[:args.limit]
    print("| photo | " + " | ".join(f"g:{g}" for g in GRAVITIES) + " |")
    print("|---|" + "---|" * len(GRAVITIES))
    scores = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            full = quality.reference(path, 0)
            scale = max(WIDTH / full.width, HEIGHT / full.height)
            if scale >= 1:
                continue  # smaller than the box: fill does not enlarge, nothing to compare
            scaled = full.resize((round(full.width * scale), round(full.height * scale)), Image.LANCZOS)
            row = []
            for gravity in GRAVITIES:
                out = os.path.join(tmp, "o.png")
                subprocess.run([args.binary, "thumbnail", path, "--options", f"rs:fill:{WIDTH}:{HEIGHT}/g:{gravity}",
                                "--format", "png", "-o", out], check=True)
                ours = Image.open(out)
                left, top = position(gravity, scaled.width, scaled.height)
                ref = scaled.crop((left, top, left + WIDTH, top + HEIGHT))
                value = quality.ssim(quality.luma(ours), quality.luma(ref)) if ours.size == ref.size else 0.0
                row.append(value)
                scores.append((value, os.path.basename(path), gravity))
            print(f"| {os.path.basename(path)} {full.width}x{full.height} | " + " | ".join(f"{v:.4f}" for v in row) + " |")
    if not scores:
        print("no photo larger than the box")
        return 0
    worst = min(scores)
    print(f"\n{len(scores) // len(GRAVITIES)} photos x {len(GRAVITIES)} gravities; mean SSIM {np.mean([s[0] for s in scores]):.4f}, "
          f"min {worst[0]:.4f} ({worst[1]}, g:{worst[2]}); threshold {args.min}")
    return 0 if worst[0] >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
