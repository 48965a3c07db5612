/* The floor of a load (issue 60): on the same N ranks, read exactly the
 * byte ranges a run of the reader read (recorded per rank by rangelog.c),
 * with pread into one buffer: no decoding, no VTK. A benchmark program,
 * not part of the library.
 *
 * usage: mpiexec -n N floor_bench RANGES [--whole | --decode] [--first-phases K]
 *                                  [--tag key=value ...]
 *
 * RANGES.<rank> is rank <rank>'s dump of rangelog_dump(): the files ("F
 * index path") and the reads ("R phase kind index offset bytes") in the
 * order they were made. bench.py marks phase 0 = the reader's creation
 * (its information pass: the collective open), 1 = the rest of the first
 * step, 2 = the first further step, 3 = the later ones; K (default 2)
 * phases make the first step, phase K is the further step.
 *
 * Default (variant F, "floor of the ranges"): each phase 0..K in turn,
 * timed between barriers: the files the phase opened first are opened
 * inside its clock (a file read but never opened in the record, before
 * it), then every read of the phase is replayed with one pread of its
 * offset and length, in the recorded order. mmap records are counted, not
 * replayed. Files stay open across phases and are closed at the end.
 *
 * --decode (F of compressed members: read + decode once): every replayed
 * range that starts like a zlib stream (HDF5's deflate filter writes one
 * per chunk, and the core reads a chunk with one pread) is also inflated
 * with libdeflate, the library the core decodes with, inside the clock;
 * the bytes it gave are recorded (decoded_per_rank) beside the core's
 * bytes_decompressed. The unshuffle after it is not done.
 *
 * --whole (variant W, "covered members whole"): every file the first K
 * phases touched is opened, read whole in 4 MiB preads and closed, timed
 * between barriers.
 *
 * Prints one line on rank 0: "BENCH_JSON " and a JSON record with kind
 * "floor", the per-rank seconds, bytes, reads and opens of each phase,
 * first_s = max over ranks of the first K phases' sum, step_s = [max over
 * ranks of phase K] (F only). Exit 0 on success, 1 on any error (the same
 * on every rank), 2 on bad usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef FLOOR_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#define MAXPH 8
#define WHOLE_CHUNK (4 << 20)

typedef struct {
  int phase;
  char kind;
  int path;
  int64_t off, len;
} rec_t;

typedef struct {
  char **path;
  int *fd;
  int *first_open; /* phase of the path's first open record, or MAXPH */
  int npaths;
  rec_t *r;
  size_t n;
  char msg[8192];
} log_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void log_free(log_t *L) {
  for (int k = 0; k < L->npaths; k++) {
    if (L->fd && L->fd[k] >= 0) close(L->fd[k]);
    free(L->path[k]);
  }
  free(L->path);
  free(L->fd);
  free(L->first_open);
  free(L->r);
}

/* Reads `file` into L; 0, or -1 with L->msg said. */
static int log_read(const char *file, log_t *L) {
  FILE *f = fopen(file, "r");
  if (!f) {
    snprintf(L->msg, sizeof L->msg, "%s: %s", file, strerror(errno));
    return -1;
  }
  char line[8192];
  size_t cap = 0;
  int pcap = 0, rc = 0;
  long lineno = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "\n")] = 0;
    if (line[0] == 'F') {
      int k, at = 0;
      if (sscanf(line, "F %d %n", &k, &at) < 1 || at == 0 || k != L->npaths) {
        rc = -1;
        break;
      }
      if (L->npaths == pcap) {
        pcap = pcap ? 2 * pcap : 64;
        char **p = realloc(L->path, pcap * sizeof *p);
        int *fd = realloc(L->fd, pcap * sizeof *fd);
        int *fo = realloc(L->first_open, pcap * sizeof *fo);
        if (p) L->path = p;
        if (fd) L->fd = fd;
        if (fo) L->first_open = fo;
        if (!p || !fd || !fo) {
          snprintf(L->msg, sizeof L->msg, "%s: out of memory", file);
          fclose(f);
          return -1;
        }
      }
      L->path[k] = strdup(line + at);
      L->fd[k] = -1;
      L->first_open[k] = MAXPH;
      if (!L->path[k]) rc = -1;
      L->npaths++;
    } else if (line[0] == 'R') {
      rec_t x;
      long long off, len;
      if (sscanf(line, "R %d %c %d %lld %lld", &x.phase, &x.kind, &x.path, &off, &len) != 5 ||
          x.path < 0 || x.path >= L->npaths || x.phase < 0 || off < 0 || len < 0) {
        rc = -1;
        break;
      }
      x.off = off;
      x.len = len;
      if (L->n == cap) {
        cap = cap ? 2 * cap : 4096;
        rec_t *r = realloc(L->r, cap * sizeof *r);
        if (!r) {
          snprintf(L->msg, sizeof L->msg, "%s: out of memory", file);
          fclose(f);
          return -1;
        }
        L->r = r;
      }
      L->r[L->n++] = x;
      if (x.kind == 'o' && x.phase < L->first_open[x.path]) L->first_open[x.path] = x.phase;
    } else if (line[0]) {
      rc = -1;
    }
  }
  if (rc) snprintf(L->msg, sizeof L->msg, "%s:%ld: not a rangelog dump line", file, lineno);
  fclose(f);
  return rc;
}

static int open_path(log_t *L, int k, int64_t *opens) {
  if (L->fd[k] >= 0) return 0;
  L->fd[k] = open(L->path[k], O_RDONLY);
  if (L->fd[k] < 0) {
    snprintf(L->msg, sizeof L->msg, "%s: %s", L->path[k], strerror(errno));
    return -1;
  }
  if (opens) (*opens)++;
  return 0;
}

/* The decoder of --decode: a deflate chunk of a compressed member. */
typedef struct {
#ifdef FLOOR_HAVE_LIBDEFLATE
  struct libdeflate_decompressor *d;
#endif
  char *out;
  size_t cap;
  int64_t decoded;
} decode_t;

/* Inflates buf[0, n) when it starts like a zlib stream; 0, or -1 when out
 * of memory. A range that is not a stream is left alone. */
static int decode(decode_t *z, const unsigned char *buf, size_t n) {
#ifdef FLOOR_HAVE_LIBDEFLATE
  if (n < 2 || (buf[0] & 0x0f) != 8 || ((buf[0] << 8) | buf[1]) % 31) return 0;
  for (;;) {
    size_t got = 0;
    enum libdeflate_result r = libdeflate_zlib_decompress(z->d, buf, n, z->out, z->cap, &got);
    if (r == LIBDEFLATE_SUCCESS) {
      z->decoded += (int64_t)got;
      return 0;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE || z->cap >= ((size_t)1 << 31)) return 0;
    char *o = realloc(z->out, 2 * z->cap);
    if (!o) return -1;
    z->out = o;
    z->cap *= 2;
  }
#else
  (void)z, (void)buf, (void)n;
  return 0;
#endif
}

/* Phase ph of the record, replayed: files first opened in it are opened
 * inside the clock, the others before. */
static int replay(log_t *L, int ph, char *buf, decode_t *z, double *secs, int64_t *bytes,
                  int64_t *reads, int64_t *opens, int64_t *maps, MPI_Comm comm) {
  int rc = 0;
  for (size_t i = 0; i < L->n && rc == 0; i++)
    if (L->r[i].phase == ph && L->r[i].kind != 'o' && L->first_open[L->r[i].path] > ph)
      rc = open_path(L, L->r[i].path, NULL);
  int bad = rc != 0, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) return -1;
  MPI_Barrier(comm);
  double t0 = now();
  for (size_t i = 0; i < L->n && rc == 0; i++) {
    const rec_t *x = &L->r[i];
    if (x->phase != ph) continue;
    if (x->kind == 'o') {
      rc = open_path(L, x->path, opens);
    } else if (x->kind == 'm') {
      (*maps)++;
    } else {
      if ((rc = open_path(L, x->path, opens)) != 0) break;
      ssize_t got = pread(L->fd[x->path], buf, (size_t)x->len, x->off);
      if (got != x->len) {
        snprintf(L->msg, sizeof L->msg, "%s: pread of %lld bytes at %lld gave %lld (%s)",
                 L->path[x->path], (long long)x->len, (long long)x->off, (long long)got,
                 got < 0 ? strerror(errno) : "short");
        rc = -1;
      }
      *bytes += x->len;
      (*reads)++;
      if (rc == 0 && z && decode(z, (const unsigned char *)buf, (size_t)x->len) != 0) {
        snprintf(L->msg, sizeof L->msg, "%s: out of memory decoding %lld bytes at %lld",
                 L->path[x->path], (long long)x->len, (long long)x->off);
        rc = -1;
      }
    }
  }
  *secs = now() - t0;
  MPI_Barrier(comm);
  return rc;
}

/* Every file the first K phases touched, read whole. */
static int whole(log_t *L, int K, char *buf, double *secs, int64_t *bytes, int64_t *reads,
                 int64_t *opens, MPI_Comm comm) {
  int rc = 0;
  char *used = calloc((size_t)L->npaths + 1, 1);
  if (!used) {
    snprintf(L->msg, sizeof L->msg, "out of memory");
    rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < L->n; i++)
    if (L->r[i].phase < K) used[L->r[i].path] = 1;
  MPI_Barrier(comm);
  double t0 = now();
  for (int k = 0; rc == 0 && k < L->npaths; k++) {
    if (!used[k]) continue;
    int fd = open(L->path[k], O_RDONLY);
    if (fd < 0) {
      snprintf(L->msg, sizeof L->msg, "%s: %s", L->path[k], strerror(errno));
      rc = -1;
      break;
    }
    (*opens)++;
    for (int64_t at = 0;;) {
      ssize_t got = pread(fd, buf, WHOLE_CHUNK, at);
      if (got < 0) {
        snprintf(L->msg, sizeof L->msg, "%s: pread at %lld: %s", L->path[k], (long long)at,
                 strerror(errno));
        rc = -1;
        break;
      }
      if (got == 0) break;
      (*reads)++;
      *bytes += got;
      at += got;
    }
    close(fd);
  }
  *secs = now() - t0;
  MPI_Barrier(comm);
  free(used);
  return rc;
}

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  putchar('"');
}

/* Rank 0: field f (0 seconds, 1 bytes, 2 reads, 3 opens, 4 maps, 5 decoded) of
 * phases 0..nph-1 of every rank, a JSON list of lists. */
static void json_rows(const char *name, const double *all, int N, int nph, int f, const char *fmt) {
  printf("\"%s\": [", name);
  for (int r = 0; r < N; r++) {
    printf("%s[", r ? ", " : "");
    for (int ph = 0; ph < nph; ph++) {
      printf(ph ? ", " : "");
      printf(fmt, all[(size_t)r * 6 * MAXPH + (f < 5 ? 5 * ph + f : 5 * MAXPH + ph)]);
    }
    printf("]");
  }
  printf("], ");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int R, N;
  MPI_Comm_rank(comm, &R);
  MPI_Comm_size(comm, &N);
  const char *prefix = NULL;
  int whole_mode = 0, decode_mode = 0, K = 2, usage = 0, ntags = 0;
  const char *tags[64];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--whole"))
      whole_mode = 1;
    else if (!strcmp(argv[i], "--decode"))
      decode_mode = 1;
    else if (!strcmp(argv[i], "--first-phases") && i + 1 < argc)
      K = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--tag") && i + 1 < argc && ntags < 64 && strchr(argv[i + 1], '='))
      tags[ntags++] = argv[++i];
    else if (argv[i][0] != '-' && !prefix)
      prefix = argv[i];
    else
      usage = 1;
  }
#ifndef FLOOR_HAVE_LIBDEFLATE
  if (decode_mode) {
    if (R == 0) fprintf(stderr, "floor_bench: built without libdeflate: no --decode\n");
    usage = 1;
  }
#endif
  if (usage || !prefix || K < 1 || K >= MAXPH || (whole_mode && decode_mode)) {
    if (R == 0)
      fprintf(stderr, "usage: mpiexec -n N floor_bench RANGES [--whole | --decode] "
                      "[--first-phases K] [--tag key=value ...]\n");
    MPI_Finalize();
    return 2;
  }

  log_t L;
  memset(&L, 0, sizeof L);
  char file[4096];
  snprintf(file, sizeof file, "%s.%d", prefix, R);
  int rc = log_read(file, &L);
  int64_t maxlen = WHOLE_CHUNK;
  for (size_t i = 0; i < L.n; i++)
    if (L.r[i].kind != 'm' && L.r[i].len > maxlen) maxlen = L.r[i].len;
  char *buf = rc == 0 ? malloc((size_t)maxlen) : NULL;
  if (rc == 0 && !buf) {
    snprintf(L.msg, sizeof L.msg, "rank %d: out of memory (%lld bytes)", R, (long long)maxlen);
    rc = -1;
  }
  if (buf) memset(buf, 1, (size_t)maxlen); /* faulted in before any clock */
  decode_t z;
  memset(&z, 0, sizeof z);
#ifdef FLOOR_HAVE_LIBDEFLATE
  if (decode_mode && rc == 0) {
    z.cap = (size_t)16 << 20;
    z.d = libdeflate_alloc_decompressor();
    z.out = malloc(z.cap);
    if (!z.d || !z.out) {
      snprintf(L.msg, sizeof L.msg, "rank %d: out of memory (decoder)", R);
      rc = -1;
    } else {
      memset(z.out, 1, z.cap);
    }
  }
#endif

  /* Phases 0..K (F) or one (W): seconds, bytes, reads, opens, maps;
   * then the bytes decoded in each phase. */
  const int nph = whole_mode ? 1 : K + 1;
  double mine[6 * MAXPH];
  memset(mine, 0, sizeof mine);
  for (int ph = 0; ph < nph; ph++) {
    int bad = rc != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) break;
    double s = 0;
    int64_t b = 0, n = 0, o = 0, m = 0;
    int64_t z0 = z.decoded;
    rc = whole_mode ? whole(&L, K, buf, &s, &b, &n, &o, comm)
                    : replay(&L, ph, buf, decode_mode ? &z : NULL, &s, &b, &n, &o, &m, comm);
    mine[5 * MAXPH + ph] = (double)(z.decoded - z0);
    mine[5 * ph] = s;
    mine[5 * ph + 1] = (double)b;
    mine[5 * ph + 2] = (double)n;
    mine[5 * ph + 3] = (double)o;
    mine[5 * ph + 4] = (double)m;
  }
  int bad = rc != 0, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (rc) fprintf(stderr, "floor_bench: rank %d: %s\n", R, L.msg);
  double *all = R == 0 ? malloc(sizeof mine * N) : NULL;
  MPI_Gather(mine, 6 * MAXPH, MPI_DOUBLE, all, 6 * MAXPH, MPI_DOUBLE, 0, comm);
  if (R == 0 && !any && all) {
    double first = 0, step = 0;
    for (int r = 0; r < N; r++) {
      double f = 0;
      for (int ph = 0; ph < nph; ph++) {
        double x = all[(size_t)r * 6 * MAXPH + 5 * ph];
        if (whole_mode || ph < K) f += x;
        if (!whole_mode && ph == K && x > step) step = x;
      }
      if (f > first) first = f;
    }
    printf("BENCH_JSON {\"kind\": \"floor\", \"variant\": \"%s\", \"ranks\": %d, "
           "\"first_phases\": %d, \"ranges\": ",
           whole_mode ? "W" : "F", N, K);
    json_str(prefix);
    printf(", \"first_s\": %.9f, \"step_s\": ", first);
    if (whole_mode)
      printf("[], ");
    else
      printf("[%.9f], ", step);
    json_rows("phase_s_per_rank", all, N, nph, 0, "%.9f");
    json_rows("bytes_per_rank", all, N, nph, 1, "%.0f");
    json_rows("reads_per_rank", all, N, nph, 2, "%.0f");
    json_rows("opens_per_rank", all, N, nph, 3, "%.0f");
    json_rows("mmaps_per_rank", all, N, nph, 4, "%.0f");
    if (decode_mode) json_rows("decoded_per_rank", all, N, nph, 5, "%.0f");
    printf("\"decode\": %s, ", decode_mode ? "true" : "false");
    printf("\"tags\": {");
    for (int t = 0; t < ntags; t++) {
      const char *eq = strchr(tags[t], '=');
      char key[256];
      snprintf(key, sizeof key, "%.*s", (int)(eq - tags[t]), tags[t]);
      printf("%s", t ? ", " : "");
      json_str(key);
      printf(": ");
      json_str(eq + 1);
    }
    printf("}}\n");
    fflush(stdout);
  }
  free(all);
  free(buf);
  free(z.out);
#ifdef FLOOR_HAVE_LIBDEFLATE
  if (z.d) libdeflate_free_decompressor(z.d);
#endif
  log_free(&L);
  MPI_Finalize();
  return any ? 1 : 0;
}
