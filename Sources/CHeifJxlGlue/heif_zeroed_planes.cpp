// libheif's image planes start zeroed while a HEIC is being decoded.
//
// Why: libheif allocates its planes with new[] and a damaged or crafted file can leave part of one unwritten: a coded
// picture smaller than the size the file declares (the fuzzer made a 128-pixel-wide picture for a 227-pixel image)
// gives an image whose other columns are whatever the heap held, possibly an earlier request's pixels. libheif
// 1.15 has no hook for its allocations, but operator new[] is a replaceable allocation function: a program may
// define its own, and every library in the process then uses it. Ours is libstdc++'s (malloc, and free to delete)
// except that on a thread inside tc_heif_zeroed_begin/end it returns zeroed memory. libde265's own picture
// buffers are zeroed in de265_zeroed_pictures.c.
#include <cstdlib>
#include <new>

namespace {
thread_local int zeroing_depth = 0;

void *allocate(std::size_t size) noexcept {
    if (size == 0) size = 1;
    return zeroing_depth > 0 ? std::calloc(1, size) : std::malloc(size);
}
}  // namespace

extern "C" void tc_heif_zeroed_begin(void) { zeroing_depth++; }
extern "C" void tc_heif_zeroed_end(void) { zeroing_depth--; }

void *operator new[](std::size_t size) {
    for (;;) {
        if (void *memory = allocate(size)) return memory;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

void *operator new[](std::size_t size, const std::nothrow_t &) noexcept { return allocate(size); }

// Paired with the above so that every new[] is released by free, also under AddressSanitizer.
void operator delete[](void *memory) noexcept { std::free(memory); }
void operator delete[](void *memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void *memory, const std::nothrow_t &) noexcept { std::free(memory); }
