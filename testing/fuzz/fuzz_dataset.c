/* libFuzzer harness: dataset structure handling on mutated Exodus files.
 *
 * Input: the bytes of one Exodus II file (seeds: small meshes made by
 * mxn_gen and members written by `mxn split`; see run.sh). They are written
 * to a scratch file (in $MXN_FUZZ_TMP, else /dev/shm or /tmp) named
 * fuzz_<pid>.e, which mxn_dataset_open() takes as a plain file (M = 1).
 *
 * Checked: open either fails with a status that mxn_dataset_errcode()
 * repeats and a message that names the file, or gives a structure whose
 * every array can be walked (names NUL-terminated, counts >= 0); then the
 * file domain is read: on success its maps, sorted sets and positions
 * agree and the per-block counts fit; then the whole mesh is extracted and
 * the first time step read; the handle's destruction closes every file it
 * opened. Any status is acceptable, a crash, leak or sanitizer report is
 * not. */
#include "mxn/mxn.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(c)            \
  do {                      \
    if (!(c)) abort();      \
  } while (0)

static char path[512];

/* Open file descriptors: a member left open (no ex_close) shows here even
 * where its memory belongs to netCDF/HDF5. */
static int count_fds(void) {
  int n = 0;
  for (int fd = 0; fd < 1024; fd++) n += fcntl(fd, F_GETFD) != -1;
  return n;
}

static void pick_path(void) {
  const char *dir = getenv("MXN_FUZZ_TMP");
  struct stat st;
  if (!dir || !*dir) dir = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/fuzz_%ld.e", dir, (long)getpid());
}

/* A fixed-size name must hold its terminator. */
static void name_ok(const char *s, size_t cap) { CHECK(memchr(s, 0, cap) != NULL); }

static void blocks_ok(int n, const mxn_block_info_t *b) {
  CHECK(n >= 0 && (n == 0 || b));
  for (int k = 0; k < n; k++) {
    name_ok(b[k].name, sizeof b[k].name);
    name_ok(b[k].type, sizeof b[k].type);
    CHECK(b[k].nodes_per_elem >= 0 && b[k].num_attr >= 0 && b[k].num_elements >= 0);
    for (int a = 0; a < b[k].num_attr; a++) name_ok(b[k].attr_names[a], MXN_NAME_LEN);
  }
}

static void sets_ok(int n, const mxn_set_info_t *s) {
  CHECK(n >= 0 && (n == 0 || s));
  for (int k = 0; k < n; k++) {
    name_ok(s[k].name, sizeof s[k].name);
    CHECK(s[k].num_entries >= 0);
  }
}

static void names_ok(int n, char (*names)[MXN_NAME_LEN]) {
  CHECK(n >= 0);
  for (int k = 0; k < n; k++) name_ok(names[k], MXN_NAME_LEN);
}

static void maps_ok(int n, const mxn_map_info_t *m) {
  CHECK(n >= 0);
  for (int k = 0; k < n; k++) name_ok(m[k].name, sizeof m[k].name);
}

static void walk(const mxn_structure_t *s) {
  name_ok(s->title, sizeof s->title);
  CHECK(s->num_files == 1);
  CHECK(s->num_dim >= 0 && s->num_dim <= 3);
  blocks_ok(s->num_blocks, s->blocks);
  blocks_ok(s->num_edge_blocks, s->edge_blocks);
  blocks_ok(s->num_face_blocks, s->face_blocks);
  sets_ok(s->num_node_sets, s->node_sets);
  sets_ok(s->num_side_sets, s->side_sets);
  sets_ok(s->num_edge_sets, s->edge_sets);
  sets_ok(s->num_face_sets, s->face_sets);
  sets_ok(s->num_elem_sets, s->elem_sets);
  names_ok(s->num_node_vars, s->node_var_names);
  names_ok(s->num_elem_vars, s->elem_var_names);
  names_ok(s->num_global_vars, s->global_var_names);
  for (int k = 0; k < s->num_blocks * s->num_elem_vars; k++)
    CHECK(s->elem_var_truth[k] == 0 || s->elem_var_truth[k] == 1);
  const mxn_var_list_t *vl[] = {&s->edge_vars,     &s->face_vars,     &s->node_set_vars,
                                &s->side_set_vars, &s->edge_set_vars, &s->face_set_vars,
                                &s->elem_set_vars};
  for (size_t k = 0; k < sizeof vl / sizeof vl[0]; k++) names_ok(vl[k]->num, vl[k]->names);
  maps_ok(s->num_node_maps, s->node_maps);
  maps_ok(s->num_edge_maps, s->edge_maps);
  maps_ok(s->num_face_maps, s->face_maps);
  maps_ok(s->num_elem_maps, s->elem_maps);
  CHECK(s->num_times >= 0);
  volatile double t = 0;
  for (int k = 0; k < s->num_times; k++) t += s->times[k];
  (void)t;
  for (int d = 0; d < 3; d++) name_ok(s->coord_names[d], MXN_NAME_LEN);
}

/* The sorted set and its positions describe the map in file order. */
static void domain_kind_ok(int64_t n, const mxn_gid_t *map, const mxn_idset_t *set,
                           const int64_t *pos) {
  CHECK(n >= 0 && set->n == n);
  CHECK(mxn_ids_sorted_unique(set->ids, set->n));
  for (int64_t k = 0; k < n; k++) {
    CHECK(pos[k] >= 0 && pos[k] < n);
    CHECK(map[pos[k]] == set->ids[k]);
  }
}

static void domain_ok(const mxn_dataset_t *ds, const mxn_structure_t *s,
                      const mxn_file_domain_t *d) {
  domain_kind_ok(d->num_nodes, d->node_map, &d->nodes, d->node_pos);
  domain_kind_ok(d->num_elements, d->elem_map, &d->elems, d->elem_pos);
  domain_kind_ok(d->num_edges, d->edge_map, &d->edges, d->edge_pos);
  domain_kind_ok(d->num_faces, d->face_map, &d->faces, d->face_pos);
  for (int b = 0; b < s->num_blocks; b++) {
    int64_t start, count;
    CHECK(mxn_dataset_file_block(ds, 0, b, &start, &count) >= 0);
    CHECK(count >= 0 && start >= 0);
    CHECK(start + count <= d->num_elements);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) pick_path();
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  size_t w = fwrite(data, 1, size, f);
  fclose(f);
  if (w != size) return 0;

  int fds = count_fds();
  mxn_dataset_t *ds = NULL;
  CHECK(mxn_dataset_create(&ds) == MXN_OK);
  int rc = mxn_dataset_open(ds, path);
  if (rc != MXN_OK) {
    CHECK(rc < 0 && mxn_dataset_errcode(ds) == rc);
    /* The message names the file it is about (out of memory may have none). */
    if (rc != MXN_ERR_NOMEM) CHECK(strstr(mxn_dataset_errmsg(ds), path) != NULL);
  } else {
    const mxn_structure_t *s = mxn_dataset_structure(ds);
    walk(s);
    CHECK(mxn_dataset_file_path(ds, 0) != NULL);
    const mxn_file_domain_t *dom = NULL;
    rc = mxn_dataset_file_domain(ds, 0, &dom);
    if (rc == MXN_OK) {
      domain_ok(ds, s, dom);
      mxn_extract_opts_t eo;
      memset(&eo, 0, sizeof eo);
      mxn_piece_t *pc = NULL;
      rc = mxn_extract(ds, NULL, &eo, &pc);
      if (rc == MXN_OK && s->num_times > 0) rc = mxn_piece_read_step(ds, pc, 0);
      mxn_piece_destroy(&pc);
      CHECK(pc == NULL);
    }
    if (rc != MXN_OK) CHECK(mxn_dataset_errmsg(ds)[0] != 0);
  }
  mxn_dataset_destroy(&ds);
  CHECK(ds == NULL);
  CHECK(count_fds() == fds);
  return 0;
}
