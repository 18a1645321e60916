#!/usr/bin/env python3
"""WebP and AVIF thumbnail sizes against JPEG q80 (issue 12 §7), from the output of format-bench.

For each photo: our 256 px thumbnail as PNG is the reference; JPEG q80, WebP q80 and AVIF q80 are compared
with it (SSIM on BT.601 luma, the same function as scripts/quality.py). "Matched" is the smallest WebP/AVIF
file, over the qualities format-bench wrote, whose SSIM is at least JPEG q80's. Prints markdown tables.

usage: scripts/format-sizes.py OUT_DIR < format-bench.tsv
"""
import csv
import os
import statistics
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quality import luma, ssim  # noqa: E402


def main():
    out = sys.argv[1]
    rows = list(csv.DictReader(sys.stdin, delimiter="\t"))
    by_file = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    ext = {"jpeg": "jpg", "webp": "webp", "avif": "avif"}
    print("| photo | JPEG q80 bytes | SSIM | WebP q80 bytes | vs JPEG | SSIM | AVIF q80 bytes | vs JPEG | SSIM "
          "| WebP matched | AVIF matched | encode ms JPEG / WebP / AVIF (q80) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    webp80, avif80, webp_matched, avif_matched, times = [], [], [], [], {"jpeg": [], "webp": [], "avif": []}
    ssims = {"jpeg": [], "webp": [], "avif": []}
    for name, encodings in sorted(by_file.items()):
        ref = luma(Image.open(os.path.join(out, f"{name}.ref.png")))
        measured = {}
        for e in encodings:
            path = os.path.join(out, f"{name}.{e['format']}.{e['quality']}.{ext[e['format']]}")
            measured[(e["format"], int(e["quality"]))] = (int(e["bytes"]), ssim(luma(Image.open(path)), ref), float(e["ms"]))
        jpeg = measured[("jpeg", 80)]
        cells = [name, str(jpeg[0]), f"{jpeg[1]:.4f}"]
        matched = []
        for fmt, sink, sink_matched in (("webp", webp80, webp_matched), ("avif", avif80, avif_matched)):
            q80 = measured[(fmt, 80)]
            sink.append(q80[0] / jpeg[0] - 1)
            cells += [str(q80[0]), f"{(q80[0] / jpeg[0] - 1) * 100:+.1f}%", f"{q80[1]:.4f}"]
            candidates = [v for (f, q), v in measured.items() if f == fmt and v[1] >= jpeg[1]]
            if candidates:
                best = min(candidates, key=lambda v: v[0])
                sink_matched.append(best[0] / jpeg[0] - 1)
                matched.append(f"{(best[0] / jpeg[0] - 1) * 100:+.1f}%")
            else:
                matched.append("never reaches JPEG's SSIM")
        for fmt in ("jpeg", "webp", "avif"):
            times[fmt].append(measured[(fmt, 80)][2])
            ssims[fmt].append(measured[(fmt, 80)][1])
        cells += matched + [" / ".join(f"{measured[(f, 80)][2]:.1f}" for f in ("jpeg", "webp", "avif"))]
        print("| " + " | ".join(cells) + " |")
    pct = lambda xs: f"{statistics.median(xs) * 100:+.1f}% (median; range {min(xs) * 100:+.1f} … {max(xs) * 100:+.1f})"
    print(f"\n{len(by_file)} photos. Bytes vs JPEG q80 at q80: WebP {pct(webp80)}, AVIF {pct(avif80)}.")
    if webp_matched and avif_matched:
        print(f"At JPEG q80's SSIM (smallest quality that reaches it): WebP {pct(webp_matched)} over {len(webp_matched)} photos, "
              f"AVIF {pct(avif_matched)} over {len(avif_matched)} photos.")
    print("Mean SSIM at q80: " + ", ".join(f"{f} {statistics.mean(ssims[f]):.4f}" for f in ("jpeg", "webp", "avif")) + ".")
    print("Encode ms at q80, median (max): " + ", ".join(
        f"{f} {statistics.median(times[f]):.1f} ({max(times[f]):.1f})" for f in ("jpeg", "webp", "avif")) + ".")


if __name__ == "__main__":
    main()
