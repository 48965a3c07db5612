/* Private: the Exodus queries of a member summary, answered from a
 * netCDF-3 member read directly (nc3exo.c). Each mirrors the Exodus 6.02
 * call named in its comment, with Exodus's variable and dimension names,
 * for the members mxn__x_summary_ok() accepts; 0 on success, -1 if the
 * member cannot say. */
#ifndef MXN_NC3EXO_H
#define MXN_NC3EXO_H

#include <exodusII.h>
#include <stdint.h>

#include "nc3check.h"

/* 1 when the answers below are Exodus's for this member: element blocks
 * without edge or face references, node and side sets, element and node
 * maps, nodal, global, element and set variables with their names and
 * truth tables, Nemesis counts; no edge or face blocks, edge, face or
 * element sets, no member Exodus would answer with an error. Else 0: the
 * summary asks Exodus. */
int mxn__x_summary_ok(const mxn__nc3_t *h);
/* Why not (a short phrase), or NULL when it is. */
const char *mxn__x_summary_why(const mxn__nc3_t *h);

int mxn__x_init(const mxn__nc3_t *h, ex_init_params *p);        /* ex_get_init_ext */
/* The word size of the file's reals (its attribute; 0 if absent): what
 * EX_INQ_DB_FLOAT_SIZE gives and ex_open checks. */
double mxn__x_word_size(const mxn__nc3_t *h);
/* What ex_open (6.02) refuses of a sound netCDF file: no "version"
 * attribute, or no word size of 4 or 8. 1 if it would open it. */
int mxn__x_exodus_opens(const mxn__nc3_t *h);
int64_t mxn__x_dim(const mxn__nc3_t *h, const char *name);      /* a count, 0 if absent */
int mxn__x_coord_names(const mxn__nc3_t *h, char **names);      /* ex_get_coord_names */
int mxn__x_ids_int64(const mxn__nc3_t *h);                      /* EX_IDS_INT64_DB */
int mxn__x_init_global(const mxn__nc3_t *h, int64_t *nng, int64_t *neg); /* 1 if Nemesis */
int mxn__x_init_info(const mxn__nc3_t *h, int *nproc);          /* 1 if Nemesis */
int mxn__x_ids(const mxn__nc3_t *h, ex_entity_type t, int64_t n, int64_t *ids); /* ex_get_ids */
int mxn__x_names(const mxn__nc3_t *h, ex_entity_type t, int n, char **names,
                 int is_var);                                   /* ex_get_(variable_)names */
int mxn__x_block_param(const mxn__nc3_t *h, ex_block *blk);     /* ex_get_block_param */
int mxn__x_attr_names(const mxn__nc3_t *h, int64_t id, int n, char **names); /* element blocks */
int mxn__x_set_param(const mxn__nc3_t *h, ex_entity_type t, int64_t id, int64_t *cnt,
                     int64_t *ndf);                             /* ex_get_set_param */
int mxn__x_var_param(const mxn__nc3_t *h, ex_entity_type t, int *n); /* ex_get_variable_param */
int mxn__x_truth(const mxn__nc3_t *h, ex_entity_type t, int nobj, int n, int *truth);
int mxn__x_times(const mxn__nc3_t *h, int nt, double *times);  /* ex_get_all_times */
int mxn__x_time(const mxn__nc3_t *h, int k, double *t);         /* ex_get_time, k from 0 */

#endif /* MXN_NC3EXO_H */
