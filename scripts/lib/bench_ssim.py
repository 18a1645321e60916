#!/usr/bin/env python3
"""SSIM of thumbnails against a reference, for the format benchmarks (scripts/lib/bench-common.sh).

usage: scripts/lib/bench_ssim.py REFERENCE IMAGE...   -> one SSIM per IMAGE, space-separated

Each image (any mode Pillow reads: grey, palette, RGB, with or without alpha, 8 or 16 bits) is composited on white,
so colours under transparent pixels do not count, and compared on BT.601 luma with scripts/quality.py's SSIM
(Gaussian window 1.5). An image whose size differs from the reference's prints "size:WxH".
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from PIL import Image  # noqa: E402
from quality import luma, ssim  # noqa: E402

Image.MAX_IMAGE_PIXELS = None


def on_white(image):
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):  # 16-bit grey: keep its top 8 bits, as an 8-bit reader would
        image = image.point(lambda v: v / 256).convert("L")
    image = image.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", image.size, "white"), image).convert("RGB")


def main():
    reference = on_white(Image.open(sys.argv[1]))
    results = []
    for path in sys.argv[2:]:
        image = on_white(Image.open(path))
        if image.size != reference.size:
            results.append("size:%dx%d" % image.size)
        else:
            results.append("%.4f" % ssim(luma(image), luma(reference)))
    print(" ".join(results))


if __name__ == "__main__":
    main()
