/* Large buffers advised to use transparent huge pages (mxn/memory.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "mxn/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "alloc.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define SMALL_PAGE ((uintptr_t)4096)

/* Linux 5.14's MADV_POPULATE_WRITE, for C libraries whose headers predate
 * it; an older kernel answers EINVAL and nothing happens. */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* From this size on, a buffer written whole (mxn_advise_whole) is backed
 * in one call. */
#define POPULATE_FROM ((size_t)256 << 10)

/* A buffer about to be written: from MXN_LARGE_BUFFER bytes on, the whole
 * huge pages inside it are advised to be huge pages; with `populate`, from
 * POPULATE_FROM bytes on, its whole pages are backed at once. Faulting
 * them in one by one costs far more on virtual machines, where each fault
 * is a trap to the hypervisor, and a load writes most of what it asks
 * for. Pages already there
 * are left as they are. */
static void advise(void *p, size_t bytes, int populate) {
#ifdef MADV_HUGEPAGE
  if (!p) return;
  /* Only whole pages inside the buffer: the advice may split the mapping,
   * never reaches a neighbour's memory. */
  if (bytes >= MXN_LARGE_BUFFER) {
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t z = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    if (z > a) (void)madvise((void *)a, (size_t)(z - a), MADV_HUGEPAGE);
  }
#ifdef MADV_POPULATE_WRITE
  if (populate && bytes >= POPULATE_FROM) {
    uintptr_t a = ((uintptr_t)p + SMALL_PAGE - 1) & ~(SMALL_PAGE - 1);
    uintptr_t z = ((uintptr_t)p + bytes) & ~(SMALL_PAGE - 1);
    if (z > a) (void)madvise((void *)a, (size_t)(z - a), MADV_POPULATE_WRITE);
  }
#endif
#else
  (void)p;
  (void)bytes;
  (void)populate;
#endif
}

void mxn_advise_large(void *p, size_t bytes) {
  if (bytes >= MXN_LARGE_BUFFER) advise(p, bytes, 1);
}

void mxn_advise_whole(void *p, size_t bytes) {
  if (bytes >= POPULATE_FROM) advise(p, bytes, 1);
}

void *mxn__malloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  mxn_advise_large(p, bytes);
  return p;
}

void *mxn__calloc(size_t n, size_t size) {
  /* glibc serves a large calloc from a fresh mapping it need not clear,
   * so the advice still comes before the first touch; a calloc from the
   * heap has touched its pages already and the advice changes nothing. */
  void *p = calloc(n > 0 ? n : 1, size);
  if (p && n > 0 && size <= SIZE_MAX / n) mxn_advise_large(p, n * size);
  return p;
}

void *mxn__realloc(void *old, size_t bytes) {
  void *p = realloc(old, bytes > 0 ? bytes : 1);
  /* Grown buffers are often grown ahead of need (doubling): huge pages, but
   * backed only as they are written. */
  advise(p, bytes, 0);
  return p;
}
