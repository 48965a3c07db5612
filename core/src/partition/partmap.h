/* The partition map file of MXN_PART_MAP (`mxn repart --map FILE`): private
 * to the core, declared apart so that the fuzzer (testing/fuzz/fuzz_mapfile.c)
 * and the tests can feed it any bytes. */
#ifndef MXN_PARTMAP_H
#define MXN_PARTMAP_H

#include "mxn/status.h"

#include <stdio.h>

/**
 * Read "element_id part" lines from `f` and give each of the n elements
 * `ids` (sorted, unique) its part. Blank lines and lines whose first
 * non-blank character is '#' are skipped; ids the map lists but `ids` does
 * not hold are ignored (every rank reads the whole map). Lines may be of
 * any length; an element listed twice must be given the same part.
 * \param [in]  f       the map, read from its current position to EOF
 * \param [in]  path    the map's name, for messages
 * \param [in]  nparts  parts are 0..nparts-1
 * \param [out] part    n parts (caller allocates)
 * \param [out] err     on failure: the message names `path`, and the line
 *                      (`path:line: ...`) or the element without a part
 * \return MXN_OK; MXN_ERR_FORMAT for a malformed line, an id or part out of
 *         range, an element given two parts, or an element of `ids` the
 *         map does not list;
 *         MXN_ERR_NOMEM. Local.
 */
int mxn__part_map_read(FILE *f, const char *path, int nparts, int64_t n, const mxn_gid_t *ids,
                       int *part, mxn_error_t *err);

#endif /* MXN_PARTMAP_H */
