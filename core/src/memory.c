/* Large buffers advised to use transparent huge pages (mxn/memory.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "mxn/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "alloc.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)

void mxn_advise_large(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!p || bytes < MXN_LARGE_BUFFER) return;
  /* Only whole huge pages inside the buffer: the advice may split the
   * mapping, never reaches a neighbour's memory. */
  uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t z = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
  if (z > a) (void)madvise((void *)a, (size_t)(z - a), MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
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
  mxn_advise_large(p, bytes);
  return p;
}
