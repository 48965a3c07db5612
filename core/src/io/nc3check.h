/* A bounds check of a netCDF classic / 64-bit offset / CDF5 header before
 * netCDF parses it (private to the core).
 *
 * Why a hand-written walk of the header: netCDF 4.9.0 trusts the counts in
 * a classic header (a damaged one made nc_open allocate gigabytes or
 * crash), and Exodus 6.02 reads some attributes whole into fixed buffers
 * (a longer one overwrote its stack). Both were found by
 * testing/fuzz/fuzz_dataset and are kept as regression inputs
 * (testing/unit/test_fuzz_regress.cpp); the libraries give no way to ask
 * first. The walk reads the header only: the data is read through netCDF
 * and Exodus. */
#ifndef MXN_NC3CHECK_H
#define MXN_NC3CHECK_H

#include <stddef.h>
#include <stdint.h>

/**
 * Walk the header of the netCDF-3 file open for reading on `fd` (`size`
 * bytes; closed on return) and check that every count and length it
 * declares fits in the file: names, dimensions, attributes and their
 * values, variables and their dimension ids, types. Data offsets are not
 * checked here (a truncated file has its own message).
 * \param [out] magic  the file's first four bytes (zeros where it is shorter),
 *                    so the caller can name the format without reading again
 * \param [out] why  on failure: what is wrong, e.g. "variable 3: 70000 dimensions"
 * The walk also checks the attributes Exodus 6.02 reads into fixed buffers
 * (mxn__exodus_att_check).
 * \return 3 when the file is netCDF-3 and its header is sound, Exodus
 *         attributes included; 0 when it is not netCDF-3 (HDF5, other:
 *         netCDF decides); 1 when the netCDF header is damaged; 2 when it is
 *         sound but an Exodus attribute is not (why says which); -1 if it
 *         cannot be read (why: the system's reason, e.g. "Permission
 *         denied").
 *         Local.
 */
int mxn__nc3_header_check(int fd, int64_t size, char magic[4], char *why, size_t whylen);

/**
 * Exodus 6.02 reads some attributes whole into fixed buffers: the numeric
 * global ones into scalars (ex_open, ex_inquire_int), the title into 81
 * bytes, element and entity types into 33 (NUL included). A damaged file
 * with longer ones made Exodus overwrite its stack ("stack smashing
 * detected" in ex_inquire_int, found by fuzz_dataset). The one rule for
 * both kinds of member: the netCDF-3 header walk and, for other formats, a
 * netCDF open (member.c).
 * \param var  the variable the attribute belongs to, NULL for a global one
 * \param len  the attribute's length (values, or characters of a text)
 * \return 1 and why when Exodus could not hold it, else 0. Local.
 */
int mxn__exodus_att_check(const char *var, const char *att, uint64_t len, char *why,
                          size_t whylen);

/* A file opened for reading (close-on-exec), the open retried when a
 * signal interrupts it: its descriptor, or -1 with errno set. */
int mxn__open_read(const char *path);

#endif /* MXN_NC3CHECK_H */
