/* The extraction plan of a piece: private to the core (read.c and
 * piece_merge.c). Field values of every step are read along it. */
#ifndef MXN_PLAN_H
#define MXN_PLAN_H

#include "structure/structure.h"

/* A coalesced range of file positions read with one call. */
typedef struct {
  int64_t start, count; /* file offset (0-based, within block or node list) */
  int64_t first, n;     /* entries [first, first+n) of the segment */
  int64_t stride;       /* step runs only: > 1 for n entries stride apart */
} run_t;

/* Everything one file contributes to one block (or to the nodes). */
typedef struct {
  int file;
  int block;            /* structure block of the segment's kind, -1 for nodes */
  int64_t n;
  int64_t *off;         /* ascending offsets in the file's block / node list */
  int64_t *dst;         /* index in the piece block / piece nodes */
  int64_t nruns;
  run_t *runs;
  /* The runs a time step is read with (built on first use): the runs, but
   * single entries at a constant stride (a halo layer cutting across a
   * member's rows) joined into one strided read. */
  int64_t nvruns;
  run_t *vruns;
  /* netCDF ids of the segment's variables in its member (step reads;
   * -2: not looked up yet), built on first use: the same at every step,
   * also after the member is closed and opened again. */
  int *varids;
} segment_t;

/* Where the kept entries of one piece set come from, sorted by (file,
 * position in that file's copy of the set): set variables are read per
 * member and scattered to dst. */
typedef struct {
  int64_t n;
  int *file;
  int64_t *pos, *dst;
} set_src_t;

/* Memory of a plan's segment arrays (off, dst, runs, vruns, varids):
 * blocks handed out in order and freed with the plan. Made one by one with
 * malloc, a thousand members' small arrays, which live as long as the
 * plan, landed among the members' id maps and kept the memory those free
 * at the end of the read in pieces: the ghost layer then took new pages
 * while the heap held enough free memory, scattered. */
typedef struct mxn__plan_mem mxn__plan_mem_t;

/* A node, edge or face a member's node, edge or face set lists: its
 * global id, the member and its kind (MXN__NODE, MXN__EDGE, MXN__FACE). */
typedef struct {
  mxn_gid_t id;
  int32_t file, kind;
} mxn__set_ent_t;

struct mxn__plan {
  mxn__plan_mem_t *mem;
  int nseg[MXN__NBK], nnode_seg;
  segment_t *seg[MXN__NBK];   /* per block kind, in file order */
  segment_t *node_seg;
  int nsets[MXN__NSK];
  set_src_t *set_src[MXN__NSK]; /* per structure set of each kind */
  double *buf;
  int64_t buf_cap;      /* doubles */
  double reserve;       /* mxn_extract_opts_t.reserve: spare capacity of entity arrays */
  /* Merged-gap budget (mxn_extract_opts_t.gap_share): bytes wanted by the
   * kinds planned so far, and bytes their merged gaps add. */
  double gap_want, gap_spent;
  /* Node-, edge- and face-set entries of the members read whose node,
   * edge or face the piece lacks (mxn__read_sets): another rank may hold
   * it, or none (of unselected blocks only, or of no element); the
   * parallel load settles which (load_sets.c) and frees the list. */
  mxn__set_ent_t *set_miss;
  int64_t nset_miss, set_miss_cap;
};

/* Entries to allocate for n entities of piece p: n plus the spare room a
 * later append (ghost layers) grows into without copying. */
#define MXN__CAP(p, n) ((n) + (int64_t)((double)(n) * (p)->plan->reserve))

typedef struct {
  int64_t off, dst;
} pair_t;

/* `bytes` of plan p's memory (16-byte aligned, not zeroed), freed with the
 * plan and only then; NULL when out of memory. */
void *mxn__plan_alloc(mxn__plan_t *p, size_t bytes);
/* Sort pairs by offset and coalesce them into runs of s (gap: entries up
 * to which two runs merge): mxn__segment_sort, then mxn__segment_runs.
 * The segment's arrays are plan p's memory. */
int mxn__segment_build(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n, int64_t gap);
/* Sort pairs by offset into s's off and dst (no runs yet). */
int mxn__segment_sort(mxn__plan_t *p, segment_t *s, pair_t *pairs, int64_t n);
/* Coalesce the sorted s into runs: gaps of up to `gap` entries merge. */
int mxn__segment_runs(mxn__plan_t *p, segment_t *s, int64_t gap);
/* The widest gap, at most `gap`, up to which the sorted segments can merge
 * their runs while the bytes read beyond the wanted entries stay within
 * `budget` (width[i]: bytes per entry of segs[i]); *spent: those bytes.
 * Gaps merge narrowest first, which saves the most reads per byte added.
 * One budget over every member, not one per member: a small member with a
 * rank's entries scattered in it may merge them when the others read
 * tight. */
int64_t mxn__gap_within(const segment_t *segs, int nseg, const double *width, int64_t gap,
                        double budget, double *spent);
/* Grow the plan's scratch buffer to hold `doubles` values. */
int mxn__plan_buf(mxn__plan_t *p, int64_t doubles);
void mxn__plan_free(mxn__plan_t *p);
/* Flag mark[p] (p < nmark, member-local 0-based element positions) for
 * every element member j's side sets and element sets name. Local. */
int mxn__member_set_elems(mxn_dataset_t *ds, int j, char *mark, int64_t nmark);
/* Every entry of every node, edge and face set of member j as global
 * node, edge and face ids, appended to *out (grown; *n entries, *cap
 * room) with file = j and their kind. Local. */
int mxn__member_set_ents(mxn_dataset_t *ds, int j, mxn__set_ent_t **out, int64_t *n,
                         int64_t *cap);
void mxn__piece_block_free(mxn_piece_block_t *pb, int nvars, int nmaps);
/* Where pc's plan reads its elements: for concatenated element index
 * bstart[block] + dst of each element segment, its member in file[] and,
 * if off is not NULL, its offset in that member's block in off[]; only for
 * the indices flagged in `only` (all if NULL). */
void mxn__plan_elem_sources(const mxn_piece_t *pc, const int64_t *bstart, const char *only,
                            int32_t *file, int64_t *off);
/* qsort order of segments by member file. */
int mxn__cmp_seg_file(const void *a, const void *b);

/* Append piece *b (same dataset, same extraction options, no element in
 * common) to a: a's entities keep their order, b's elements follow in each
 * block, b's nodes, edges and faces that a lacks follow a's; sets merge
 * without repeats; b's plan joins a's, so a later step reads both. Field
 * values of the appended entities are those b held. Frees *b on success.
 * Errors go to err. */
int mxn__piece_append(const mxn_structure_t *s, mxn_piece_t *a, mxn_piece_t **b, int64_t gap,
                      mxn_error_t *err);

/* A new piece holding the elements of src flagged in elem_take (one flag
 * per element, concatenated over the blocks) with the nodes, edges and
 * faces they refer to, their fields, sets restricted to them (none with
 * no_sets) and the plan
 * entries that read them: what a rank keeps of its piece when its part
 * changes, without reading anything. Relative order of src kept. Local. */
int mxn__piece_subset(const mxn_structure_t *s, const mxn_piece_t *src, const char *elem_take,
                      int64_t gap, int no_sets, mxn_piece_t **out, mxn_error_t *err);

/* Reorder the nodes: new position i holds what position perm[i] held;
 * connectivity, node sets and the plan follow. */
int mxn__piece_permute_nodes(mxn_piece_t *p, const mxn_structure_t *s, const int64_t *perm);

/* Elements of every block and the nodes in ascending global id, the
 * order mxn_extract() gives. */
int mxn__piece_sort(mxn_piece_t *p, const mxn_structure_t *s);

/* Reorder the elements of block `blk`: new position i holds what position
 * perm[i] held. The plan and side/element sets follow. */
int mxn__piece_permute_elems(mxn_piece_t *p, const mxn_structure_t *s, int blk,
                             const int64_t *perm);

/* A halo record: one element as its owner sends it to a rank that needs
 * it as a ghost (halo.c), with everything the piece holds of it but the
 * fields, so the receiver reads nothing:
 *   id, npe, block, original id, member read from (mxn_piece_block_t.member),
 *   npe node ids, npe node owners (as the element's owner knows them),
 *   npe * num_dim coordinates (node-major, the bits of doubles),
 *   npe * num_node_maps node map values (node-major),
 *   num_attr attributes of the block (the bits of doubles; 0 when the
 *   sender holds none), num_elem_maps element map values.
 * Length in int64 words: */
#define MXN__REC_HEAD 5
static inline int64_t mxn__halo_rec_len(const mxn_structure_t *s, int64_t block, int64_t npe) {
  int64_t na = block >= 0 && block < s->num_blocks ? s->blocks[block].num_attr : 0;
  return MXN__REC_HEAD + npe * (2 + s->num_dim + s->num_node_maps) + na + s->num_elem_maps;
}

/* A piece of the elements described by n halo records (above), built from
 * the records alone: nothing is read, the plan is empty (a step's fields
 * for these entities come from their owners, not from the files). No set
 * entries (every set is present, empty). MXN_ERR_UNSUPPORTED when
 * elements refer to edges or faces or are polygonal. Field arrays are
 * allocated (opts' variable selection), not filled. Local. */
int mxn__piece_from_records(mxn_dataset_t *ds, int64_t n, const int64_t *const *recs,
                            const mxn_extract_opts_t *opts, mxn_piece_t **out);

/* Rebuild an NFACED block's derived element -> node lists (conn,
 * conn_off) from its faces (face_conn, face_off) and the piece's face
 * blocks. Errors name the element. Local. */
int mxn__nfaced_nodes(mxn_dataset_t *ds, mxn_piece_t *piece, int b);

/* ---------- shared by the extraction's files (extract*.c, plan.c) ---------- */

/* Block of kind k holding file position `fpos` of member f (a member's
 * blocks are contiguous). */
static inline int mxn__block_of(const mxn__file_t *f, int k, int64_t fpos) {
  const mxn__span_t *run = mxn__span_at(&f->kb[k], fpos);
  return run ? run->b : -1;
}

/* File-local position (1-based) of structure block b of kind k in member
 * f, as Exodus numbers its variables; 0 if the member has none. */
static inline int mxn__file_block(const mxn__file_t *f, int k, int b) {
  const mxn__span_t *run = mxn__span_of(&f->kb[k], b);
  return run ? run->q + 1 : 0;
}

/* The gap kind k's segments (nodes: k = MXN__NODE) merge with, within
 * what is left of the plan's budget (mxn_extract_opts_t gap_share over the
 * wanted bytes of every kind so far); width[i]: bytes per entry of seg i
 * (plan.c). */
int64_t mxn__plan_gap(mxn__plan_t *plan, const mxn_extract_opts_t *opts, const segment_t *segs,
                      int nseg, const double *width);
/* The entities of block kind k the piece holds (read_blocks.c; see
 * there). */
int mxn__read_blocks(mxn_dataset_t *ds, mxn_piece_t *piece, int k, const mxn_idset_t *P,
                     const mxn_cover_t *cov, const mxn_extract_opts_t *opts,
                     char **mark[MXN__NEK], int64_t *p2local);
/* The piece's sets, and the set variables of one step (read_sets.c). */
int mxn__read_sets(mxn_dataset_t *ds, mxn_piece_t *piece, const char *cand,
                   int64_t **l2p[MXN__NEK], const mxn_idset_t *P, const int64_t *p2local);
int mxn__read_set_vars(mxn_dataset_t *ds, mxn_piece_t *piece, int step);

/* The strided runs of a segment (time steps, and coordinates and
 * attributes of a halo layer): its runs, with 3 or more consecutive single
 * entries at one stride joined into a strided run (plan.c). */
int mxn__plan_step_runs(mxn__plan_t *plan, segment_t *sg);
/* Where the value of entry e of a run is in plan->buf after a read of
 * the run (read_var_run, read_coords, attributes). */
static inline int64_t mxn__run_at(const segment_t *sg, const run_t *run, int64_t e) {
  return run->stride > 1 ? (sg->off[e] - run->start) / run->stride : sg->off[e] - run->start;
}

#endif /* MXN_PLAN_H */
