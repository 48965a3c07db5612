/* Counts the files a process opens under one directory (LD_PRELOAD shim for
 * the benchmark, not part of the library).
 *
 *   cc -shared -fPIC -O2 -o opencount.so opencount.c -ldl
 *   MXN_BENCH_OPEN_PREFIX=/data/dir LD_PRELOAD=./opencount.so pvbatch ...
 *
 * Every open/open64/openat/openat64/fopen/fopen64 whose path starts with
 * MXN_BENCH_OPEN_PREFIX (relative paths are not resolved, the benchmark
 * passes absolute ones) is counted: all calls, and distinct paths (up to
 * 65536 of them; more are counted as calls only and flagged).
 * With MXN_BENCH_OPEN_LOG set, each new distinct path is also printed to
 * stderr (to see what a reader opens). bench.py reads the counters through
 * ctypes:
 *   opencount_calls(), opencount_distinct(), opencount_overflow(),
 *   opencount_reset().
 * The readers of ParaView (netCDF, HDF5, IOSS) and the MxN core all open
 * their files through these libc entries. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define TABLE 65536 /* power of two */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *seen[TABLE];
static long calls, distinct, overflow;
static const char *prefix;
static size_t prefix_len;
static int prefix_read;

static int matches(const char *path) {
  if (!prefix_read) {
    prefix = getenv("MXN_BENCH_OPEN_PREFIX");
    prefix_len = prefix ? strlen(prefix) : 0;
    prefix_read = 1;
  }
  return path && prefix_len && !strncmp(path, prefix, prefix_len);
}

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void note(const char *path) {
  if (!matches(path)) return;
  pthread_mutex_lock(&lock);
  calls++;
  uint64_t h = hash(path);
  size_t k = (size_t)h & (TABLE - 1);
  for (size_t probe = 0; probe < TABLE; probe++, k = (k + 1) & (TABLE - 1)) {
    if (!seen[k]) {
      if (distinct >= TABLE / 2) { /* keep the table sparse */
        overflow++;
        break;
      }
      seen[k] = strdup(path);
      if (seen[k]) distinct++;
      if (getenv("MXN_BENCH_OPEN_LOG")) fprintf(stderr, "opencount: %s\n", path);
      break;
    }
    if (!strcmp(seen[k], path)) break;
  }
  pthread_mutex_unlock(&lock);
}

long opencount_calls(void) { return calls; }
long opencount_distinct(void) { return distinct; }
long opencount_overflow(void) { return overflow; }

void opencount_reset(void) {
  pthread_mutex_lock(&lock);
  for (size_t k = 0; k < TABLE; k++) {
    free(seen[k]);
    seen[k] = NULL;
  }
  calls = distinct = overflow = 0;
  pthread_mutex_unlock(&lock);
}

/* The mode argument exists only with O_CREAT / O_TMPFILE. */
#define MODE_ARG(flags, mode)                         \
  do {                                                \
    if ((flags) & (O_CREAT | __O_TMPFILE)) {          \
      va_list ap;                                     \
      va_start(ap, flags);                            \
      mode = (mode_t)va_arg(ap, int);                 \
      va_end(ap);                                     \
    }                                                 \
  } while (0)

int open(const char *path, int flags, ...) {
  static int (*real)(const char *, int, ...);
  if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  note(path);
  return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
  static int (*real)(const char *, int, ...);
  if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  note(path);
  return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...) {
  static int (*real)(int, const char *, int, ...);
  if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  note(path);
  return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
  static int (*real)(int, const char *, int, ...);
  if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat64");
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  note(path);
  return real(dirfd, path, flags, mode);
}

FILE *fopen(const char *path, const char *m) {
  static FILE *(*real)(const char *, const char *);
  if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
  note(path);
  return real(path, m);
}

FILE *fopen64(const char *path, const char *m) {
  static FILE *(*real)(const char *, const char *);
  if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
  note(path);
  return real(path, m);
}
