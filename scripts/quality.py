#!/usr/bin/env python3
"""Thumbnail quality check: our `thumbcache thumbnail` output vs a Pillow reference.

Reference: Pillow full-resolution decode (no draft mode), ImageOps.exif_transpose, an embedded ICC
profile converted to sRGB with Pillow's ImageCms (LittleCMS, relative colorimetric with black point
compensation, as we do), conversion to RGB, then Image.resize(..., Image.LANCZOS) to the same size
as our thumbnail (256 px longest side).
Metrics: mean SSIM (Wang et al. 2004: Gaussian window sigma 1.5, K1=0.01, K2=0.03, L=255) on
BT.601 luma, computed with numpy/scipy; and, since luma hides colour shifts, the mean absolute
difference of the R, G and B values (PNG output). Prints a markdown table; exits 1 if any photo's
SSIM (PNG output, i.e. the resampler itself) is below the threshold.

usage: scripts/quality.py [--binary .build/release/thumbcache] [--size 256] [--min 0.97] [DIR...]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import io

from PIL import Image, ImageCms, ImageOps
from scipy.ndimage import gaussian_filter


def luma(image):
    rgb = np.asarray(image.convert("RGB"), dtype=np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114])


def ssim(a, b, sigma=1.5, data_range=255.0):
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    blur = lambda x: gaussian_filter(x, sigma, truncate=3.5)
    mu_a, mu_b = blur(a), blur(b)
    var_a = blur(a * a) - mu_a ** 2
    var_b = blur(b * b) - mu_b ** 2
    cov = blur(a * b) - mu_a * mu_b
    ssim_map = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return float(ssim_map.mean())


def ours(binary, path, size, fmt, out_dir):
    out = os.path.join(out_dir, "thumb." + ("png" if fmt == "png" else "jpg"))
    subprocess.run([binary, "thumbnail", path, "--size", str(size), "--format", fmt, "-o", out], check=True)
    return Image.open(out)


def reference(path, size):
    image = Image.open(path)
    icc = image.info.get("icc_profile")
    image = ImageOps.exif_transpose(image)
    if icc:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if "sRGB" not in ImageCms.getProfileDescription(source):
            try:
                transform = ImageCms.buildTransform(source, ImageCms.createProfile("sRGB"), image.mode, "RGB",
                                                    ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                                    flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
                image = ImageCms.applyTransform(image, transform)
            except ImageCms.PyCMSError:
                pass  # a profile that does not fit the pixels is ignored, as we do
    return image.convert("RGB")


def rgb_difference(a, b):
    return float(np.abs(np.asarray(a.convert("RGB"), dtype=np.float64) - np.asarray(b.convert("RGB"), dtype=np.float64)).mean())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.dirname(here)
    corpus = os.environ.get("THUMBCACHE_CORPUS", os.path.join(package, "..", "shared", "corpus"))
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(package, ".build", "release", "thumbcache"))
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--min", type=float, default=0.97)
    parser.add_argument("dirs", nargs="*", default=[os.path.join(corpus, "jpeg"), os.path.join(corpus, "png")])
    args = parser.parse_args()

    files = sorted(os.path.join(d, f) for d in args.dirs for f in os.listdir(d) if f.lower().endswith((".jpg", ".png", ".webp", ".gif", ".avif")))
    # The last column encodes the reference itself as JPEG q80 with Pillow: what the codec alone
    # costs in SSIM, so the JPEG column can be judged against it.
    print("| image | source | thumbnail | SSIM (PNG out) | SSIM (JPEG q80 out) | Pillow ref as JPEG q80 | mean abs RGB diff (PNG out) |")
    print("|---|---|---|---|---|---|---|")
    worst = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            png = ours(args.binary, path, args.size, "png", tmp)
            jpg = ours(args.binary, path, args.size, "jpeg", tmp)
            ref_full = reference(path, args.size)
            ref = ref_full.resize(png.size, Image.LANCZOS)
            s_png = ssim(luma(png), luma(ref))
            d_rgb = rgb_difference(png, ref)
            s_jpg = ssim(luma(jpg), luma(ref))
            ref_jpg_path = os.path.join(tmp, "ref.jpg")
            ref.save(ref_jpg_path, quality=80)
            s_ref = ssim(luma(Image.open(ref_jpg_path)), luma(ref))
            worst.append((s_png, s_jpg, os.path.basename(path), d_rgb))
            print(f"| {os.path.relpath(path, os.path.dirname(os.path.dirname(path)))} | {ref_full.width}x{ref_full.height} "
                  f"| {png.width}x{png.height} | {s_png:.4f} | {s_jpg:.4f} | {s_ref:.4f} | {d_rgb:.2f} |")
    min_png = min(worst)
    min_jpg = min(worst, key=lambda w: w[1])
    max_rgb = max(worst, key=lambda w: w[3])
    print(f"\n{len(worst)} images; min SSIM {min_png[0]:.4f} ({min_png[2]}) with PNG output, "
          f"{min_jpg[1]:.4f} ({min_jpg[2]}) with JPEG q80 output; mean {np.mean([w[0] for w in worst]):.4f} / "
          f"{np.mean([w[1] for w in worst]):.4f}; threshold {args.min}; largest mean abs RGB difference "
          f"{max_rgb[3]:.2f} ({max_rgb[2]})")
    return 0 if min_png[0] >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
