#!/usr/bin/env python3
"""GIF out quality: our quantiser (median cut + Floyd-Steinberg, `tc_quantize_rgba`) against `vips gifsave` 8.14
(cgif with libimagequant) on the same pixels.

For each image: our 256 px render as PNG is the reference (`thumbcache thumbnail --options rs:fit:256:256`); the same
render written as GIF by us (`-o x.gif`) and the reference PNG written by `vips gifsave` are compared with it. So only
the palette and dithering differ. Metrics: mean SSIM on BT.601 luma (scripts/quality.py's), mean absolute RGB
difference, bytes. Prints a markdown table.

usage: scripts/gif-quality.py BINARY IMAGE...
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(__file__))
from quality import luma, ssim  # noqa: E402


def rgb(path):
    return Image.open(path).convert("RGB")


def main():
    binary, images = sys.argv[1], sys.argv[2:]
    print("| image | ours SSIM | vips SSIM | ours MAE | vips MAE | ours bytes | vips bytes |")
    print("|---|---|---|---|---|---|---|")
    totals = []
    with tempfile.TemporaryDirectory() as work:
        for image in images:
            name = os.path.splitext(os.path.basename(image))[0]
            ref, ours, theirs = (os.path.join(work, f"{name}.{ext}") for ext in ("png", "gif", "vips.gif"))
            for output in (ref, ours):
                subprocess.run([binary, "thumbnail", image, "--options", "rs:fit:256:256/da:1", "-o", output], check=True)
            subprocess.run(["vips", "gifsave", ref, theirs], check=True)
            reference = rgb(ref)
            row = []
            for path in (ours, theirs):
                candidate = rgb(path)
                row.append((ssim(luma(reference), luma(candidate)),
                            float(np.abs(np.asarray(reference, dtype=float) - np.asarray(candidate, dtype=float)).mean()),
                            os.path.getsize(path)))
            totals.append(row)
            (s1, m1, b1), (s2, m2, b2) = row
            print(f"| {name} | {s1:.4f} | {s2:.4f} | {m1:.2f} | {m2:.2f} | {b1} | {b2} |")
    mean = lambda i, j: sum(r[i][j] for r in totals) / len(totals)
    print(f"| **mean** | {mean(0, 0):.4f} | {mean(1, 0):.4f} | {mean(0, 1):.2f} | {mean(1, 1):.2f} | "
          f"{mean(0, 2):.0f} | {mean(1, 2):.0f} |")


if __name__ == "__main__":
    main()
