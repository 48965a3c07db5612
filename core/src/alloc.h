/* The core's allocation functions (memory.c). */
#ifndef MXN_ALLOC_H
#define MXN_ALLOC_H

#include <stddef.h>

/* malloc, calloc and realloc that advise buffers of MXN_LARGE_BUFFER
 * bytes or more to use huge pages (memory.c); malloc and calloc also back
 * the pages of buffers of 256 KiB or more at once (they are about to be
 * written), realloc does not (growth is often ahead of need). A size of 0
 * still gives a valid pointer. Freed with free(). */
void *mxn__malloc(size_t bytes);
void *mxn__calloc(size_t n, size_t size);
void *mxn__realloc(void *old, size_t bytes);

/* MXN_ASAN: 1 when built with AddressSanitizer (GCC or Clang), else 0.
 * Memory the core carves out of one block of its own (a plan's segment
 * arrays, a member's domain) is then laid out so ASan still sees each
 * array apart. */
#if defined(__SANITIZE_ADDRESS__)
#define MXN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MXN_ASAN 1
#endif
#endif
#ifndef MXN_ASAN
#define MXN_ASAN 0
#endif

#endif /* MXN_ALLOC_H */
