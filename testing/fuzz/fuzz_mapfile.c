/* libFuzzer harness: the partition map file of `mxn repart --map FILE`
 * (mxn__part_map_read, core/src/partition/partmap.h).
 *
 * Input: byte 0 gives the number of parts (1..16); byte 1 the rank's
 * elements: ids 1..n (n = b % 24) plus, when b >= 128, the extremes
 * INT64_MIN+1 and INT64_MAX-1; the remaining bytes are the map text, read
 * through fmemopen() as if from a file.
 *
 * Checked: a success gives every element a part in range; a failure is
 * MXN_ERR_FORMAT with a message that starts with the map's name. */
#define _GNU_SOURCE
#include "partition/partmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)            \
  do {                      \
    if (!(c)) abort();      \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  int nparts = data[0] % 16 + 1;
  int64_t ids[32];
  int64_t n = 0;
  if (data[1] >= 128) ids[n++] = INT64_MIN + 1;
  for (int64_t k = 1; k <= data[1] % 24; k++) ids[n++] = k;
  if (data[1] >= 128) ids[n++] = INT64_MAX - 1;
  /* fmemopen of 0 bytes fails on some libcs: give it one harmless newline. */
  const char *text = size > 2 ? (const char *)data + 2 : "\n";
  size_t len = size > 2 ? size - 2 : 1;
  FILE *f = fmemopen((void *)text, len, "r");
  CHECK(f);
  int part[32];
  for (int k = 0; k < 32; k++) part[k] = -7;
  mxn_error_t err;
  mxn_error_clear(&err);
  int rc = mxn__part_map_read(f, "fuzz.map", nparts, n, ids, part, &err);
  fclose(f);
  if (rc == MXN_OK) {
    for (int64_t k = 0; k < n; k++) CHECK(part[k] >= 0 && part[k] < nparts);
  } else {
    CHECK(rc == MXN_ERR_FORMAT && err.status == rc);
    CHECK(!strncmp(err.msg, "fuzz.map", 8));
  }
  return 0;
}
