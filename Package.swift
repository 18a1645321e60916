// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "thumbcache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DiskLru", targets: ["DiskLru"]),
        .executable(name: "disklru-bench", targets: ["disklru-bench"]),
        .executable(name: "disklru", targets: ["disklru-inspect"]),
        .library(name: "ImageDecode", targets: ["ImageDecode"]),
        .library(name: "Processing", targets: ["Processing"]),
        .library(name: "ThumbcacheKit", targets: ["ThumbcacheKit"]),
        .executable(name: "thumbcache", targets: ["thumbcache"]),
        .executable(name: "conformance", targets: ["conformance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // Already in the graph through AsyncHTTPClient; named for extra trust roots and the HTTPS test origin.
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        // `thumbcache serve`: HTTP server, lifecycle, logging, metrics; swift-crypto for every digest and HMAC.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        // Already in the graph through Hummingbird; named for the request-head deadline's HTTP part types.
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
    ],
    targets: [
        // A Swift port of Android's DiskLruCache, byte-compatible with OkHttp's and JakeWharton's.
        .target(name: "DiskLru"),
        .executableTarget(name: "disklru-bench", dependencies: ["DiskLru"]),
        // Child process for the crash (kill -9) and disk-full tests.
        .executableTarget(name: "disklru-torture", dependencies: ["DiskLru"]),
        .testTarget(name: "DiskLruTests", dependencies: ["DiskLru", "disklru-torture", "SeededRandom"]),
        // `disklru list|verify|stats DIR`: inspects any DiskLruCache directory read-only (docs/cli.md).
        .executableTarget(name: "disklru-inspect", dependencies: [
            "DiskLru", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "DiskLruInspectTests", dependencies: ["DiskLru", "disklru-inspect"], exclude: ["Fixtures"]),
        // The seeded generator shared by the fuzzers, the journal fuzz tests and the conformance cross runs.
        .target(name: "SeededRandom"),

        // PNG/JPEG/WebP/GIF/AVIF decode, Lanczos3 thumbnailing and encode on top of libpng and libjpeg-turbo; ICC via LittleCMS.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        .target(name: "CJpegPngGlue", dependencies: ["CPNG", "CJPEG", "CLCMS2"]),
        // WebP (libwebp + demux), GIF (giflib; no .pc file, the module map links it) and AVIF (libavif with dav1d, aom
        // and its other AV1 codecs: opened at first use, as below, since they are two dozen libraries).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"]), .brew(["giflib"])]),
        // The glue includes the C headers directly, so libgif (no pkg-config flags) and libwebpmux (metadata chunks; in
        // libwebp-dev beside libwebpdemux) are linked here by name.
        .target(name: "CWebpGifAvifGlue", dependencies: ["CJpegPngGlue", "CWebP", "CGIF"],
                linkerSettings: [.linkedLibrary("gif"), .linkedLibrary("webpmux")]),
        // HEIC/HEIF (libheif; HEVC through libde265, whose pictures start zeroed: de265_zeroed_pictures.c) and JPEG XL
        // (libjxl, in and out). Not linked, as libavif and libtiff are not: opened at first use
        // (Sources/CJpegPngGlue/include/tc_library.h), so a process that reads none of their formats never loads
        // them. Their headers (libheif-dev, libde265-dev, libjxl-dev, libavif-dev, libtiff-dev) are in the compiler's
        // default include path; no pkg-config target, which would link them.
        .target(name: "CHeifJxlGlue", dependencies: ["CJpegPngGlue", "CLCMS2"]),
        // TIFF (libtiff 4.5): read from memory, errors into the decoder's message; BMP and ICO are read in Swift.
        .target(name: "CTiffGlue", dependencies: ["CJpegPngGlue"]),
        // SVG (librsvg on cairo; GLib's memory stream, no base URI: no external reference is ever loaded).
        .systemLibrary(name: "CRSVG", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"]), .brew(["librsvg"])]),
        .target(name: "CSVGGlue", dependencies: ["CJpegPngGlue", "CRSVG"]),
        .target(name: "ImageDecode", dependencies: ["CJpegPngGlue", "CWebpGifAvifGlue", "CHeifJxlGlue", "CTiffGlue", "CSVGGlue"]),
        .testTarget(name: "ImageDecodeTests", dependencies: ["ImageDecode", "SeededRandom", "BombTestSupport"],
                    exclude: ["Fixtures"]),
        // Resource bombs for the tests, crafted in memory (PNG chunks through zlib, JPEG markers by hand), and
        // `capped-run`, which runs a child under an address-space cap and reports its peak memory (built with
        // the tests, as every target is, and found beside them).
        .target(name: "CZlibTestSupport", path: "Tests/CZlibTestSupport", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "BombTestSupport", dependencies: ["CZlibTestSupport"], path: "Tests/BombTestSupport"),
        .executableTarget(name: "capped-run", path: "Tests/capped-run"),
        // imgproxy's processing URLs: options, presets, the path grammar and the canonical form (docs/processing.md).
        .target(name: "Processing", dependencies: ["ImageDecode"]),
        // Crypto checks the fixture URLs' imgproxy signatures (already built for ThumbcacheKit).
        .testTarget(name: "ProcessingTests", dependencies: [
            "Processing", .product(name: "Crypto", package: "swift-crypto"),
        ], exclude: ["Fixtures", "Golden"]),
        // The caching pipeline: fetch (HTTP cache semantics) → decode → resize → encode → store.
        .target(name: "ThumbcacheKit", dependencies: [
            "DiskLru", "ImageDecode", "Processing",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The HTTP service (`thumbcache serve`), mountable on any Hummingbird router.
        .target(name: "ThumbcacheServer", dependencies: [
            "ThumbcacheKit", "ImageDecode",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], resources: [.copy("Samples")]),
        .testTarget(name: "ThumbcacheServerTests", dependencies: [
            "ThumbcacheServer", "ThumbcacheKit", "ImageDecode", "thumbcache", "BombTestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        .testTarget(name: "ThumbcacheKitTests", dependencies: [
            "ThumbcacheKit", "SeededRandom", "BombTestSupport", "OriginTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ], exclude: ["Fixtures"]),
        // The origin the pipeline's and the CLI's tests fetch from: a real HTTP(S) server on 127.0.0.1.
        .target(name: "OriginTestSupport", dependencies: [
            "ThumbcacheKit",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ], path: "Tests/OriginTestSupport"),
        // The CLI's tests: the `thumbcache` binary run as a child, and its option parsing.
        .testTarget(name: "thumbcacheTests", dependencies: [
            "thumbcache", "ThumbcacheKit", "ImageDecode", "DiskLru", "BombTestSupport", "OriginTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // The seed's DataCache example against a local origin: prints `true FETCHED`, then `true CACHED`.
        .executableTarget(name: "ProfileCache", dependencies: ["ThumbcacheKit", "OriginTestSupport"], path: "Examples/ProfileCache"),
        // Encoder size/time benchmark for WebP and AVIF against JPEG (scripts/bench-formats.sh).
        .executableTarget(name: "format-bench", dependencies: ["ImageDecode"]),
        // Memory-hit latency benchmark (scripts/bench-get.sh).
        .executableTarget(name: "pipeline-bench", dependencies: ["ThumbcacheKit"]),
        // DataCache hits against a locked dictionary and FileManager reads (scripts/bench-datacache.sh).
        .executableTarget(name: "datacache-bench", dependencies: ["ThumbcacheKit", "OriginTestSupport"]),
        .executableTarget(name: "thumbcache", dependencies: [
            "ImageDecode", "ThumbcacheKit", "ThumbcacheServer",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
        ], linkerSettings: [
            // Release builds link the Swift runtime and Foundation statically, with lld and packed relative
            // relocations (RELR, glibc 2.36+): the loader then reads 26 KB of relocations instead of 3.1 MB and each
            // process touches fewer pages. Peak RSS of a 227-pixel HEIC thumbnail, median of 7: 43.2 MiB as before,
            // 41.9 static with lld, 40.6 static with gold, 38.6 with all three (vipsthumbnail 38.0); docs/benchmarks.md,
            // "Process memory floor". SwiftPM's `--static-swift-stdlib` would need every build command to pass it and
            // recompiles every module; here modules compiled as usual autolink only -lFoundation and its siblings,
            // so the archives those need are named, in one group (static archives resolve in link order).
            .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-static-stdlib",
                          "-Xlinker", "--start-group", "-lFoundation", "-lFoundationInternationalization",
                          "-lFoundationEssentials", "-lCoreFoundation", "-l_FoundationCollections", "-l_FoundationICU",
                          "-l_FoundationCShims", "-lswiftSynchronization", "-Xlinker", "--end-group"],
                         .when(configuration: .release)),
        ]),
        // Seeded mutation fuzzer for the decoders (see Fuzz/README.md).
        .executableTarget(name: "thumbcache-fuzz", dependencies: ["ImageDecode", "SeededRandom"], path: "Fuzz/thumbcache-fuzz"),
        // Replays Conformance/vectors against DiskLru and OkHttp's DiskLruCache (see Conformance/README.md).
        .executableTarget(
            name: "conformance",
            dependencies: ["DiskLru", "SeededRandom", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Conformance/Sources"
        ),
    ],
    swiftLanguageModes: [.v6]
)
