// Makes tiff/cmyk-icc.tiff: a CMYK TIFF (LZW) whose embedded profile is made here with LittleCMS. The profile maps
// ink to colour by the naive formula (R = (1-C)(1-K)…) but with red and blue exchanged, so a test can tell the
// profile was applied (naive conversion gives the source colours; the profile gives them with R and B swapped).
// Build: cc make-cmyk-icc.c -llcms2 -ltiff; run with a 24-bit binary PPM on stdin.
#include <lcms2.h>
#include <tiffio.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM toLab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_PERCEPTUAL, 0);
    cmsUInt16Number table[16 * 3];
    for (int i = 0; i < 16; i++) {
        int c = i >> 3 & 1, m = i >> 2 & 1, y = i >> 1 & 1, k = i & 1;
        double rgb[3] = {(1 - y) * (1 - k), (1 - m) * (1 - k), (1 - c) * (1 - k)};  // R and B exchanged
        cmsCIELab value;
        cmsDoTransform(toLab, rgb, &value, 1);
        cmsFloat2LabEncodedV2(&table[i * 3], &value);
    }
    cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(profile, 2.1);
    cmsSetDeviceClass(profile, cmsSigOutputClass);
    cmsSetColorSpace(profile, cmsSigCmykData);
    cmsSetPCS(profile, cmsSigLabData);
    cmsPipeline *pipeline = cmsPipelineAlloc(NULL, 4, 3);
    cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocCLut16bit(NULL, 2, 4, 3, table));
    cmsWriteTag(profile, cmsSigAToB0Tag, pipeline);
    cmsMLU *text = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(text, "en", "US", "thumbcache test CMYK (R/B swapped)");
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
    cmsMLUsetASCII(text, "en", "US", "Public domain (thumbcache tests)");
    cmsWriteTag(profile, cmsSigCopyrightTag, text);
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size)) { fprintf(stderr, "save failed\n"); return 2; }
    fprintf(stderr, "profile %u bytes\n", size);
    unsigned char *bytes = malloc(size);
    cmsSaveProfileToMem(profile, bytes, &size);
    int width, height, maxval;
    if (scanf("P6 %d %d %d", &width, &height, &maxval) != 3) return 1;
    getchar();
    unsigned char *rgb = malloc((size_t)width * height * 3);
    if (fread(rgb, 3, (size_t)width * height, stdin) != (size_t)width * height) return 1;
    TIFF *tif = TIFFOpen(argv[1], "w");
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 4);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_SEPARATED);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
    TIFFSetField(tif, TIFFTAG_ICCPROFILE, size, bytes);
    unsigned char *row = malloc((size_t)width * 4);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            unsigned char *p = rgb + ((size_t)y * width + x) * 3;
            // No black ink: C = 255 - R, so naive conversion gives the source colour back exactly.
            row[x * 4] = 255 - p[0]; row[x * 4 + 1] = 255 - p[1]; row[x * 4 + 2] = 255 - p[2]; row[x * 4 + 3] = 0;
        }
        TIFFWriteScanline(tif, row, y, 0);
    }
    TIFFClose(tif);
    return 0;
}
