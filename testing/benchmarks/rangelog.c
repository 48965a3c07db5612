/* Records the byte ranges a process reads from files under one directory
 * (LD_PRELOAD shim for the benchmark's floor, not part of the library).
 *
 *   cc -shared -fPIC -O2 -o rangelog.so rangelog.c -ldl
 *   MXN_BENCH_OPEN_PREFIX=/data/set.e. LD_PRELOAD=./rangelog.so pvbatch ...
 *
 * A file opened through open/open64/openat/openat64/fopen/fopen64 whose
 * path starts with MXN_BENCH_OPEN_PREFIX (absolute paths, as opencount.c)
 * is followed by its descriptor until close/fclose; dup/dup2/dup3 and
 * fcntl(F_DUPFD) copies are followed too. Every read on a followed
 * descriptor is logged as (phase, kind, file, offset, bytes returned):
 *   r  read / __read_chk (offset: the descriptor's position before it)
 *   p  pread / pread64 / __pread_chk / __pread64_chk
 *   v  readv / preadv / preadv64 / preadv2 / preadv64v2 (one record a call)
 *   f  fread (offset: ftello before it; the bytes the caller got, not the
 *      stdio buffer's fill)
 *   m  mmap / mmap64 of a followed descriptor: not a read, the bytes the
 *      mapping covers, so a reader that maps its files is seen, not missed
 *   o  an open of the file (offset and bytes 0)
 * The netCDF library reads classic members by lseek + read (posixio) and
 * probes the format with fopen + fread; HDF5's default driver (sec2) reads
 * by pread; netCDF maps files only for NC_MMAP / NC_DISKLESS opens.
 * Other stdio reads (fgets, getc, fscanf) are not followed: rangelog_stdio()
 * counts FILE streams opened on followed files, so a caller can see any.
 *
 * Through ctypes (bench.py):
 *   rangelog_mark(k)       later records carry phase k (0 at start)
 *   rangelog_reset()       drop the records (followed descriptors stay)
 *   rangelog_dump(path)    write the records: "F index path" lines, then
 *                          "R phase kind index offset bytes" lines;
 *                          returns 0, or -1 when the file cannot be written
 *   rangelog_bytes(k, kind), rangelog_calls(k, kind): totals of phase k
 *                          (k < 0: all phases; kind 0: every kind but m, o)
 *   rangelog_lost()        reads on followed descriptors not recorded
 *                          (out of memory, more than 65536 paths)
 * With MXN_BENCH_RANGES set, a process that opened a followed file and
 * did not call rangelog_dump dumps its records at exit (dump_at_exit).
 * Preloaded beside opencount.so, each shim
 * interposes on the next (RTLD_NEXT), so both see every open. */
#undef _FORTIFY_SOURCE /* this file defines the fortified entries itself */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* glibc's fortified reads, declared by its headers only under
 * _FORTIFY_SOURCE. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);

#define MAXFD 65536
#define MAXPATHS 65536

typedef struct {
  int64_t off, len;
  int32_t path, phase;
  char kind;
} rec_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t fd_path[MAXFD]; /* path index + 1; 0: not followed */
static char *paths[MAXPATHS];
static int32_t npaths;
static rec_t *recs;
static size_t nrecs, caprecs;
static int32_t phase;
static long lost, stdio_streams;
static int dumped; /* rangelog_dump was called: no dump at exit */
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

/* Caller holds the lock. */
static void add(int32_t path, char kind, int64_t off, int64_t len) {
  if (nrecs == caprecs) {
    size_t cap = caprecs ? 2 * caprecs : 4096;
    rec_t *r = realloc(recs, cap * sizeof *r);
    if (!r) {
      lost++;
      return;
    }
    recs = r;
    caprecs = cap;
  }
  recs[nrecs++] = (rec_t){off, len, path, phase, kind};
}

static int32_t path_index(const char *path) { /* caller holds the lock; -1 if full */
  for (int32_t k = npaths - 1; k >= 0; k--)
    if (!strcmp(paths[k], path)) return k;
  if (npaths >= MAXPATHS) return -1;
  char *p = strdup(path);
  if (!p) return -1;
  paths[npaths] = p;
  return npaths++;
}

static void follow(int fd, const char *path) {
  if (fd < 0 || fd >= MAXFD) return;
  pthread_mutex_lock(&lock);
  if (!matches(path)) {
    fd_path[fd] = 0; /* a reused descriptor */
  } else {
    int32_t k = path_index(path);
    fd_path[fd] = k + 1;
    if (k >= 0)
      add(k, 'o', 0, 0);
    else
      lost++;
  }
  pthread_mutex_unlock(&lock);
}

static void note(int fd, char kind, int64_t off, int64_t len) {
  if (fd < 0 || fd >= MAXFD || !fd_path[fd]) return;
  pthread_mutex_lock(&lock);
  if (fd_path[fd] > 0 && len > 0) add(fd_path[fd] - 1, kind, off, len);
  pthread_mutex_unlock(&lock);
}

static void copy_fd(int from, int to) {
  if (to < 0 || to >= MAXFD) return;
  fd_path[to] = (from >= 0 && from < MAXFD) ? fd_path[from] : 0;
}

/* --- ctypes interface ----------------------------------------------- */
void rangelog_mark(int k) {
  pthread_mutex_lock(&lock);
  phase = k;
  pthread_mutex_unlock(&lock);
}

void rangelog_reset(void) {
  pthread_mutex_lock(&lock);
  nrecs = 0;
  lost = 0;
  phase = 0;
  pthread_mutex_unlock(&lock);
}

static int counted(const rec_t *r, int k, int kind) {
  if (k >= 0 && r->phase != k) return 0;
  return kind ? r->kind == kind : (r->kind != 'm' && r->kind != 'o');
}

long long rangelog_bytes(int k, int kind) {
  long long s = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nrecs; i++)
    if (counted(&recs[i], k, kind)) s += recs[i].len;
  pthread_mutex_unlock(&lock);
  return s;
}

long long rangelog_calls(int k, int kind) {
  long long s = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nrecs; i++) s += counted(&recs[i], k, kind);
  pthread_mutex_unlock(&lock);
  return s;
}

long rangelog_lost(void) { return lost; }
long rangelog_stdio(void) { return stdio_streams; }

int rangelog_dump(const char *file) {
  static __typeof__(&fopen) real_fopen;
  if (!real_fopen) real_fopen = (__typeof__(&fopen))dlsym(RTLD_NEXT, "fopen");
  FILE *f = real_fopen(file, "w");
  if (!f) return -1;
  pthread_mutex_lock(&lock);
  dumped = 1;
  for (int32_t k = 0; k < npaths; k++) fprintf(f, "F %d %s\n", k, paths[k]);
  for (size_t i = 0; i < nrecs; i++)
    fprintf(f, "R %d %c %d %lld %lld\n", recs[i].phase, recs[i].kind, recs[i].path,
            (long long)recs[i].off, (long long)recs[i].len);
  pthread_mutex_unlock(&lock);
  return fclose(f) == 0 ? 0 : -1;
}

/* With MXN_BENCH_RANGES set, the records are dumped at exit to
 * $MXN_BENCH_RANGES.<rank> (the MPI launcher's rank variable, else 0):
 * for programs that do not call rangelog_dump (the mxn CLI). Only by a
 * process that opened a followed file: the programs a reader's process
 * starts inherit the environment, and would overwrite its dump. */
__attribute__((destructor)) static void dump_at_exit(void) {
  const char *to = getenv("MXN_BENCH_RANGES");
  if (!to || !*to || dumped || npaths == 0) return;
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}, *rank = "0";
  for (int k = 0; k < 3; k++)
    if (getenv(vars[k])) {
      rank = getenv(vars[k]);
      break;
    }
  char file[4096];
  snprintf(file, sizeof file, "%s.%s", to, rank);
  if (rangelog_dump(file) != 0) fprintf(stderr, "rangelog: cannot write %s\n", file);
}

/* --- opens and closes ----------------------------------------------- */
/* The next definition of `name` (libc's, or another preloaded shim's). */
#define REAL(name)                              \
  static __typeof__(&name) real_##name;         \
  if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* The mode argument exists only with O_CREAT / O_TMPFILE. */
#define MODE_ARG(flags, mode)                \
  do {                                       \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { \
      va_list ap;                            \
      va_start(ap, flags);                   \
      mode = (mode_t)va_arg(ap, int);        \
      va_end(ap);                            \
    }                                        \
  } while (0)

int open(const char *path, int flags, ...) {
  REAL(open);
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  int fd = real_open(path, flags, mode);
  follow(fd, path);
  return fd;
}

int open64(const char *path, int flags, ...) {
  REAL(open64);
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  int fd = real_open64(path, flags, mode);
  follow(fd, path);
  return fd;
}

int openat(int dirfd, const char *path, int flags, ...) {
  REAL(openat);
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  int fd = real_openat(dirfd, path, flags, mode);
  follow(fd, path);
  return fd;
}

int openat64(int dirfd, const char *path, int flags, ...) {
  REAL(openat64);
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  int fd = real_openat64(dirfd, path, flags, mode);
  follow(fd, path);
  return fd;
}

static void follow_stream(FILE *f, const char *path) {
  if (!f) return;
  follow(fileno(f), path);
  if (matches(path)) __atomic_add_fetch(&stdio_streams, 1, __ATOMIC_RELAXED);
}

FILE *fopen(const char *path, const char *m) {
  REAL(fopen);
  FILE *f = real_fopen(path, m);
  follow_stream(f, path);
  return f;
}

FILE *fopen64(const char *path, const char *m) {
  REAL(fopen64);
  FILE *f = real_fopen64(path, m);
  follow_stream(f, path);
  return f;
}

int close(int fd) {
  REAL(close);
  if (fd >= 0 && fd < MAXFD) fd_path[fd] = 0;
  return real_close(fd);
}

int fclose(FILE *f) {
  REAL(fclose);
  int fd = f ? fileno(f) : -1;
  if (fd >= 0 && fd < MAXFD) fd_path[fd] = 0;
  return real_fclose(f);
}

int dup(int fd) {
  REAL(dup);
  int r = real_dup(fd);
  copy_fd(fd, r);
  return r;
}

int dup2(int fd, int to) {
  REAL(dup2);
  int r = real_dup2(fd, to);
  if (r >= 0) copy_fd(fd, r);
  return r;
}

int dup3(int fd, int to, int flags) {
  REAL(dup3);
  int r = real_dup3(fd, to, flags);
  if (r >= 0) copy_fd(fd, r);
  return r;
}

int fcntl(int fd, int cmd, ...) {
  REAL(fcntl);
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *); /* every fcntl argument fits a pointer */
  va_end(ap);
  int r = real_fcntl(fd, cmd, arg);
  if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) copy_fd(fd, r);
  return r;
}

/* --- reads ----------------------------------------------------------- */
static int64_t position(int fd) {
  return (fd >= 0 && fd < MAXFD && fd_path[fd]) ? (int64_t)lseek(fd, 0, SEEK_CUR) : 0;
}

ssize_t read(int fd, void *buf, size_t n) {
  REAL(read);
  int64_t at = position(fd);
  ssize_t r = real_read(fd, buf, n);
  note(fd, 'r', at, r);
  return r;
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  REAL(__read_chk);
  int64_t at = position(fd);
  ssize_t r = real___read_chk(fd, buf, n, buflen);
  note(fd, 'r', at, r);
  return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  REAL(pread);
  ssize_t r = real_pread(fd, buf, n, off);
  note(fd, 'p', off, r);
  return r;
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off) {
  REAL(pread64);
  ssize_t r = real_pread64(fd, buf, n, off);
  note(fd, 'p', off, r);
  return r;
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) {
  REAL(__pread_chk);
  ssize_t r = real___pread_chk(fd, buf, n, off, buflen);
  note(fd, 'p', off, r);
  return r;
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) {
  REAL(__pread64_chk);
  ssize_t r = real___pread64_chk(fd, buf, n, off, buflen);
  note(fd, 'p', off, r);
  return r;
}

ssize_t readv(int fd, const struct iovec *v, int n) {
  REAL(readv);
  int64_t at = position(fd);
  ssize_t r = real_readv(fd, v, n);
  note(fd, 'v', at, r);
  return r;
}

ssize_t preadv(int fd, const struct iovec *v, int n, off_t off) {
  REAL(preadv);
  ssize_t r = real_preadv(fd, v, n, off);
  note(fd, 'v', off, r);
  return r;
}

ssize_t preadv64(int fd, const struct iovec *v, int n, off_t off) {
  REAL(preadv64);
  ssize_t r = real_preadv64(fd, v, n, off);
  note(fd, 'v', off, r);
  return r;
}

ssize_t preadv2(int fd, const struct iovec *v, int n, off_t off, int flags) {
  REAL(preadv2);
  int64_t at = off == -1 ? position(fd) : off;
  ssize_t r = real_preadv2(fd, v, n, off, flags);
  note(fd, 'v', at, r);
  return r;
}

ssize_t preadv64v2(int fd, const struct iovec *v, int n, off_t off, int flags) {
  REAL(preadv64v2);
  int64_t at = off == -1 ? position(fd) : off;
  ssize_t r = real_preadv64v2(fd, v, n, off, flags);
  note(fd, 'v', at, r);
  return r;
}

size_t fread(void *buf, size_t size, size_t n, FILE *f) {
  REAL(fread);
  int fd = f ? fileno(f) : -1;
  int64_t at = (fd >= 0 && fd < MAXFD && fd_path[fd]) ? (int64_t)ftello(f) : 0;
  size_t r = real_fread(buf, size, n, f);
  note(fd, 'f', at, (int64_t)(r * size));
  return r;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  REAL(mmap);
  void *p = real_mmap(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS)) note(fd, 'm', off, (int64_t)len);
  return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  REAL(mmap64);
  void *p = real_mmap64(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS)) note(fd, 'm', off, (int64_t)len);
  return p;
}
