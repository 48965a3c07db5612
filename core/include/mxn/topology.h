/**
 * \file topology.h
 * Element sides of the Exodus II element types, for callers that turn a
 * side set entry (element, side) into the nodes of that face or edge (the
 * reader plugin builds its side set cells from this). The side and node
 * numbering is that of the Exodus II manual's element figures; the core's
 * own side tables (dual graph, halo) are the same tables.
 */
#ifndef MXN_TOPOLOGY_H
#define MXN_TOPOLOGY_H

#ifdef __cplusplus
extern "C" {
#endif

/** Most nodes on one side of a known element type (a HEX27 face). */
#define MXN_MAX_SIDE_NODES 9

/**
 * The nodes of side `side` of an element. Local.
 *
 * Sides of 3D elements are faces, of 2D elements edges. In a 3D mesh
 * (num_dim 3) TRI and QUAD elements are shells, as are SHELL, QUADSHELL and
 * TRISHELL elements in any mesh: sides 1 and 2 are the front and back
 * faces, then come the edges. Side 1 of a BAR, BEAM, TRUSS or EDGE element
 * is the element in its own direction, side 2 reversed; a SPHERE, CIRCLE
 * or POINT element has one side, its node.
 *
 * \param [in] type      Exodus element type, matched by its leading letters
 *                       case-insensitively, as the Exodus library does
 *                       ("HEX8", "hex", "TETRA10", "SHELL4", ...)
 * \param [in] npe       nodes per element; a type takes only the node
 *                       counts of its linear and higher-order forms
 *                       (HEX: 8, 20, 27; TET: 4, 10; WEDGE: 6, 15;
 *                       PYRAMID: 5, 13; QUAD and quad shells: 4, 8, 9;
 *                       TRI and tri shells: 3, 6; bars: 2, 3; SPHERE: 1)
 * \param [in] num_dim   spatial dimension of the mesh
 * \param [in] side      side number, 1-based
 * \param [out] nodes    the side's nodes as 0-based indices into the
 *                       element's connectivity: its corners, then for
 *                       higher-order elements the mid-edge nodes in the
 *                       order of the side's edges, then the face's centre
 *                       node where the element has one (HEX27, QUAD9 shell)
 * \param [out] num_corners how many of `nodes` are corners (may be NULL)
 * \return the number of nodes written (at most MXN_MAX_SIDE_NODES), or -1
 *   for a type, node count or side this table does not know.
 */
int mxn_side_nodes(const char *type, int npe, int num_dim, int side,
                   int nodes[MXN_MAX_SIDE_NODES], int *num_corners);

#ifdef __cplusplus
}
#endif

#endif /* MXN_TOPOLOGY_H */
