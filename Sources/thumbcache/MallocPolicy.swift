import CJpegPngGlue

/// glibc's allocator, set once at start-up for every subcommand.
enum MallocPolicy {
    /// Blocks of 256 KiB and more are mapped from the kernel and unmapped when freed, always. By default glibc raises
    /// that threshold to the size of the largest mapped block freed so far (up to 32 MiB), and from then on serves
    /// blocks below it from its heap, where a large decode's buffers fragment it and stay resident: a 12 MP HEIC
    /// thumbnail peaked at 143 MiB instead of 105, depending on which block happened to be freed first (loading
    /// libheif at first use changed that order). Setting the threshold turns the adjustment off. 256 KiB rather than
    /// glibc's initial 128: the same peaks, and a small thumbnail's buffers (a 256x192 RGBA render is 192 KiB) stay
    /// in the heap instead of costing fresh pages each time, 2 ms of a 134 ms SVG thumbnail; 1 MiB let the HEIC peaks
    /// grow again (docs/benchmarks.md, "glibc's mmap threshold").
    static func apply() {
        _ = tc_malloc_fix_mmap_threshold(256 * 1024)
    }
}
