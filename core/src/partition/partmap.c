/* The partition map file of MXN_PART_MAP (partmap.h): "element_id part"
 * lines, read whole by every rank for the parts of its own elements. */
#include "partition/partmap.h"

#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MXN_PART_MAP: the part of each of my elements from a text file of
 * "element_id part" lines (see partmap.h). */
int mxn__part_map_read(FILE *f, const char *path, int nparts, int64_t n, const mxn_gid_t *ids,
                       int *part, mxn_error_t *err) {
  int status = MXN_OK;
  char *seen = mxn__calloc((size_t)n + 1, 1);
  if (!seen) return MXN_ERR_NOMEM;
  /* Lines of any length: read character by character into a growing
   * buffer (no fixed line buffer to split a long line). */
  size_t cap = 256, len = 0;
  char *line = mxn__malloc(cap);
  long lineno = 0;
  int ch = 0;
  while (status == MXN_OK && line && ch != EOF) {
    len = 0;
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
      if (len + 1 >= cap) {
        char *bigger = mxn__realloc(line, cap * 2);
        if (!bigger) {
          status = MXN_ERR_NOMEM;
          break;
        }
        line = bigger;
        cap *= 2;
      }
      line[len++] = (char)ch;
    }
    if (status != MXN_OK || (ch == EOF && len == 0)) break;
    line[len] = '\0';
    lineno++;
    char *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (*p == '#' || *p == '\0') continue;
    /* strtoll/strtol rather than sscanf, whose overflow is undefined: an id
     * beyond 64 bits is an error, not a silently clamped id. */
    char *e1, *e2 = NULL;
    errno = 0;
    long long id = strtoll(p, &e1, 10);
    int id_range = errno == ERANGE;
    errno = 0;
    long pt = e1 == p ? 0 : strtol(e1, &e2, 10);
    int pt_range = errno == ERANGE;
    if (e1 == p || e2 == e1 || !isspace((unsigned char)*e1)) {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: expected 'element_id part'", path, lineno);
      break;
    }
    while (isspace((unsigned char)*e2)) e2++;
    if (*e2 && *e2 != '#') {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: expected 'element_id part'", path, lineno);
      break;
    }
    if (id_range) {
      status = mxn_error_set(err, MXN_ERR_FORMAT,
                             "%s:%ld: element id is outside the 64-bit range", path, lineno);
      break;
    }
    if (pt_range || pt < 0 || pt >= nparts) {
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: part %ld is outside 0..%d", path, lineno,
                             pt, nparts - 1);
      break;
    }
    int64_t k = mxn__lower_bound(ids, n, id);
    if (k < n && ids[k] == id) {
      if (seen[k] && part[k] != (int)pt) {
        status = mxn_error_set(err, MXN_ERR_FORMAT, "%s:%ld: element %lld is given part %ld, "
                               "and part %d on an earlier line", path, lineno, id, pt, part[k]);
        break;
      }
      part[k] = (int)pt;
      seen[k] = 1;
    }
  }
  if (!line) status = MXN_ERR_NOMEM;
  free(line);
  for (int64_t k = 0; k < n && status == MXN_OK; k++)
    if (!seen[k])
      status = mxn_error_set(err, MXN_ERR_FORMAT, "%s: element %lld has no part", path,
                             (long long)ids[k]);
  free(seen);
  return status;
}
