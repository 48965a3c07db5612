/* Exodus II's netCDF names: the dimension, variable and attribute names of
 * exodusII_int.h, the one place the core spells them (private to the core).
 * The core reads members by these names (io/member.c, netCDF-3 through
 * netCDF, netCDF-4 through HDF5) rather than through the Exodus API, so
 * the summary (structure/summary.c), the checks, the read (read/) and the
 * id maps (structure/domain.c) all take them from here. A name holding
 * "%d" is numbered, as Exodus numbers them, by a block's, set's, map's or
 * variable's 1-based position in the member (mxn__name_d, mxn__m_rows). */
#ifndef MXN_IO_EXO_NAMES_H
#define MXN_IO_EXO_NAMES_H

#include "internal.h"

/* The header's global attributes and scalar-like names. */
#define MXN__EX_TITLE "title"
#define MXN__EX_VERSION "version"
#define MXN__EX_API_VERSION "api_version"
#define MXN__EX_FILE_SIZE "file_size"
#define MXN__EX_WORD_SIZE "floating_point_word_size"
#define MXN__EX_MAX_NAME_LENGTH "maximum_name_length"
#define MXN__EX_INT64_STATUS "int64_status"
/* A block variable's attribute naming its element type. */
#define MXN__EX_ELEM_TYPE "elem_type"
/* Assemblies (Exodus 8): a variable per assembly, this attribute its type. */
#define MXN__EX_ASSEMBLY_VAR "assembly_entity"
#define MXN__EX_ENTITY_TYPE1 "entity_type1"
#define MXN__EX_ENTITY_TYPE2 "entity_type2"

/* Dimensions and variables of the nodes, the time steps, the records and
 * Nemesis's counts. */
#define MXN__EX_NUM_DIM "num_dim"
#define MXN__EX_NUM_NODES "num_nodes"
#define MXN__EX_COORD "coord"      /* older files: [num_dim, num_nodes] */
#define MXN__EX_COOR_NAMES "coor_names"
#define MXN__EX_TIME_STEP "time_step"
#define MXN__EX_TIME_WHOLE "time_whole"
#define MXN__EX_VALS_NOD_VAR "vals_nod_var"      /* older files: all nodal variables */
#define MXN__EX_VALS_NOD_VAR_D "vals_nod_var%d"  /* one nodal variable */
#define MXN__EX_VALS_NOD_VAR1 "vals_nod_var1"
#define MXN__EX_VALS_GLO_VAR "vals_glo_var"
#define MXN__EX_NUM_QA "num_qa_rec"
#define MXN__EX_QA "qa_records"
#define MXN__EX_NUM_INFO "num_info"
#define MXN__EX_INFO "info_records"
#define MXN__EX_NEM_FTYPE "nem_ftype"
#define MXN__EX_NEM_NODES_GLOBAL "num_nodes_global"
#define MXN__EX_NEM_ELEMS_GLOBAL "num_elems_global"
#define MXN__EX_NEM_EL_BLK_GLOBAL "num_el_blk_global"
#define MXN__EX_NEM_PROCESSORS "num_processors"
#define MXN__EX_NEM_PROCS_FILE "num_procs_file"
#define MXN__EX_NEM_COMM_NIDS "n_comm_nids"

/* A member's coordinate variables, one per dimension (older files: one
 * [num_dim, num_nodes] variable MXN__EX_COORD). */
static const char *const mxn__coord_var[3] = {"coordx", "coordy", "coordz"};

/* Exodus's names for one block kind (element, edge, face): the count,
 * id, status and name variables, and per block (numbered by position)
 * its entry, node, edge, face and attribute counts, its connectivity
 * variables (nodes; element-to-edge, element-to-face) and attribute
 * names. */
typedef struct {
  const char *ids, *stat, *names;
  const char *entries, *nodes, *edges, *faces, *attrs;
  const char *conn, *econn, *fconn, *attr_names;
} mxn__ex_blk_names_t;
static const mxn__ex_blk_names_t mxn__ex_blk[MXN__NBK] = {
    {"eb_prop1", "eb_status", "eb_names", "num_el_in_blk%d", "num_nod_per_el%d",
     "num_edg_per_el%d", "num_fac_per_el%d", "num_att_in_blk%d", "connect%d", "edgconn%d",
     "facconn%d", "attrib_name%d"},
    {"ed_prop1", "ed_status", "ed_names", "num_ed_in_blk%d", "num_nod_per_ed%d", NULL, NULL,
     "num_att_in_eblk%d", "ebconn%d", NULL, NULL, "eattrib_name%d"},
    {"fa_prop1", "fa_status", "fa_names", "num_fa_in_blk%d", "num_nod_per_fa%d", NULL, NULL,
     "num_att_in_fblk%d", "fbconn%d", NULL, NULL, "fattrib_name%d"},
};

/* More of a block kind's numbered variables: its attributes, the
 * per-entry node (nsided) or face (nfaced) counts of a poly block, and
 * element var %d's values on block %d (mxn__ex_var's vals, by family). */
static const char *const mxn__ex_blk_attr[MXN__NBK] = {"attrib%d", "eattrb%d", "fattrb%d"};
static const char *const mxn__ex_blk_epecnt[MXN__NBK] = {"ebepecnt%d", "ebepecnt%d",
                                                         "fbepecnt%d"};

/* Exodus's names for one set kind: the id, status and name variables,
 * and per set (numbered by position) its entry count and distribution
 * factor count dimensions (node sets: a dist_fact_ns variable means one
 * factor per node). */
typedef struct {
  const char *ids, *stat, *names, *entries, *df;
} mxn__ex_set_names_t;
static const mxn__ex_set_names_t mxn__ex_set[MXN__NSK] = {
    {"ns_prop1", "ns_status", "ns_names", "num_nod_ns%d", "dist_fact_ns%d"},
    {"ss_prop1", "ss_status", "ss_names", "num_side_ss%d", "num_df_ss%d"},
    {"es_prop1", "es_status", "es_names", "num_edge_es%d", "num_df_es%d"},
    {"fs_prop1", "fs_status", "fs_names", "num_face_fs%d", "num_df_fs%d"},
    {"els_prop1", "els_status", "els_names", "num_ele_els%d", "num_df_els%d"},
};

/* A set kind's numbered entry variables: its entries, the second array of
 * a side (sides), edge and face set (orientations), and its distribution
 * factors. */
static const char *const mxn__ex_set_entries[MXN__NSK] = {"node_ns%d", "elem_ss%d", "edge_es%d",
                                                          "face_fs%d", "elem_els%d"};
static const char *const mxn__ex_set_extra[MXN__NSK] = {NULL, "side_ss%d", "ornt_es%d",
                                                        "ornt_fs%d", NULL};
static const char *const mxn__ex_set_df[MXN__NSK] = {"dist_fact_ns%d", "dist_fact_ss%d",
                                                     "dist_fact_es%d", "dist_fact_fs%d",
                                                     "dist_fact_els%d"};

/* Exodus's names for each variable family, in the order a summary stores
 * them (nodal, element, global, edge, face, then the set kinds): the
 * count dimension, the names, the truth table and (as printf, variable
 * then object position) the values of one variable on one object, whose
 * presence makes the truth table where a member stores none. */
typedef struct {
  const char *count, *names, *tab, *vals;
} mxn__ex_var_names_t;
static const mxn__ex_var_names_t mxn__ex_var[MXN__NV] = {
    {"num_nod_var", "name_nod_var", NULL, NULL},
    {"num_elem_var", "name_elem_var", "elem_var_tab", "vals_elem_var%deb%d"},
    {"num_glo_var", "name_glo_var", NULL, NULL},
    {"num_edge_var", "name_edge_var", "edge_var_tab", "vals_edge_var%deb%d"},
    {"num_face_var", "name_face_var", "face_var_tab", "vals_face_var%dfb%d"},
    {"num_nset_var", "name_nset_var", "nset_var_tab", "vals_nset_var%dns%d"},
    {"num_sset_var", "name_sset_var", "sset_var_tab", "vals_sset_var%dss%d"},
    {"num_eset_var", "name_eset_var", "eset_var_tab", "vals_eset_var%des%d"},
    {"num_fset_var", "name_fset_var", "fset_var_tab", "vals_fset_var%dfs%d"},
    {"num_elset_var", "name_elset_var", "elset_var_tab", "vals_elset_var%des%d"},
};

/* Numbered maps and id maps by entity kind (MXN__ELEM ... MXN__NODE): the
 * maps' ids and names, each numbered map's values, and the id map. */
static const char *const mxn__ex_map_ids[MXN__NEK] = {"em_prop1", "edm_prop1", "fam_prop1",
                                                      "nm_prop1"};
static const char *const mxn__ex_map_names[MXN__NEK] = {"emap_names", "edmap_names",
                                                        "famap_names", "nmap_names"};
static const char *const mxn__ex_map[MXN__NEK] = {"elem_map%d", "edge_map%d", "face_map%d",
                                                  "node_map%d"};
static const char *const mxn__ex_num_map[MXN__NEK] = {"elem_num_map", "edge_num_map",
                                                      "face_num_map", "node_num_map"};

/* The header's counts, as ex_get_init_ext gives them, in the order a
 * summary stores them. */
enum {
  H_DIM, H_NODES, H_ELEM, H_EDGE, H_FACE, H_ELBLK, H_EDBLK, H_FABLK, H_NSET, H_SSET, H_ESET,
  H_FSET, H_ELSET, H_ELMAP, H_EDMAP, H_FAMAP, H_NMAP, H_NUM
};
static const char *const mxn__ex_head_dim[H_NUM] = {
    "num_dim",       "num_nodes",     "num_elem",      "num_edge",      "num_face",
    "num_el_blk",    "num_ed_blk",    "num_fa_blk",    "num_node_sets", "num_side_sets",
    "num_edge_sets", "num_face_sets", "num_elem_sets", "num_elem_maps", "num_edge_maps",
    "num_face_maps", "num_node_maps"};

/* Exodus reads some variables whole (nc_get_var: ids, times, truth tables,
 * id and numbered maps, set entries and distribution factors) into arrays
 * the caller sizes by a dimension. A damaged header that gives such a
 * variable another shape made netCDF write past mxn's arrays (found by
 * fuzz_dataset). So each of them must hold exactly what its dimensions say;
 * '#' stands for the number the variable's name ends with. */
typedef struct {
  const char *var;   /* name, or prefix of numbered names */
  int numbered;      /* name = var + decimal number */
  const char *dim[2];/* expected dimensions (product); none: a scalar */
} mxn__ex_shape_rule_t;

static const mxn__ex_shape_rule_t mxn__ex_shape_rules[] = {
    {"eb_prop", 1, {"num_el_blk"}},          {"ed_prop", 1, {"num_ed_blk"}},
    {"fa_prop", 1, {"num_fa_blk"}},          {"ns_prop", 1, {"num_node_sets"}},
    {"ss_prop", 1, {"num_side_sets"}},       {"es_prop", 1, {"num_edge_sets"}},
    {"fs_prop", 1, {"num_face_sets"}},       {"els_prop", 1, {"num_elem_sets"}},
    {"em_prop", 1, {"num_elem_maps"}},       {"nm_prop", 1, {"num_node_maps"}},
    {"edm_prop", 1, {"num_edge_maps"}},      {"fam_prop", 1, {"num_face_maps"}},
    {"time_whole", 0, {"time_step"}},
    {"elem_var_tab", 0, {"num_el_blk", "num_elem_var"}},
    {"edge_var_tab", 0, {"num_ed_blk", "num_edge_var"}},
    {"face_var_tab", 0, {"num_fa_blk", "num_face_var"}},
    {"nset_var_tab", 0, {"num_node_sets", "num_nset_var"}},
    {"sset_var_tab", 0, {"num_side_sets", "num_sset_var"}},
    {"eset_var_tab", 0, {"num_edge_sets", "num_eset_var"}},
    {"fset_var_tab", 0, {"num_face_sets", "num_fset_var"}},
    {"elset_var_tab", 0, {"num_elem_sets", "num_elset_var"}},
    {"node_num_map", 0, {"num_nodes"}},      {"elem_num_map", 0, {"num_elem"}},
    {"edge_num_map", 0, {"num_edge"}},       {"face_num_map", 0, {"num_face"}},
    {"node_map", 1, {"num_nodes"}},          {"elem_map", 1, {"num_elem"}},
    {"edge_map", 1, {"num_edge"}},           {"face_map", 1, {"num_face"}},
    {"node_ns", 1, {"num_nod_ns#"}},         {"dist_fact_ns", 1, {"num_nod_ns#"}},
    {"elem_ss", 1, {"num_side_ss#"}},        {"side_ss", 1, {"num_side_ss#"}},
    {"dist_fact_ss", 1, {"num_df_ss#"}},     {"edge_es", 1, {"num_edge_es#"}},
    {"ornt_es", 1, {"num_edge_es#"}},        {"dist_fact_es", 1, {"num_df_es#"}},
    {"face_fs", 1, {"num_face_fs#"}},        {"ornt_fs", 1, {"num_face_fs#"}},
    {"dist_fact_fs", 1, {"num_df_fs#"}},     {"elem_els", 1, {"num_ele_els#"}},
    {"dist_fact_els", 1, {"num_df_els#"}},   {"nem_ftype", 0, {NULL}},
    {"coordx", 0, {"num_nodes"}},            {"coordy", 0, {"num_nodes"}},
    {"coordz", 0, {"num_nodes"}},            {"coord", 0, {"num_dim", "num_nodes"}},
};

#endif /* MXN_IO_EXO_NAMES_H */
