/* One parallel load, measured: run under mpiexec -n N.
 *   load_bench DATASET [method] [steps] [ghost_levels] [loads]
 * Opens DATASET as the reader plugin does (mxn_dataset_open_collective,
 * then mxn_load_open_dataset; the method, default files), reads
 * `steps` time steps (default all), closes it, `loads` times (default 1:
 * later loads reuse the memory the first touched, as a long-running
 * pvserver does), and prints one line per rank for the last load:
 * wall time to the piece, time per step, owned elements, imbalance, cover
 * size against ceil(M/N), files opened, bytes read / bytes needed, bytes
 * read only to partition, peak RSS, and the CPU seconds (user + system)
 * the process spent to the piece (and the user part of it: the page
 * clearing of memory a fresh VM has not backed yet is system time, and
 * varies from run to run), and of that CPU the collective open's
 * (`open-cpu`: the part that grows with the number of members). Exit 1
 * on a load error. */
#include <mxn/mxn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* User and system CPU seconds of this process so far (user alone in
 * *user). */
static double cpu_seconds(double *user) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  *user = (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec;
  return *user + (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: load_bench DATASET [method] [steps]\n");
    MPI_Finalize();
    return 2;
  }
  mxn_load_opts_t o;
  mxn_load_opts_init(&o);
  if (argc > 2 && mxn_part_method_parse(argv[2], &o.method) != MXN_OK) {
    if (rank == 0) fprintf(stderr, "load_bench: unknown method %s\n", argv[2]);
    MPI_Finalize();
    return 2;
  }
  if (argc > 4) o.ghost_levels = atoi(argv[4]);
  int loads = argc > 5 ? atoi(argv[5]) : 1;
  if (loads < 1) loads = 1;
  mxn_error_t err;
  mxn_error_clear(&err);
  for (int pass = 1; pass <= loads; pass++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double u0, u1;
    double c0 = cpu_seconds(&u0);
    double t0 = MPI_Wtime();
    mxn_load_t *ld = NULL;
    mxn_dataset_t *ds = NULL;
    double c_members = 0, t_members = 0;
    int st = mxn_dataset_create(&ds);
    if (st == MXN_OK) {
      st = mxn_dataset_open_collective(MPI_COMM_WORLD, ds, argv[1], &err);
      t_members = MPI_Wtime() - t0;
      c_members = cpu_seconds(&u1) - c0;
    }
    if (st == MXN_OK) st = mxn_load_open_dataset(MPI_COMM_WORLD, &ds, &o, &ld, &err);
    if (st != MXN_OK) {
      if (rank == 0) fprintf(stderr, "load_bench: %s\n", err.msg[0] ? err.msg : mxn_strerror(st));
      mxn_dataset_destroy(&ds);
      MPI_Finalize();
      return 1;
    }
    double t_open = MPI_Wtime() - t0;
    double c_open = cpu_seconds(&u1) - c0, u_open = u1 - u0;
    const mxn_structure_t *s = mxn_load_structure(ld);
    int steps = argc > 3 ? atoi(argv[3]) : s->num_times;
    if (steps > s->num_times) steps = s->num_times;
    double t1 = MPI_Wtime();
    for (int t = 0; t < steps; t++)
      if (mxn_load_read_step(ld, t, &err) != MXN_OK) {
        if (rank == 0) fprintf(stderr, "load_bench: %s\n", err.msg);
        MPI_Finalize();
        return 1;
      }
    double t_step = steps ? (MPI_Wtime() - t1) / steps : 0;
    if (pass < loads) {
      mxn_load_close(&ld);
      continue;
    }
    mxn_load_stats_t x = mxn_load_stats(ld);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int M = s->num_files, ideal = (M + size - 1) / size;
    char line[768];
    snprintf(line, sizeof line,
             "rank %d/%d M=%d method=%s: first %.3f s, per step %.3f s, owned %lld, "
             "imbalance %.4f, cover %d (ceil(M/N)=%d), files opened %lld, read/needed %.3f "
             "(%lld/%lld B), partition reads %lld B, node check %lld B %.3f s, ghosts %lld (L=%d, %.3f s), "
             "phases open %.3f partition %.3f plan %.3f read %.3f s, peak RSS %ld MB, "
             "cpu %.3f s (user %.3f s), open-cpu %.3f s",
             rank, size, M, mxn_part_method_name(o.method), t_open, t_step,
             (long long)x.owned_elements, x.imbalance, x.cover_files, ideal,
             (long long)x.files_opened, x.bytes_needed ? (double)x.bytes_read / x.bytes_needed : 0.0,
             (long long)x.bytes_read, (long long)x.bytes_needed, (long long)x.partition_bytes_read,
             (long long)x.check_bytes_read, x.seconds_check,
             (long long)x.ghost_elements, o.ghost_levels, x.seconds_ghost, t_members + x.seconds_open,
             x.seconds_partition, x.seconds_plan, x.seconds_read, ru.ru_maxrss / 1024, c_open, u_open,
             c_members);
    /* Print in rank order. */
    for (int r = 0; r < size; r++) {
      if (r == rank) {
        printf("%s\n", line);
        fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    mxn_load_close(&ld);
  }
  MPI_Finalize();
  return 0;
}
