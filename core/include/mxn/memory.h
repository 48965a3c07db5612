/**
 * \file memory.h
 * Large buffers and the page faults of their first touch.
 *
 * Writing a freshly allocated buffer costs one page fault per 4 KiB page.
 * On virtual machines a fault costs several microseconds: measured on the
 * project's 2-core build machines, touching 512 MiB took 1.5 s in 4 KiB
 * faults and 0.03 s once backed by 2 MiB transparent huge pages, and the
 * page faults were a third of a 1M-cell load's time. Where the kernel
 * gives huge pages only on request (`/sys/kernel/mm/transparent_hugepage/
 * enabled` = `madvise`, Debian's default), the core asks for them for each
 * of its buffers of at least MXN_LARGE_BUFFER bytes, and the reader plugin
 * does the same for the VTK arrays it fills, and has those pages backed at
 * once (MADV_POPULATE_WRITE): a fault per page is what costs, one call for
 * the whole buffer costs little (256 MiB: 0.6 s of faults on huge pages,
 * 0.017 s populated, on the same machines). The core's own buffers are
 * backed so from MXN_LARGE_BUFFER on (mxn_advise_large): some of them are
 * sized ahead of what is written (room for ghost entries), and backing
 * those of 256 KiB and more as well took 20k fewer faults a load (1M hex,
 * 4 ranks) for 2-4 MB more peak memory a rank and no shorter load. The
 * reader's VTK arrays, written whole, are backed from 256 KiB on
 * (mxn_advise_whole).
 */
#ifndef MXN_MEMORY_H
#define MXN_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Buffers from this size on (bytes) are advised to use huge pages. */
#define MXN_LARGE_BUFFER ((size_t)4 << 20)

/**
 * Advise the kernel to back the whole 2 MiB pages inside [p, p + bytes)
 * with transparent huge pages, and back them at once; call it before the
 * buffer is first written, for a buffer that will be written whole (its
 * pages become resident now). Does nothing for buffers under
 * MXN_LARGE_BUFFER, for NULL, or where the system has no such advice.
 * Never fails, never changes the contents.
 */
void mxn_advise_large(void *p, size_t bytes);

/**
 * mxn_advise_large() for a buffer that will be written whole, from 256 KiB
 * on: its 4 KiB pages are backed at once too (huge pages still only from
 * MXN_LARGE_BUFFER). For arrays such as a reader's field arrays of a few
 * megabytes, which otherwise fault in page by page where the heap has no
 * backed free space for them. Does nothing for smaller buffers or NULL;
 * never fails, never changes the contents.
 */
void mxn_advise_whole(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* MXN_MEMORY_H */
