/**
 * \file topology.h
 * Element sides of the Exodus II element types, for callers that turn a
 * side set entry (element, side) into the nodes of that face or edge (the
 * reader plugin builds its side set cells from this). The sides, their
 * nodes and their order are those the Exodus library lists; the core counts
 * side set distribution factors and finds neighbouring elements (dual
 * graph, halo) with the same tables.
 */
#ifndef MXN_TOPOLOGY_H
#define MXN_TOPOLOGY_H

#ifdef __cplusplus
extern "C" {
#endif

/** Most nodes on one side of a known element type (a HEX27, WEDGE18 or
 *  SHELL9 face). */
#define MXN_MAX_SIDE_NODES 9

/**
 * The nodes of side `side` of an element, as the Exodus library's
 * ex_get_side_set_node_list gives them; a side set carries one
 * distribution factor per node of each side. Local.
 *
 * Sides of 3D elements are faces, of 2D elements edges. TRI and TRISHELL
 * elements in a 3D mesh (num_dim 3) are triangular shells: sides 1 and 2
 * are the front and back faces, 3 to 5 the edges; in a 2D mesh their sides
 * are their 3 edges. SHELL elements have faces 1 and 2 and edges 3 to 6 in
 * any mesh; QUAD (and QUADSHELL, which Exodus reads as a QUAD) have their
 * 4 edges. Both sides of a BAR, BEAM, TRUSS or EDGE element are the whole
 * element in its own direction (Exodus 6; Exodus 8 gives a truss or bar
 * side its end node only); a SPHERE, CIRCLE or POINT element has one side,
 * its node.
 *
 * \param [in] type      Exodus element type, matched by its first three
 *                       letters case-insensitively, as the Exodus library
 *                       does ("HEX8", "hex", "TETRA10", "TRISHELL3", ...)
 * \param [in] npe       nodes per element; a type takes only the node
 *                       counts Exodus defines for it (HEX: 8, 20, 27;
 *                       TET: 4, 8, 10, 14, 15; WEDGE: 6, 15, 16, 18;
 *                       PYRAMID: 5, 13, 14; QUAD and SHELL: 4, 8, 9;
 *                       TRI and TRISHELL: 3, 4, 6, 7; bars: 2, 3;
 *                       SPHERE: 1)
 * \param [in] num_dim   spatial dimension of the mesh
 * \param [in] side      side number, 1-based
 * \param [out] nodes    the side's nodes as 0-based indices into the
 *                       element's connectivity: its corners, then for
 *                       higher-order elements the mid-edge nodes in the
 *                       order of the side's edges, then the face's centre
 *                       node where the element has one (HEX27, TET8,
 *                       TET14/15, WEDGE18, PYRAMID14, SHELL9, TRI4/7 faces)
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
