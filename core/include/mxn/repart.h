/**
 * \file repart.h
 * REPART: the parallel form of M -> N. Every rank of a communicator of N
 * ranks loads its balanced piece of an M-file dataset (load.h) and writes
 * it as member `outbase.N.rank` of a new spread set, with the Nemesis
 * load-balance metadata nem_spread would write (global counts, internal
 * and border node and element maps, node communication maps).
 *
 * Which of a rank's nodes are shared, and with whom, is found through the
 * distributed directory (directory.h): every rank publishes its node ids
 * and asks for them back, so no rank ever sees the whole mesh.
 */
#ifndef MXN_REPART_H
#define MXN_REPART_H

#include <mpi.h>

#include "mxn/forms.h"
#include "mxn/load.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Repartition the dataset at `in` (any member or base name) over the ranks
 * of `comm` and write `outbase.N.i` on rank i (i zero-padded to the width
 * of N, see mxn_member_name()), with every block, set, map, variable and
 * time step of the piece, and Nemesis metadata.
 *
 * All or nothing: each member is written under a temporary name and moved
 * into place only once every rank has written its member completely; if
 * any rank fails, every rank removes its member, so no partial set is left.
 * Members of an older set with the same base and N are replaced.
 *
 * \param [in]  comm     communicator (collective); its size is N
 * \param [in]  in       the dataset to read
 * \param [in]  outbase  base name of the output set
 * \param [in]  opts     load options (method, weights, tolerance, map
 *                       file, ghost_levels); NULL for mxn_load_opts_init()
 *                       defaults. With ghost_levels L > 0 each member also
 *                       holds its rank's L halo layers, marked by the
 *                       element variable vtkGhostType (1 on ghost copies, 0
 *                       on owned elements); Nemesis global counts count
 *                       each element once, and mxn_join() keeps one copy of
 *                       each element and drops vtkGhostType.
 * \param [out] rep      what was done, the same on every rank (may be NULL):
 *                       files_in M, files_out N, global node and element
 *                       counts, steps; I/O counters summed over ranks;
 *                       seconds the maximum over ranks; min/max elements
 *                       of a part
 * \param [out] err      detail on failure, identical on every rank; may be NULL
 * \return MXN_OK or the agreed error (the same on every rank): any status
 *         of mxn_load_open(), MXN_ERR_IO when a member cannot be written,
 *         MXN_ERR_NOMEM, MXN_ERR_MPI, MXN_ERR_ARG.
 */
int mxn_repart(MPI_Comm comm, const char *in, const char *outbase,
               const mxn_load_opts_t *opts, mxn_form_report_t *rep, mxn_error_t *err);

/** As mxn_repart(), writing the members in format `file` (NULL: netCDF-3
 *  as mxn_repart() does; a bad request is MXN_ERR_ARG on every rank). */
int mxn_repart_format(MPI_Comm comm, const char *in, const char *outbase,
                      const mxn_load_opts_t *opts, const mxn_file_format_t *file,
                      mxn_form_report_t *rep, mxn_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* MXN_REPART_H */
