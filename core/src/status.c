/* Status codes and error records shared by every module. */
#include "mxn/status.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
  int code;
  const char *text;
} status_table[] = {
    {MXN_OK, "success"},
    {MXN_ERR_ARG, "invalid argument"},
    {MXN_ERR_NOMEM, "out of memory"},
    {MXN_ERR_IO, "I/O error"},
    {MXN_ERR_FORMAT, "not a valid Exodus II file"},
    {MXN_ERR_FILESET, "incomplete or inconsistent file set"},
    {MXN_ERR_NOMAP, "no global id maps"},
    {MXN_ERR_INCONSISTENT, "files disagree"},
    {MXN_ERR_NOTFOUND, "id not found in any file"},
    {MXN_ERR_UNSUPPORTED, "unsupported content"},
    {MXN_ERR_PARTITION, "partitioning failed"},
    {MXN_ERR_MPI, "MPI error"},
    {MXN_ERR_DIFFERENT, "datasets differ"},
};

const char *mxn_strerror(int status) {
  for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
    if (status_table[i].code == status) return status_table[i].text;
  return "unknown status";
}

int mxn_error_set(mxn_error_t *err, int status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->status = status;
  }
  return status;
}

void mxn_error_clear(mxn_error_t *err) {
  if (err) {
    err->status = MXN_OK;
    err->msg[0] = '\0';
  }
}
