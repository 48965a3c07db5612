/* The extraction plan's machinery (plan.h): segments of a member's
 * positions sorted and coalesced into runs, merged read gaps within the
 * plan's budget, the plan's own memory and read buffer. */
#include "read/read.h"

#include <stdio.h>

#include "read/plan.h"

/* Longest single read, in entries: bounds the scratch buffer. */
#define MXN__MAX_RUN 262144

static int cmp_pair(const void *a, const void *b) {
  const pair_t *x = a, *y = b;
  if (x->off != y->off) return (x->off > y->off) - (x->off < y->off);
  return (x->dst > y->dst) - (x->dst < y->dst);
}

void mxn__plan_elem_sources(const mxn_piece_t *pc, const int64_t *bstart, const char *only,
                            int32_t *file, int64_t *off) {
  for (int i = 0; i < pc->plan->nseg[MXN__ELEM]; i++) {
    const segment_t *sg = &pc->plan->seg[MXN__ELEM][i];
    for (int64_t x = 0; x < sg->n; x++) {
      int64_t e = bstart[sg->block] + sg->dst[x];
      if (only && !only[e]) continue;
      file[e] = sg->file;
      if (off) off[e] = sg->off[x];
    }
  }
}

int mxn__cmp_seg_file(const void *a, const void *b) {
  const segment_t *x = a, *y = b;
  return (x->file > y->file) - (x->file < y->file);
}

struct mxn__plan_mem {
  mxn__plan_mem_t *next;
  size_t used, cap, pad; /* the data after this header stays 16-byte aligned */
};

/* Blocks grow from 64 KiB to 8 MiB; a request of more than a quarter of
 * the next block gets a block of its own behind the current one, so the
 * current one's room is not left unused. */
#define PLAN_MEM_FIRST ((size_t)64 << 10)
#define PLAN_MEM_LAST ((size_t)8 << 20)
/* Under AddressSanitizer every request is a block of its own, so writes
 * past a segment's arrays are still caught. */
#define PLAN_MEM_EACH MXN_ASAN

void *mxn__plan_alloc(mxn__plan_t *p, size_t bytes) {
  size_t asked = bytes ? bytes : 1;
  if (bytes > SIZE_MAX - 15) return NULL;
  bytes = bytes ? (bytes + 15) & ~(size_t)15 : 16;
  mxn__plan_mem_t *m = p->mem;
  if (m && bytes <= m->cap - m->used) {
    void *r = (char *)(m + 1) + m->used;
    m->used += bytes;
    return r;
  }
  size_t cap = m ? 2 * m->cap : PLAN_MEM_FIRST;
  if (cap > PLAN_MEM_LAST) cap = PLAN_MEM_LAST;
  int own = PLAN_MEM_EACH || bytes > cap / 4;
  if (own) cap = PLAN_MEM_EACH ? asked : bytes;
  if (cap > SIZE_MAX - sizeof *m) return NULL;
  mxn__plan_mem_t *b = mxn__malloc(sizeof *b + cap);
  if (!b) return NULL;
  b->cap = cap;
  b->used = own ? cap : bytes; /* a block of its own is full */
  if (own && m) { /* behind the current block, which keeps its room */
    b->next = m->next;
    m->next = b;
  } else {
    b->next = m;
    p->mem = b;
  }
  return b + 1;
}

static void set_src_free(set_src_t *s) {
  free(s->file);
  free(s->pos);
  free(s->dst);
}

void mxn__plan_free(mxn__plan_t *p) {
  if (!p) return;
  for (int k = 0; k < MXN__NBK; k++) free(p->seg[k]);
  free(p->node_seg);
  for (int k = 0; k < MXN__NSK; k++) {
    if (p->set_src[k])
      for (int q = 0; q < p->nsets[k]; q++) set_src_free(&p->set_src[k][q]);
    free(p->set_src[k]);
  }
  free(p->buf);
  free(p->set_miss);
  for (mxn__plan_mem_t *m = p->mem, *next; m; m = next) {
    next = m->next;
    free(m);
  }
  free(p);
}

/* Sort a segment's (offset, destination) pairs into s->off / s->dst. */
int mxn__segment_sort(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n) {
  int status = MXN_OK;
  MXN_CHECK(mxn__radix_sort(pairs, n, sizeof *pairs));
  mxn__sort_ties(pairs, n, sizeof *pairs, cmp_pair);
  s->n = n;
  s->off = mxn__plan_alloc(p, (size_t)n * sizeof *s->off);
  s->dst = mxn__plan_alloc(p, (size_t)n * sizeof *s->dst);
  if (!s->off || !s->dst) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    s->off[i] = pairs[i].off;
    s->dst[i] = pairs[i].dst;
  }
done:
  return status;
}

/* Coalesce a sorted segment's offsets into runs: offsets closer than `gap`
 * entries share one read. */
int mxn__segment_runs(mxn__plan_t *p, segment_t *s, int64_t gap) {
  int status = MXN_OK;
  const int64_t n = s->n;
  /* Count the runs first: room for one per entry would be mostly unused
   * (a whole member is one run) and, from 4 MiB on, populated in full. */
  int64_t nruns = 0;
  {
    int64_t start = 0, end = 0; /* the open run: [start, end) */
    for (int64_t i = 0; i < n; i++) {
      if (nruns && s->off[i] - end <= gap && s->off[i] + 1 - start <= MXN__MAX_RUN) {
        end = s->off[i] + 1;
      } else {
        nruns++;
        start = s->off[i];
        end = start + 1;
      }
    }
  }
  if (!(s->runs = mxn__plan_alloc(p, (size_t)nruns * sizeof *s->runs))) {
    status = MXN_ERR_NOMEM;
    goto done;
  }
  s->nruns = 0;
  for (int64_t i = 0; i < n; i++) {
    run_t *r = s->nruns ? &s->runs[s->nruns - 1] : NULL;
    if (r && s->off[i] - (r->start + r->count) <= gap &&
        s->off[i] + 1 - r->start <= MXN__MAX_RUN) {
      r->count = s->off[i] + 1 - r->start;
      r->n++;
    } else {
      s->runs[s->nruns++] = (run_t){s->off[i], 1, i, 1, 1};
    }
  }
done:
  return status;
}

int mxn__segment_build(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n, int64_t gap) {
  int status = MXN_OK;
  MXN_CHECK(mxn__segment_sort(p, s, pairs, n));
  MXN_CHECK(mxn__segment_runs(p, s, gap));
done:
  return status;
}

int64_t mxn__gap_within(const segment_t *segs, int nseg, const double *width, int64_t gap,
                        double budget, double *spent) {
  *spent = 0;
  if (gap <= 0 || nseg <= 0) return gap > 0 ? gap : 0;
  /* The widest gap there is (the histogram below needs no more room). */
  int64_t widest = 0;
  for (int i = 0; i < nseg; i++)
    for (int64_t e = 1; e < segs[i].n; e++) {
      int64_t g = segs[i].off[e] - segs[i].off[e - 1] - 1;
      if (g > widest && g <= gap) widest = g;
    }
  if (widest == 0) return gap; /* nothing between wanted entries to merge */
  gap = widest;
  /* cost[g]: the bytes read beyond the wanted entries if every gap of g
   * entries is merged. Gaps wider than `gap` never merge and cost nothing. */
  double *cost = calloc((size_t)gap + 1, sizeof *cost);
  if (!cost) return 0; /* no room to weigh them: merge none, read exactly */
  for (int i = 0; i < nseg; i++) {
    const segment_t *sg = &segs[i];
    for (int64_t e = 1; e < sg->n; e++) {
      int64_t g = sg->off[e] - sg->off[e - 1] - 1;
      if (g > 0 && g <= gap) cost[g] += (double)g * width[i];
    }
  }
  double sum = 0;
  int64_t best = 0;
  for (int64_t g = 1; g <= gap; g++) {
    if (sum + cost[g] > budget) break;
    sum += cost[g];
    best = g;
  }
  free(cost);
  *spent = sum;
  return best;
}

/* The gap kind k's segments (nodes: k = MXN__NODE) merge with, within
 * what is left of the plan's budget (mxn_extract_opts_t gap_share over the
 * wanted bytes of every kind so far); width[i]: bytes per entry of seg i. */
int64_t mxn__plan_gap(mxn__plan_t *plan, const mxn_extract_opts_t *opts, const segment_t *segs,
                      int nseg, const double *width) {
  if (opts->gap_share <= 0) return opts->gap;
  for (int i = 0; i < nseg; i++) plan->gap_want += (double)segs[i].n * width[i];
  double spent;
  int64_t g = mxn__gap_within(segs, nseg, width, opts->gap,
                              opts->gap_share * plan->gap_want - plan->gap_spent, &spent);
  plan->gap_spent += spent;
  return g;
}

int mxn__plan_buf(mxn__plan_t *p, int64_t doubles) {
  if (doubles <= p->buf_cap) return MXN_OK;
  double *b = mxn__realloc(p->buf, (size_t)doubles * sizeof *b);
  if (!b) return MXN_ERR_NOMEM;
  p->buf = b;
  p->buf_cap = doubles;
  return MXN_OK;
}

/* The strided runs of a segment (time steps, and coordinates and
 * attributes of a halo layer): its runs, with 3 or more consecutive single
 * entries at one stride joined into a strided run. */
int mxn__plan_step_runs(mxn__plan_t *plan, segment_t *sg) {
  if (sg->vruns || sg->nruns == 0) return MXN_OK;
  sg->vruns = mxn__plan_alloc(plan, (size_t)sg->nruns * sizeof *sg->vruns);
  if (!sg->vruns) return MXN_ERR_NOMEM;
  int64_t m = 0;
  for (int64_t r = 0; r < sg->nruns;) {
    run_t a = sg->runs[r];
    a.stride = 1;
    int64_t q = r + 1;
    if (a.n == 1 && q < sg->nruns && sg->runs[q].n == 1) {
      int64_t d = sg->runs[q].start - a.start;
      while (q < sg->nruns && sg->runs[q].n == 1 && sg->runs[q].start - sg->runs[q - 1].start == d)
        q++;
      if (q - r >= 3 && d > 1) {
        a.n = q - r;
        a.count = (a.n - 1) * d + 1;
        a.stride = d;
      } else {
        q = r + 1;
      }
    }
    sg->vruns[m++] = a;
    r = q;
  }
  sg->nvruns = m;
  return MXN_OK;
}
