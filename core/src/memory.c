/* Large buffers advised to use transparent huge pages (mxn/memory.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "mxn/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "alloc.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define SMALL_PAGE ((uintptr_t)4096)

/* Linux 5.14's MADV_POPULATE_WRITE, for C libraries whose headers predate
 * it; an older kernel answers EINVAL and nothing happens. */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* From this size on, a buffer written whole (mxn_advise_whole) and the
 * heap's kept top (grow_heap) are backed in one call. */
#define POPULATE_FROM ((size_t)256 << 10)

/* A buffer about to be written: from MXN_LARGE_BUFFER bytes on, the whole
 * huge pages inside it are advised to be huge pages; with `populate`, from
 * POPULATE_FROM bytes on, its whole pages are backed at once. Faulting
 * them in one by one costs far more on these VMs (256 MiB: 1.1 s of 4 KiB
 * faults, 0.5 s populated; 0.6 s of faults on huge pages, 0.017 s
 * populated), and the 1M-hex load through the reader on 4 ranks went from
 * 1.67-1.69 s to 1.45-1.51 s (3 alternating pairs). Pages already there
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

/* Loads in progress (mxn_heap_hold); -1 once the policy is found not to
 * apply (no glibc, or the user chose). */
static int heap_holds;
/* A load's scratch was freed under the hold: hand it back at the end. */
static int heap_trim;
/* Bytes kept backed after that trim: the next step's buffers. */
static size_t heap_keep;

void mxn__heap_keep(size_t bytes) {
  if (heap_holds > 0 && bytes > heap_keep) heap_keep = bytes;
}

void mxn__heap_trim_at_release(void) {
  if (heap_holds > 0) heap_trim = 1;
}

int mxn__heap_policy_applies(void) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  const char *v = getenv("MXN_HEAP_HOLD");
  if (v && strcmp(v, "0") == 0) return 0;
  const char *t = getenv("GLIBC_TUNABLES");
  if (t && strstr(t, "glibc.malloc.")) return 0;
  if (getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_")) return 0;
  return 1;
#else
  return 0;
#endif
}

#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
/* Grow the heap by `bytes`, backed at once (huge pages where given), and
 * leave it free: while the hold's mmap threshold is up, the block comes
 * from the heap and stays there once freed. */
static void grow_heap(size_t bytes) {
  if (bytes < POPULATE_FROM) return;
  if (bytes > ((size_t)768 << 20)) bytes = (size_t)768 << 20;
  void *p = malloc(bytes);
  if (!p) return;
  advise(p, bytes, 1);
  free(p);
}
#endif

void mxn__heap_grow(size_t bytes) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  if (heap_holds > 0) grow_heap(bytes);
#else
  (void)bytes;
#endif
}

void mxn_heap_hold(void) {
  if (heap_holds < 0) return;
  if (heap_holds == 0 && !mxn__heap_policy_applies()) {
    heap_holds = -1;
    return;
  }
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  if (heap_holds++ == 0) {
    /* Up to 1 GiB from the heap, and no trimming of its top: a freed
     * buffer's pages stay backed for the next one. */
    (void)mallopt(M_MMAP_THRESHOLD, 1 << 30);
    (void)mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  }
#endif
}

void mxn_heap_release(void) {
  if (heap_holds <= 0) return;
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  if (--heap_holds == 0) {
    /* A load's scratch goes back (malloc_trim: 17 ms after a 1M-hex load
     * on 4 ranks); a step's buffers come back each step, so are kept, and
     * what the first step will need is backed again (huge pages: about a
     * millisecond for 8 MiB, where faulting them in took ~40 ms). */
    size_t keep = heap_keep > ((size_t)512 << 20) ? (size_t)512 << 20 : heap_keep;
    if (heap_trim) {
      /* The trim leaves `keep` bytes at the heap's top, so the block grown
       * next comes from pages still backed: trimming all and growing again
       * zeroed those pages afresh (grow 5-18 ms against 1 ms, 1M hex,
       * M = 1024, N = 4, through the reader). */
      (void)malloc_trim(keep);
      grow_heap(keep); /* the hold's thresholds are still set */
    }
    heap_trim = 0;
    heap_keep = 0;
    /* glibc's adaptive thresholds stop at these (64-bit), and setting one
     * ends the adaptation for good: the ceilings are the nearest to what
     * was before. */
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    /* a kept reserve at the heap's top is not trimmed by the next free */
    size_t trim = (size_t)64 << 20;
    if (2 * keep > trim) trim = 2 * keep;
    (void)mallopt(M_TRIM_THRESHOLD, (int)trim);
  }
#endif
}
