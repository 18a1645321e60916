#include "tc_malloc.h"

#include <limits.h>
#include <malloc.h>

int tc_malloc_fix_mmap_threshold(size_t bytes) {
    return bytes <= INT_MAX && mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
}
