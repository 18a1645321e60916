#!/usr/bin/env python3
"""Smart crop against libvips: reads smartcrop-bench's TSV (stdin) and its PNGs in OUT_DIR, makes the same crops
with `vipsthumbnail --smartcrop attention|entropy`, and prints a markdown table per photo:

- where vips's crop window lies in the resized photo: vips's crop is found inside vips's own uncropped resize
  (same shrink, so its pixels are an exact window of it, PNG in and out);
- the offset in pixels of our window from vips's (the resized photos are the same size; only one axis moves);
- SSIM (luma, scripts/quality.py's) of our attention crop and of today's centre crop to vips's attention crop,
  and of our entropy crop to vips's entropy crop;
- then the means, and the milliseconds smart cropping adds to a cover thumbnail.

usage: smartcrop-bench OUT … | scripts/smartcrop-compare.py OUT_DIR --size 256 FILE...   (FILE order as the bench's)
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import luma, ssim  # noqa: E402  (the repo's one SSIM, so every table measures alike)


def vips(path, box, out, interesting=None):
    command = ["vipsthumbnail", path, "-s", box, "-o", out]
    if interesting:
        command += ["--smartcrop", interesting]
    subprocess.run(command, check=True)
    return np.asarray(Image.open(out).convert("RGB"), dtype=np.int64)


def locate(window, image):
    """Top-left of `window` inside `image`: the offset with the least squared difference (0 when exact)."""
    h, w = window.shape[:2]
    best = None
    for y in range(image.shape[0] - h + 1):
        for x in range(image.shape[1] - w + 1):
            error = int(((image[y:y + h, x:x + w] - window) ** 2).sum())
            if best is None or error < best[0]:
                best = (error, x, y)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
    header, rows = rows[0], rows[1:]
    rows = [dict(zip(header, row)) for row in rows]
    assert len(rows) == len(args.files), "the bench printed one line per file"
    print("| photo | resized | vips attention x,y | ours x,y | offset px | SSIM ours→vips | SSIM centre→vips "
          "| entropy offset px | SSIM entropy→vips entropy |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = []
    for path, row in zip(args.files, rows):
        name = row["file"]
        width, height = int(row["resized_w"]), int(row["resized_h"])
        # Uncropped, the shorter side is SIZE and the longer one free: the same shrink as the cover crop's.
        box = f"100000x{args.size}" if width >= height else f"{args.size}x100000"
        full = vips(path, box, os.path.join(args.out, f"{name}.vips-full.png"))
        found = {}
        for interesting in ("attention", "entropy"):
            crop = vips(path, f"{args.size}x{args.size}", os.path.join(args.out, f"{name}.vips-{interesting}.png"),
                        interesting)
            error, x, y = locate(crop, full)
            if error != 0:
                print(f"warning: {name}: vips's {interesting} crop is not an exact window of its resize "
                      f"(squared error {error})", file=sys.stderr)
            found[interesting] = (x, y, crop)
        if full.shape[:2] != (height, width):
            print(f"warning: {name}: vips resized to {full.shape[1]}x{full.shape[0]}, we to {width}x{height}",
                  file=sys.stderr)

        def ours(kind):
            return np.asarray(Image.open(os.path.join(args.out, f"{name}.{kind}.png")).convert("RGB"))

        vx, vy, vcrop = found["attention"]
        ex, ey, ecrop = found["entropy"]
        ax, ay = int(row["attention_x"]), int(row["attention_y"])
        offset = float(np.hypot(ax - vx, ay - vy))
        entropy_offset = float(np.hypot(int(row["entropy_x"]) - ex, int(row["entropy_y"]) - ey))
        s_ours = ssim(luma(Image.fromarray(ours("attention"))), luma(Image.fromarray(vcrop.astype(np.uint8))))
        s_centre = ssim(luma(Image.fromarray(ours("centre"))), luma(Image.fromarray(vcrop.astype(np.uint8))))
        s_entropy = ssim(luma(Image.fromarray(ours("entropy"))), luma(Image.fromarray(ecrop.astype(np.uint8))))
        results.append((offset, s_ours, s_centre, entropy_offset, s_entropy,
                        float(row["cover_ms"]), float(row["attention_ms"]), float(row["detector_ms"])))
        print(f"| {os.path.relpath(path, os.path.dirname(os.path.dirname(path)))} | {width}x{height} | {vx},{vy} "
              f"| {ax},{ay} | {offset:.0f} | {s_ours:.3f} | {s_centre:.3f} | {entropy_offset:.0f} | {s_entropy:.3f} |")
    r = np.array(results)
    print(f"| **mean of {len(r)}** | | | | **{r[:, 0].mean():.1f}** | **{r[:, 1].mean():.3f}** | **{r[:, 2].mean():.3f}** "
          f"| **{r[:, 3].mean():.1f}** | **{r[:, 4].mean():.3f}** |")
    free = np.array([max(int(row["resized_w"]), int(row["resized_h"])) - args.size for row in rows])
    print(f"\nOur attention window within 8 px of vips's: {(r[:, 0] <= 8).sum()} of {len(r)}; "
          f"SSIM to vips's above the centre crop's: {(r[:, 1] > r[:, 2] + 1e-9).sum()}, equal: "
          f"{(np.abs(r[:, 1] - r[:, 2]) <= 1e-9).sum()}; median room to move {int(np.median(free))} px.")
    added = r[:, 6] - r[:, 5]
    print(f"\nTime per {args.size}×{args.size} cover thumbnail (JPEG out, median of the bench's runs, then median over "
          f"photos): centre {np.median(r[:, 5]):.2f} ms, attention {np.median(r[:, 6]):.2f} ms, added "
          f"{np.median(added):.2f} ms (mean {added.mean():.2f}, largest {added.max():.2f}); the detector alone on the "
          f"resized photo {np.median(r[:, 7]):.3f} ms (largest {r[:, 7].max():.3f}).")


if __name__ == "__main__":
    sys.exit(main())
