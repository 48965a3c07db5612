#!/usr/bin/env python3
"""CDL of Exodus files laid out as meshio writes them (issue 58: files from
writers other than ours and SEACAS). ncgen makes the files from it at test
time; no binary file is kept in the tree.

usage: meshio_cdl.py KIND > FILE.cdl     (then: ncgen -k nc4 -o FILE.e FILE.cdl)

What meshio's Exodus writer (meshio 5, src/meshio/exodus/_exodus.py) puts in
a file, read from its source: it writes netCDF directly (netCDF4-python, so a
netCDF-4/HDF5 file), not through the Exodus library, and so

  * global attributes title, version and api_version (float 5.1) and
    floating_point_word_size (a Python int: a 64-bit integer attribute); no
    file_size, maximum_name_length or int64_status;
  * dimensions num_nodes, num_dim, num_elem, num_el_blk, num_node_sets (0
    when there are none: a zero-length fixed dimension, which only netCDF-4
    allows), len_string 33, len_line 81, four, time_step (unlimited);
  * coordinates in one variable coord(num_dim, num_nodes) with coor_names;
    num_dim 2 for a planar mesh;
  * eb_prop1 = 0, 1, ... (block ids from 0: "ParaView needs eb_prop1, the
    values don't seem to matter"); no eb_status, no eb_names;
  * connect<k>(num_el_in_blk<k>, num_nod_per_el<k>) of the connectivity's
    numpy type (64-bit integers) with elem_type spelled from meshio's cell
    type ("HEX8", "WEDGE", "QUAD4", "TRI3", "TETRA", ...), no attributes;
  * no node_num_map, elem_num_map or numbered maps, no QA or information
    records, no element variables at all;
  * node data as vals_nod_var<k+1>(time_step, dim_nod_var<k>0) with a
    dimension of its own per array (not num_nodes), one step only, and
    name_nod_var; time_whole is a float variable meshio never writes to, so
    the one step's time reads as the fill value (9.96921e+36);
  * node sets as ns_prop1 = 0, 1, ..., ns_names, node_ns<k> (64-bit), no
    ns_status and no distribution factors.

KIND plain: the case meshio users make most: a 3D mesh of two blocks of
different types (2 HEX8, 2 WEDGE, ids 0 and 1) with the layout above, but
the node and element data of several steps spelled the Exodus way
(vals_nod_var1(time_step, num_nodes), vals_elem_var1eb<k>, time_whole of 3
doubles), as meshio-style Python writers that do write cell data and time
(and meshio's reader reads back) lay them out.
KIND quirks: exactly what meshio 5 writes for a planar mesh (QUAD4 and TRI3
blocks, num_dim 2) with one node array and one node set: the unwritten float
time, the per-array node dimension, 64-bit node set entries.
KIND noprop: as quirks without eb_prop1 and ns_prop1 (meshio before it
added them for ParaView; writers that leave the ids out).
"""
import sys

LEN_STRING = 33


def chars(names):
    return ", ".join('"%s"' % n for n in names)


def ints(v):
    return ", ".join(str(x) for x in v)


def nums(v):
    return ", ".join(repr(float(x)) for x in v)


def header(title, dims, nblk, nns):
    return [
        "netcdf meshio {",
        "dimensions:",
    ] + ["\t%s = %s ;" % kv for kv in dims] + [
        "variables:",
    ], [
        "// global attributes:",
        '\t\t:title = "%s" ;' % title,
        "\t\t:version = 5.1f ;",
        "\t\t:api_version = 5.1f ;",
        "\t\t:floating_point_word_size = 8LL ;",
    ]


def plain():
    # 4 x 2 x 2 nodes on a unit grid; x in 0..3. Node (i, j, k) is
    # 1 + i + 4 j + 8 k.
    def n(i, j, k):
        return 1 + i + 4 * j + 8 * k
    xyz = [(i, j, k) for k in range(2) for j in range(2) for i in range(4)]
    hexes = [[n(i, 0, 0), n(i + 1, 0, 0), n(i + 1, 1, 0), n(i, 1, 0),
              n(i, 0, 1), n(i + 1, 0, 1), n(i + 1, 1, 1), n(i, 1, 1)] for i in (0, 1)]
    wedges = [[n(2, 0, 0), n(3, 0, 0), n(3, 1, 0), n(2, 0, 1), n(3, 0, 1), n(3, 1, 1)],
              [n(2, 0, 0), n(3, 1, 0), n(2, 1, 0), n(2, 0, 1), n(3, 1, 1), n(2, 1, 1)]]
    times = [0.0, 0.5, 1.0]
    dims = [("num_nodes", 16), ("num_dim", 3), ("num_elem", 4), ("num_el_blk", 2),
            ("num_node_sets", 0), ("len_string", LEN_STRING), ("len_line", 81),
            ("four", 4), ("time_step", "UNLIMITED"),
            ("num_el_in_blk1", 2), ("num_nod_per_el1", 8), ("num_el_in_blk2", 2),
            ("num_nod_per_el2", 6), ("num_nod_var", 1), ("num_elem_var", 1)]
    head, glob = header("Created by meshio v5.3.4, 2024-03-01T12:00:00.000000", dims, 2, 0)
    var = [
        "\tdouble time_whole(time_step) ;",
        "\tchar coor_names(num_dim, len_string) ;",
        "\tdouble coord(num_dim, num_nodes) ;",
        "\tint eb_prop1(num_el_blk) ;",
        "\tint64 connect1(num_el_in_blk1, num_nod_per_el1) ;",
        '\t\tconnect1:elem_type = "HEX8" ;',
        "\tint64 connect2(num_el_in_blk2, num_nod_per_el2) ;",
        '\t\tconnect2:elem_type = "WEDGE" ;',
        "\tchar name_nod_var(num_nod_var, len_string) ;",
        "\tdouble vals_nod_var1(time_step, num_nodes) ;",
        "\tchar name_elem_var(num_elem_var, len_string) ;",
        "\tdouble vals_elem_var1eb1(time_step, num_el_in_blk1) ;",
        "\tdouble vals_elem_var1eb2(time_step, num_el_in_blk2) ;",
    ]
    # values: temperature = x + 10 y + 100 z + 1000 t; pressure = 7 (block
    # 1) or 9 (block 2) times the cell's position + 1, plus t
    temp = [x + 10 * y + 100 * z + 1000 * t for t in times for (x, y, z) in xyz]
    p1 = [7 * (c + 1) + t for t in times for c in range(2)]
    p2 = [9 * (c + 1) + t for t in times for c in range(2)]
    data = [
        "data:",
        " time_whole = %s ;" % nums(times),
        ' coor_names = "X", "Y", "Z" ;',
        " coord = %s ;" % ints([p[d] for d in range(3) for p in xyz]),
        " eb_prop1 = 0, 1 ;",
        " connect1 = %s ;" % ints(sum(hexes, [])),
        " connect2 = %s ;" % ints(sum(wedges, [])),
        ' name_nod_var = "temperature" ;',
        " vals_nod_var1 = %s ;" % nums(temp),
        ' name_elem_var = "pressure" ;',
        " vals_elem_var1eb1 = %s ;" % nums(p1),
        " vals_elem_var1eb2 = %s ;" % nums(p2),
        "}",
    ]
    return head + var + [""] + glob + data


def quirks(props=True):
    # planar: 4 x 3 nodes, x in 0..3, y in 0..2; quads on x 0..2, triangles
    # on x 2..3. Node (i, j) is 1 + i + 4 j.
    def n(i, j):
        return 1 + i + 4 * j
    xy = [(0.5 * i, 0.25 * j) for j in range(3) for i in range(4)]
    quads = [[n(i, j), n(i + 1, j), n(i + 1, j + 1), n(i, j + 1)] for j in range(2)
             for i in range(2)]
    tris = []
    for j in range(2):
        tris += [[n(2, j), n(3, j), n(3, j + 1)], [n(2, j), n(3, j + 1), n(2, j + 1)]]
    left = [n(0, j) for j in range(3)]  # the node set "left", x = 0
    dims = [("num_nodes", 12), ("num_dim", 2), ("num_elem", 8), ("num_el_blk", 2),
            ("num_node_sets", 1), ("len_string", LEN_STRING), ("len_line", 81),
            ("four", 4), ("time_step", "UNLIMITED"),
            ("num_el_in_blk1", 4), ("num_nod_per_el1", 4), ("num_el_in_blk2", 4),
            ("num_nod_per_el2", 3), ("num_nod_var", 1), ("dim_nod_var00", 12),
            ("num_nod_ns1", 3)]
    head, glob = header("Created by meshio v5.3.4, 2024-03-01T12:00:00.000000", dims, 2, 1)
    var = [
        "\tfloat time_whole(time_step) ;",
        "\tchar coor_names(num_dim, len_string) ;",
        "\tdouble coord(num_dim, num_nodes) ;",
    ] + (["\tint eb_prop1(num_el_blk) ;"] if props else []) + [
        "\tint64 connect1(num_el_in_blk1, num_nod_per_el1) ;",
        '\t\tconnect1:elem_type = "QUAD4" ;',
        "\tint64 connect2(num_el_in_blk2, num_nod_per_el2) ;",
        '\t\tconnect2:elem_type = "TRI3" ;',
        "\tchar name_nod_var(num_nod_var, len_string) ;",
        "\tdouble vals_nod_var1(time_step, dim_nod_var00) ;",
    ] + (["\tint ns_prop1(num_node_sets) ;"] if props else []) + [
        "\tchar ns_names(num_node_sets, len_string) ;",
        "\tint64 node_ns1(num_nod_ns1) ;",
    ]
    data = [
        "data:",
        ' coor_names = "X", "Y" ;',
        " coord = %s ;" % nums([p[d] for d in range(2) for p in xy]),
    ] + ([" eb_prop1 = 0, 1 ;"] if props else []) + [
        " connect1 = %s ;" % ints(sum(quads, [])),
        " connect2 = %s ;" % ints(sum(tris, [])),
        ' name_nod_var = "u" ;',
        # one step; time_whole left unwritten (its fill value)
        " vals_nod_var1 = %s ;" % nums([x * x + 3 * y for (x, y) in xy]),
    ] + ([" ns_prop1 = 0 ;"] if props else []) + [
        ' ns_names = "left" ;',
        " node_ns1 = %s ;" % ints(left),
        "}",
    ]
    return head + var + [""] + glob + data


KINDS = {"plain": plain, "quirks": quirks, "noprop": lambda: quirks(props=False)}
if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
    sys.stderr.write("usage: meshio_cdl.py %s\n" % "|".join(KINDS))
    sys.exit(2)
print("\n".join(KINDS[sys.argv[1]]()))
