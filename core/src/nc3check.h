/* A bounds check of a netCDF classic / 64-bit offset / CDF5 header before
 * netCDF parses it (private to the core). */
#ifndef MXN_NC3CHECK_H
#define MXN_NC3CHECK_H

#include <stddef.h>
#include <stdint.h>

/**
 * Walk the header of the netCDF-3 file `path` (`size` bytes) and check that
 * every count and length it declares fits in the file: names, dimensions,
 * attributes and their values, variables and their dimension ids, types.
 * netCDF 4.9.0 trusts these counts: a damaged header made nc_open allocate
 * gigabytes or crash (found by testing/fuzz/fuzz_dataset). Data offsets
 * are not checked here (a truncated file has its own message).
 * \param [out] magic  the file's first four bytes (zeros where it is shorter),
 *                    so the caller can name the format without reading again
 * \param [out] why  on failure: what is wrong, e.g. "variable 3: 70000 dimensions"
 * The walk also checks the attributes Exodus 6.02 reads into fixed buffers
 * (the numeric global ones hold one value, the title at most 81
 * characters, element and entity types at most 33).
 * \return 3 when the file is netCDF-3 and its header is sound, Exodus
 *         attributes included; 0 when it is not netCDF-3 (HDF5, other:
 *         netCDF decides); 1 when the netCDF header is damaged; 2 when it is
 *         sound but an Exodus attribute is not (why says which); -1 if it
 *         cannot be read (why: the system's reason, e.g. "Permission
 *         denied").
 *         Local.
 */
int mxn__nc3_header_check(const char *path, int64_t size, char magic[4], char *why,
                          size_t whylen);

/**
 * Exodus 6.02 reads some attributes whole into fixed buffers: the numeric
 * global ones into scalars (ex_open, ex_inquire_int), the title into 81
 * bytes, element and entity types into 33 (NUL included). A damaged file
 * with longer ones made Exodus overwrite its stack ("stack smashing
 * detected" in ex_inquire_int, found by fuzz_dataset). The one rule for
 * both open paths: the netCDF-3 header walk and, for other formats, a
 * netCDF open (dataset.c).
 * \param var  the variable the attribute belongs to, NULL for a global one
 * \param len  the attribute's length (values, or characters of a text)
 * \return 1 and why when Exodus could not hold it, else 0. Local.
 */
int mxn__exodus_att_check(const char *var, const char *att, uint64_t len, char *why,
                          size_t whylen);

#endif /* MXN_NC3CHECK_H */
