/* Private to io/: light HDF5 handles on netCDF-4 members (h5light.c),
 * which member.c reads through instead of netCDF. */
#ifndef MXN_IO_H5LIGHT_H
#define MXN_IO_H5LIGHT_H

#include "internal.h"

/* HDF5 handles (h5light.c): a netCDF-4 member's HDF5 file, its variables
 * by name (ids from MXN__H5_VAR0 up, never netCDF's), datasets opened on
 * first use. */
#define MXN__H5_VAR0 (1 << 24)
typedef struct mxn__h5 mxn__h5_t;
/* The root group's names, which give the ids: listed by the first open
 * (*names NULL: set, the caller's to free) and handed to the next ones,
 * which do not list them again (a member opened again for each step
 * would list its names each time, a cost that grows with the members).
 * The handle
 * uses them until it is closed. */
typedef struct mxn__h5_names mxn__h5_names_t;
int mxn__h5_open(const char *path, mxn__h5_names_t **names, mxn__h5_t **out);
void mxn__h5_close(mxn__h5_t *h);
void mxn__h5_names_free(mxn__h5_names_t *nm);
int mxn__h5_var(const mxn__h5_t *h, const char *name);
/* fn(name, data) for each root-group name starting with prefix, in name
 * order, until it returns nonzero (then that value, else 0). */
int mxn__h5_each_name(const mxn__h5_t *h, const char *prefix,
                      int (*fn)(const char *name, void *data), void *data);
/* Variable v's rank (-1: none), extent and chunk sizes (0: not chunked), and
 * whether its chunks are filtered; len, chunk, filtered may be NULL. */
int mxn__h5_shape(mxn__h5_t *h, int v, size_t *len, size_t *chunk, int *filtered);
/* The decoder and buffers of the chunks the core decodes (mxn__h5_direct
 * below), shared by the reads given them: made on first use, a chunk as
 * stored and as decoded (a few MB at most), freed by
 * mxn__h5_scratch_free. */
typedef struct mxn__h5_scratch mxn__h5_scratch_t;
void mxn__h5_scratch_free(mxn__h5_scratch_t **scratch);
/* Values at start/count (stride NULL: 1) of variable v as double ('d'),
 * int64 ('l') or netCDF characters ('c'); a scalar is read whole. Chunks
 * the core decodes use *scratch (scratch NULL: buffers made for this read
 * alone). 0 on success. */
int mxn__h5_get(mxn__h5_t *h, mxn__h5_scratch_t **scratch, int v, const size_t *start,
                const size_t *count, const ptrdiff_t *stride, void *out, char as);
/* Whether variable v's chunks are decoded by the core (deflate, or shuffle
 * then deflate, of little-endian numbers, with libdeflate) rather than by
 * HDF5's filter pipeline. */
int mxn__h5_direct(mxn__h5_t *h, int v);
/* HDF5 gives the blocks on its free lists back to the heap (it keeps them
 * for reuse otherwise, up to tens of megabytes). */
void mxn__h5_release(void);
/* Close the datasets opened so far (they open again when read). */
void mxn__h5_forget(mxn__h5_t *h);
/* The header as netCDF-4 stores it, for the summary: dimension `name`'s
 * length (1 if there is one, else 0 and *len 0); attribute `name` of
 * variable v (-1: a global one) its netCDF length (characters of text,
 * else values; 0 on success, -1 where there is none) and its values as
 * text ('c', len bytes, not terminated), double ('d') or int64 ('l');
 * fn(name, length, data) for each global attribute until it returns
 * nonzero (then 1, else 0). */
int mxn__h5_dim(mxn__h5_t *h, const char *name, int64_t *len);
int mxn__h5_att_len(mxn__h5_t *h, int v, const char *name, size_t *len);
int mxn__h5_att_get(mxn__h5_t *h, int v, const char *name, void *out, char as);
int mxn__h5_global_atts(mxn__h5_t *h, int (*fn)(const char *name, uint64_t len, void *data),
                        void *data);

#endif /* MXN_IO_H5LIGHT_H */
