/* midread: a member file of a loaded dataset breaks between the load and a
 * later time step (truncated, or deleted), and the next step is read.
 *
 * usage: mpiexec -n N midread DATASET truncate|delete VICTIM
 *
 * Every rank loads DATASET (an mxn_gen set: nodal variable node_gid_time =
 * gid + k/16 at step k) and reads step 1; rank 0 then truncates VICTIM to
 * half its size or deletes it; every rank reads step 2 and checks every
 * nodal value of its piece against the generator's formula.
 * Exit codes (the same on every rank): 0 step 2 read and correct, 1 step 2
 * refused with an error (rank 0 prints "midread: error: MESSAGE"), 3 step 2
 * "read" but some value is wrong (silent corruption), 2 bad usage or the
 * initial load failed.
 */
#include "mxn/mxn.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4 || (strcmp(argv[2], "truncate") && strcmp(argv[2], "delete"))) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n N midread DATASET truncate|delete VICTIM\n");
    MPI_Finalize();
    return 2;
  }
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  mxn_error_t err;
  mxn_error_clear(&err);
  mxn_load_t *ld = NULL;
  if (mxn_load_open(MPI_COMM_WORLD, argv[1], &o, &ld, &err) != MXN_OK ||
      mxn_load_read_step(ld, 0, &err) != MXN_OK) {
    if (rank == 0) fprintf(stderr, "midread: the initial load failed: %s\n", err.msg);
    mxn_load_close(&ld);
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (!strcmp(argv[2], "delete")) {
      unlink(argv[3]);
    } else {
      struct stat st;
      if (stat(argv[3], &st) == 0) truncate(argv[3], st.st_size / 2);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (mxn_load_read_step(ld, 1, &err) != MXN_OK) {
    if (rank == 0) fprintf(stderr, "midread: error: %s\n", err.msg);
    rc = 1;
  } else {
    const mxn_structure_t *s = mxn_load_structure(ld);
    const mxn_piece_t *p = mxn_load_piece(ld);
    int v = -1, bad = 0;
    for (int k = 0; k < s->num_node_vars; k++)
      if (!strcmp(s->node_var_names[k], "node_gid_time")) v = k;
    if (v < 0 || p->step != 1) bad = 1;
    for (int64_t i = 0; !bad && i < p->num_nodes; i++)
      if (p->node_vars[v][i] != (double)p->node_ids[i] + 1.0 / 16) {
        fprintf(stderr, "midread: rank %d: node %lld has %.17g at step 2, expected %.17g\n", rank,
                (long long)p->node_ids[i], p->node_vars[v][i], (double)p->node_ids[i] + 1.0 / 16);
        bad = 1;
      }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rc = anybad ? 3 : 0;
  }
  mxn_load_close(&ld);
  MPI_Finalize();
  return rc;
}
