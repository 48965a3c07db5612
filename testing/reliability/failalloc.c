/* failalloc: an LD_PRELOAD library that makes one allocation of the core
 * fail on one MPI rank, to show that running out of memory anywhere in a
 * load ends every rank with an error (no hang, no crash, nothing left
 * behind). run_failalloc.py drives it.
 *
 * Counted are malloc, calloc and realloc calls made directly from the
 * code of one object: the main executable (the mxn CLI, into which the
 * core is linked statically) or, with MXN_FAILALLOC_OBJ, the first loaded
 * object whose path contains that string (the reader plugin's library,
 * loaded by pvbatch after start: looked for after every dlopen). libc's,
 * MPI's, netCDF's and VTK's own allocations are passed through, so the
 * failure always lands on a path the project handles.
 *
 * Environment (read at load):
 *   MXN_FAILALLOC_RANK  the rank (OMPI_COMM_WORLD_RANK, PMI_RANK) that
 *                       counts; other ranks pass everything through
 *   MXN_FAILALLOC_NTH   fail the n-th counted call (1-based); 0 or unset:
 *                       count only
 *   MXN_FAILALLOC_AFTER also fail every counted call after the n-th (a
 *                       memory that stays exhausted), when set to 1
 *   MXN_FAILALLOC_MIN   count only calls of at least this many bytes
 *                       (default 1)
 *   MXN_FAILALLOC_REPORT print "failalloc: rank R counted C failed F" on
 *                       stderr at exit, when set to 1
 *   MXN_FAILALLOC_OBJ   count calls from this object instead of the main
 *                       executable (a substring of its path)
 *   MXN_FAILALLOC_TRACE print the call stack of the (first) failed call on
 *                       stderr, when set to 1 (addresses as exe(+offset):
 *                       addr2line -f -e EXE OFFSET names them)
 *   MXN_FAILALLOC_EXCHANGES  a file: every MPI exchange (collective or
 *                       point-to-point) the object calls on the counting
 *                       rank is noted there, one line each: "X <counted
 *                       so far> <object> <offset> ..." with the offsets of
 *                       the object's frames on the stack, innermost first
 *                       (addr2line names them), so that a run can fail the
 *                       last allocation before each exchange
 *   MXN_FAILALLOC_SITES  a file: every counted call on the counting rank
 *                       is noted there, one line each: "A <its number>
 *                       <offset> ..." with the offsets in the object of
 *                       the object's frames on the stack, so that
 *                       a sweep can tell calls from the same place in the
 *                       code apart from calls from another
 *
 * mxn_failalloc_reset (below) starts the count again in a running
 * process, for a driver that loads several times in one process (one
 * pvbatch session for many allocations: failalloc_plugin.py).
 *
 * The MPI functions below are wrapped (their PMPI_ twins do the work) to
 * see the exchanges; they change nothing else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int active;        /* this rank counts */
static long nth;          /* the call to fail, 0: none */
static int after;         /* and every one after it */
static size_t min_bytes = 1;
static int report;
static int trace;
static int rank = -1;
static long counted, failed;
static uintptr_t text_lo, text_hi; /* the main executable's code */

static const char *target; /* MXN_FAILALLOC_OBJ, or NULL: the main program */
static FILE *exchanges;     /* MXN_FAILALLOC_EXCHANGES */
static FILE *sites;         /* MXN_FAILALLOC_SITES */

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  /* the first object reported is the main program */
  if (target && !(info->dlpi_name && strstr(info->dlpi_name, target))) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (!text_lo || lo < text_lo) text_lo = lo;
    if (hi > text_hi) text_hi = hi;
  }
  return 1;
}

/* dlopen, then look for the target among the objects now loaded. */
void *dlopen(const char *file, int flags) {
  static void *(*real)(const char *, int);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
  void *h = real ? real(file, flags) : NULL;
  if (target && !text_hi) dl_iterate_phdr(find_object, NULL);
  return h;
}

static long env_long(const char *name, long def) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : def;
}

__attribute__((constructor)) static void failalloc_init(void) {
  rank = (int)env_long("OMPI_COMM_WORLD_RANK", env_long("PMI_RANK", 0));
  long want = env_long("MXN_FAILALLOC_RANK", -1);
  nth = env_long("MXN_FAILALLOC_NTH", 0);
  after = env_long("MXN_FAILALLOC_AFTER", 0) == 1;
  min_bytes = (size_t)env_long("MXN_FAILALLOC_MIN", 1);
  report = env_long("MXN_FAILALLOC_REPORT", 0) == 1;
  trace = env_long("MXN_FAILALLOC_TRACE", 0) == 1;
  target = getenv("MXN_FAILALLOC_OBJ");
  if (target && !*target) target = NULL;
  dl_iterate_phdr(find_object, NULL);
  active = want == rank;
  const char *ex = getenv("MXN_FAILALLOC_EXCHANGES");
  if (active && ex && *ex) exchanges = fopen(ex, "w");
  const char *si = getenv("MXN_FAILALLOC_SITES");
  if (active && si && *si) sites = fopen(si, "w");
}

__attribute__((destructor)) static void failalloc_fini(void) {
  if (exchanges) fclose(exchanges);
  exchanges = NULL;
  if (sites) fclose(sites);
  sites = NULL;
  if (report && active) {
    char line[128];
    int n = snprintf(line, sizeof line, "failalloc: rank %d counted %ld failed %ld\n", rank,
                     counted, failed);
    if (n > 0 && write(2, line, (size_t)n) < 0) return;
  }
}

/* Counts from zero again, now failing the nth_ counted call (0: none),
 * and every later one too when after_ is 1; returns the calls counted
 * since the last reset (or the start). Every rank may call it: only the
 * counting rank counts. */
long mxn_failalloc_reset(long nth_, int after_);
long mxn_failalloc_reset(long nth_, int after_) {
  long was = counted;
  counted = 0;
  failed = 0;
  nth = nth_;
  after = after_ == 1;
  return was;
}

static void note_site(void);

/* Whether this call (from `from`, of `bytes`) fails. */
static int fails(const void *from, size_t bytes) {
  uintptr_t a = (uintptr_t)from;
  if (!active || bytes < min_bytes || a < text_lo || a >= text_hi) return 0; /* also: not loaded */
  counted++;
  if (sites) note_site();
  if (nth > 0 && (counted == nth || (after && counted > nth))) {
    if (failed++ == 0 && trace) {
      void *frames[32];
      int nf = backtrace(frames, 32);
      backtrace_symbols_fd(frames, nf, 2);
    }
    return 1;
  }
  return 0;
}

void *malloc(size_t bytes) {
  if (fails(__builtin_return_address(0), bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_malloc(bytes);
}

void *calloc(size_t n, size_t size) {
  if (fails(__builtin_return_address(0), n * size)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_calloc(n, size);
}

void *realloc(void *old, size_t bytes) {
  if (fails(__builtin_return_address(0), bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_realloc(old, bytes);
}

/* The counted call just made: its place, as the offsets of the object's
 * frames (the innermost 24 of the stack). */
static void note_site(void) {
  void *frames[24];
  int nf = backtrace(frames, 24);
  fprintf(sites, "A %ld", counted);
  for (int i = 0; i < nf; i++) {
    uintptr_t f = (uintptr_t)frames[i];
    Dl_info info;
    if (f < text_lo || f >= text_hi || !dladdr(frames[i], &info)) continue;
    fprintf(sites, " 0x%lx", (unsigned long)(f - 1 - (uintptr_t)info.dli_fbase));
  }
  fputc('\n', sites);
}

/* An exchange called from `from`: noted when the object called it. */
static void note_exchange(const void *from) {
  uintptr_t a = (uintptr_t)from;
  if (!exchanges || a < text_lo || a >= text_hi) return;
  void *frames[24];
  int nf = backtrace(frames, 24);
  fprintf(exchanges, "X %ld", counted);
  int shown = 0;
  for (int i = 0; i < nf && shown < 8; i++) {
    uintptr_t f = (uintptr_t)frames[i];
    Dl_info info;
    if (f < text_lo || f >= text_hi || !dladdr(frames[i], &info) || !info.dli_fname) continue;
    /* a return address: the call is the byte before it */
    fprintf(exchanges, " %s 0x%lx", info.dli_fname,
            (unsigned long)(f - 1 - (uintptr_t)info.dli_fbase));
    shown++;
  }
  fputc('\n', exchanges);
  fflush(exchanges);
}

#define NOTE note_exchange(__builtin_return_address(0))

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  NOTE;
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  NOTE;
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  NOTE;
  return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  NOTE;
  return PMPI_Scan(s, r, n, t, op, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  NOTE;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c) {
  NOTE;
  return PMPI_Barrier(c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c) {
  NOTE;
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[],
                   const int rd[], MPI_Datatype rt, MPI_Comm c) {
  NOTE;
  return PMPI_Allgatherv(s, sn, st, r, rn, rd, rt, c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
               int root, MPI_Comm c) {
  NOTE;
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],
                MPI_Datatype rt, int root, MPI_Comm c) {
  NOTE;
  return PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c) {
  NOTE;
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r,
                  const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c) {
  NOTE;
  return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Alltoallw(const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r,
                  const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c) {
  NOTE;
  return PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c);
}
int MPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  NOTE;
  return PMPI_Send(b, n, t, dest, tag, c);
}
int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st) {
  NOTE;
  return PMPI_Recv(b, n, t, src, tag, c, st);
}
int MPI_Isend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
              MPI_Request *rq) {
  NOTE;
  return PMPI_Isend(b, n, t, dest, tag, c, rq);
}
int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *rq) {
  NOTE;
  return PMPI_Irecv(b, n, t, src, tag, c, rq);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *out) {
  NOTE;
  return PMPI_Comm_dup(c, out);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
  NOTE;
  return PMPI_Comm_split(c, color, key, out);
}
