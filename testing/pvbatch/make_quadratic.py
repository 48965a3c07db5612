"""Write a small Exodus II file of quadratic and shell elements with a side
set holding every side of every element, for checking the reader's cell
and side node orders against ParaView's ExodusIIReader.

usage: python3 make_quadratic.py OUT.exo

One element per block, each translated along x so they do not touch:
HEX20, HEX27, TET10, WEDGE15, PYRAMID13, SHELL8 (3D, sides 1-2 faces and
3-6 edges), with mid-edge (and HEX27 face/centre) nodes at the midpoints
(centres) as the Exodus II manual numbers them, plus a nodal and an
element variable at two time steps. The file is written as netCDF CDL and
converted by ncgen (netcdf-bin), so no Exodus library is needed. Exit
codes: 0 written, 1 ncgen failed, 2 bad usage.
"""
import os
import subprocess
import sys

# Corner coordinates and mid-edge pairs per type (Exodus node numbering).
HEX_C = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
HEX_E = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 5), (2, 6), (3, 7), (4, 5), (5, 6), (6, 7),
         (7, 4)]
# HEX27: node 21 centroid, then the face centres of sides 5, 6, 4, 2, 1, 3.
HEX27_F = [[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7], [0, 3, 7, 4], [1, 2, 6, 5],
           [0, 1, 5, 4], [2, 3, 7, 6]]
TET_C = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TET_E = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
WEDGE_C = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)]
WEDGE_E = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (2, 5), (3, 4), (4, 5), (5, 3)]
PYR_C = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)]
PYR_E = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4), (2, 4), (3, 4)]
SHELL_C = [(0, 0, 0), (1, 0, 0), (1, 1, 0.25), (0, 1, 0)]
SHELL_E = [(0, 1), (1, 2), (2, 3), (3, 0)]


def mid(pts, pairs):
    return [tuple((pts[a][d] + pts[b][d]) / 2.0 for d in range(3)) for a, b in pairs]


def centre(pts, idx):
    return tuple(sum(pts[i][d] for i in idx) / len(idx) for d in range(3))


hex20 = HEX_C + mid(HEX_C, HEX_E)
ELEMENTS = [  # (type, nodes, number of sides)
    ("HEX20", hex20, 6),
    ("HEX27", hex20 + [centre(HEX_C, f) for f in HEX27_F], 6),
    ("TETRA10", TET_C + mid(TET_C, TET_E), 4),
    ("WEDGE15", WEDGE_C + mid(WEDGE_C, WEDGE_E), 5),
    ("PYRAMID13", PYR_C + mid(PYR_C, PYR_E), 5),
    ("SHELL8", SHELL_C + mid(SHELL_C, SHELL_E), 6),
]


def cdl():
    xs, ys, zs, conn = [], [], [], []
    for b, (_, pts, _) in enumerate(ELEMENTS):
        first = len(xs) + 1
        for x, y, z in pts:
            xs.append(x + 2.0 * b)
            ys.append(y)
            zs.append(z)
        conn.append(list(range(first, first + len(pts))))
    elems, sides = [], []
    for b, (_, _, nsides) in enumerate(ELEMENTS):
        for s in range(1, nsides + 1):
            elems.append(b + 1)
            sides.append(s)
    nb, nn = len(ELEMENTS), len(xs)
    out = ["netcdf quadratic {", "dimensions:", "  len_string = 33 ;", "  len_line = 81 ;",
           "  four = 4 ;", "  len_name = 33 ;", "  time_step = UNLIMITED ;", "  num_dim = 3 ;",
           "  num_nodes = %d ;" % nn, "  num_elem = %d ;" % nb, "  num_el_blk = %d ;" % nb,
           "  num_side_sets = 1 ;", "  num_side_ss1 = %d ;" % len(elems),
           "  num_nod_var = 1 ;", "  num_elem_var = 1 ;"]
    for b, (_, pts, _) in enumerate(ELEMENTS):
        out += ["  num_el_in_blk%d = 1 ;" % (b + 1), "  num_nod_per_el%d = %d ;" % (b + 1, len(pts))]
    out += ["variables:", "  double time_whole(time_step) ;", "  int eb_status(num_el_blk) ;",
            "  int eb_prop1(num_el_blk) ;", '    eb_prop1:name = "ID" ;',
            "  int ss_status(num_side_sets) ;", "  int ss_prop1(num_side_sets) ;",
            '    ss_prop1:name = "ID" ;', "  double coordx(num_nodes) ;",
            "  double coordy(num_nodes) ;", "  double coordz(num_nodes) ;",
            "  char coor_names(num_dim, len_name) ;", "  int elem_ss1(num_side_ss1) ;",
            "  int side_ss1(num_side_ss1) ;", "  char name_nod_var(num_nod_var, len_name) ;",
            "  double vals_nod_var1(time_step, num_nodes) ;",
            "  char name_elem_var(num_elem_var, len_name) ;",
            "  int elem_var_tab(num_el_blk, num_elem_var) ;"]
    for b, (etype, _, _) in enumerate(ELEMENTS):
        out += ["  int connect%d(num_el_in_blk%d, num_nod_per_el%d) ;" % (b + 1, b + 1, b + 1),
                '    connect%d:elem_type = "%s" ;' % (b + 1, etype),
                "  double vals_elem_var1eb%d(time_step, num_el_in_blk%d) ;" % (b + 1, b + 1)]
    out += ["", "// global attributes:", "  :api_version = 6.02f ;", "  :version = 6.02f ;",
            "  :floating_point_word_size = 8 ;", "  :file_size = 1 ;",
            "  :maximum_name_length = 32 ;", "  :int64_status = 0 ;",
            '  :title = "make_quadratic.py" ;', "data:",
            "  time_whole = 0.5, 1.0 ;",
            "  eb_status = %s ;" % ", ".join(["1"] * nb),
            "  eb_prop1 = %s ;" % ", ".join(str(10 * (b + 1)) for b in range(nb)),
            "  ss_status = 1 ;", "  ss_prop1 = 7 ;",
            "  coordx = %s ;" % ", ".join(repr(v) for v in xs),
            "  coordy = %s ;" % ", ".join(repr(v) for v in ys),
            "  coordz = %s ;" % ", ".join(repr(v) for v in zs),
            '  coor_names = "x", "y", "z" ;',
            "  elem_ss1 = %s ;" % ", ".join(str(e) for e in elems),
            "  side_ss1 = %s ;" % ", ".join(str(s) for s in sides),
            '  name_nod_var = "temp" ;',
            "  vals_nod_var1 = %s ;" % ", ".join(
                repr(k * 10.0 + x + 2 * y + 3 * z) for k in (1, 2) for x, y, z in zip(xs, ys, zs)),
            '  name_elem_var = "load" ;',
            "  elem_var_tab = %s ;" % ", ".join(["1"] * nb)]
    for b in range(nb):
        out.append("  vals_elem_var1eb%d = %s, %s ;" % (b + 1, repr(1.0 + b), repr(2.0 + 3 * b)))
    for b, c in enumerate(conn):
        out.append("  connect%d = %s ;" % (b + 1, ", ".join(str(v) for v in c)))
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python3 make_quadratic.py OUT.exo")
        sys.exit(2)
    target = os.path.abspath(sys.argv[1])
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target + ".cdl", "w") as f:
        f.write(cdl())
    r = subprocess.run(["ncgen", "-o", target, target + ".cdl"], capture_output=True, text=True)
    if r.returncode:
        print("make_quadratic: ncgen failed: %s" % r.stderr.strip())
        sys.exit(1)
    print("make_quadratic: wrote %s" % target)
