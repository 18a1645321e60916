// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "thumbcache",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DiskLru", targets: ["DiskLru"]),
        .executable(name: "disklru-bench", targets: ["disklru-bench"]),
        .library(name: "ImageDecode", targets: ["ImageDecode"]),
        .executable(name: "thumbcache", targets: ["thumbcache"]),
        .executable(name: "conformance", targets: ["conformance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // A Swift port of Android's DiskLruCache, byte-compatible with OkHttp's and JakeWharton's.
        .target(name: "DiskLru"),
        .executableTarget(name: "disklru-bench", dependencies: ["DiskLru"]),
        // Child process for the crash (kill -9) and disk-full tests.
        .executableTarget(name: "disklru-torture", dependencies: ["DiskLru"]),
        .testTarget(name: "DiskLruTests", dependencies: ["DiskLru", "disklru-torture"]),

        // PNG/JPEG decode, Lanczos3 thumbnailing and encode on top of libpng and libjpeg-turbo.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .target(name: "CImageSupport", dependencies: ["CPNG", "CJPEG"]),
        .target(name: "ImageDecode", dependencies: ["CImageSupport"]),
        .testTarget(name: "ImageDecodeTests", dependencies: ["ImageDecode"], exclude: ["Fixtures"]),
        .executableTarget(name: "thumbcache", dependencies: [
            "ImageDecode",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Seeded mutation fuzzer for the decoders (see Fuzz/README.md).
        .executableTarget(name: "thumbcache-fuzz", dependencies: ["ImageDecode"], path: "Fuzz/thumbcache-fuzz"),
        // Replays Conformance/vectors against DiskLru and OkHttp's DiskLruCache (see Conformance/README.md).
        .executableTarget(
            name: "conformance",
            dependencies: ["DiskLru", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Conformance/Sources"
        ),
    ],
    swiftLanguageModes: [.v6]
)
