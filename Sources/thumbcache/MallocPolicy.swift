import CJpegPngGlue

/// glibc's allocator, set once at start-up for every subcommand.
enum MallocPolicy {
    /// Blocks of 128 KiB and more are mapped from the kernel and unmapped when freed, always. By default glibc raises
    /// that threshold to the size of the largest mapped block freed so far (up to 32 MiB), and from then on serves
    /// blocks below it from its heap, where a large decode's buffers fragment it and stay resident: a 12 MP HEIC
    /// thumbnail peaked at 143 MiB instead of 105, depending on which block happened to be freed first (loading
    /// libheif at first use changed that order). Setting the threshold turns the adjustment off. Renders, hits and
    /// misses measured the same either way (docs/benchmarks.md, "glibc's mmap threshold").
    static func apply() {
        _ = tc_malloc_fix_mmap_threshold(128 * 1024)
    }
}
