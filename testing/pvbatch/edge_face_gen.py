"""Writes a small Exodus file with edge and face blocks and every kind of
set, with variables whose values encode the entity id and the time step,
for edge_face_sets.py (as CDL, turned into the file by ncgen).

A box of NX x NY x NZ HEX8 elements; one EDGE2 edge block holding every
distinct edge, two QUAD4 face blocks holding the distinct faces (first
half, second half), each element referring to its 12 edges and 6 faces
(Exodus side order). Node, edge, face, element and side ids are 1-based
positions (no id maps). At step s (1-based):
  RHO (nodal) = 100 s + node id        EV (edge)  = 1000 s + edge id
  FV (face)   = 2000 s + face id       EL (element) = 5000 s + element id
  ESV (edge sets) = 3000 s + edge id + 0.5 set index
  FSV (face sets) = 4000 s + face id + 0.5 set index
  ELSV (element sets) = 6000 s + element id + 0.5 set index
  NSV (node set) = 7000 s + node id    SSV (side set) = 8000 s + element id
Edge attribute `len` = edge id / 10; face attribute `area` = face id / 100.

usage: python3 edge_face_gen.py OUT.exo [NX NY NZ]
The expected sets are returned by sets() for the test to import.
"""
import subprocess
import sys

HEX_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
             (0, 4), (1, 5), (2, 6), (3, 7)]
HEX_FACES = [(0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (0, 3, 2, 1),
             (4, 5, 6, 7)]


def mesh(nx=4, ny=3, nz=2, orphans=False):
    """Nodes (coords), elements (node ids), edges and faces (node ids, in
    order of first appearance), element -> edge / face ids. With orphans,
    one more edge and face that no element refers to (a diagonal of the
    x = 0 side, a quad of the x = 0, y = 0 corner nodes)."""
    def nid(i, j, k):
        return 1 + i + (nx + 1) * (j + (ny + 1) * k)
    coords = [(float(i), float(j), float(k)) for k in range(nz + 1) for j in range(ny + 1)
              for i in range(nx + 1)]
    elems = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                elems.append([nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                              nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1),
                              nid(i, j + 1, k + 1)])
    edges, faces, ekey, fkey, eedges, efaces = [], [], {}, {}, [], []
    for e in elems:
        row = []
        for a, b in HEX_EDGES:
            key = tuple(sorted((e[a], e[b])))
            if key not in ekey:
                edges.append([e[a], e[b]])
                ekey[key] = len(edges)
            row.append(ekey[key])
        eedges.append(row)
        row = []
        for f in HEX_FACES:
            nodes = [e[c] for c in f]
            key = tuple(sorted(nodes))
            if key not in fkey:
                faces.append(nodes)
                fkey[key] = len(faces)
            row.append(fkey[key])
        efaces.append(row)
    if orphans:
        edges.append([nid(0, 0, 0), nid(0, 1, 1)])
        faces.append([nid(0, 0, 0), nid(0, 0, 1), nid(0, 1, 1), nid(0, 1, 0)][::-1])
    return coords, elems, edges, faces, eedges, efaces





def sets(nx=4, ny=3, nz=2, orphans=False):
    """The sets of the file: name -> list of entity ids (node sets: node
    ids; side sets: (element id, side)). With orphans, rim and skin list
    the orphan edge and face too (their ids are the last)."""
    coords, elems, edges, faces, _, _ = mesh(nx, ny, nz, orphans)
    last = (lambda n: [n]) if orphans else (lambda n: [])
    return {
        "edge_sets": {"rim": sorted(set([i for i in range(1, len(edges) + 1) if i % 3 == 0]
                                        + last(len(edges)))),
                      "spokes": [i for i in range(1, len(edges) + 1) if i % 5 == 1]},
        "face_sets": {"skin": sorted(set([i for i in range(1, len(faces) + 1) if i % 4 == 2]
                                         + last(len(faces))))},
        "element_sets": {"odd": [i for i in range(1, len(elems) + 1) if i % 2 == 1],
                         "west": [i for i in range(1, len(elems) + 1) if (i - 1) % nx == 0]},
        "node_sets": {"left": [i + 1 for i, c in enumerate(coords) if c[0] == 0.0]},
        "side_sets": {"leftside": [(i, 4) for i in range(1, len(elems) + 1) if (i - 1) % nx == 0]},
    }


def values(kind, ident, step, index=0):
    """The variable value of the file at 1-based step."""
    base = {"RHO": 100, "EV": 1000, "FV": 2000, "ESV": 3000, "FSV": 4000, "EL": 5000,
            "ELSV": 6000, "NSV": 7000, "SSV": 8000}[kind]
    return base * step + ident + 0.5 * index


def cdl(nx=4, ny=3, nz=2, split=False):
    """With split: element blocks 10 (the first half of the elements, the
    z = 0 layer for nz = 2) and 11 (the rest), and the orphan edge and face
    (mesh(orphans=True))."""
    coords, elems, edges, faces, eedges, efaces = mesh(nx, ny, nz, split)
    st = sets(nx, ny, nz, split)
    cut = [0, len(elems) // 2, len(elems)] if split else [0, len(elems)]
    nbl = len(cut) - 1
    half = len(faces) // 2
    fblocks = [faces[:half], faces[half:]]
    es, fs, els = st["edge_sets"], st["face_sets"], st["element_sets"]
    ns, ss = st["node_sets"]["left"], st["side_sets"]["leftside"]
    L = []
    w = L.append

    def arr(v):
        return ", ".join(str(x) for x in v)

    def names(v):
        return ", ".join('"%s"' % x for x in v)
    w("netcdf edgefacesets {\ndimensions:")
    w("\tlen_string = 33 ;\n\tlen_line = 81 ;\n\tfour = 4 ;\n\ttime_step = UNLIMITED ;")
    w("\tnum_dim = 3 ;\n\tnum_nodes = %d ;\n\tnum_elem = %d ;" % (len(coords), len(elems)))
    w("\tnum_edge = %d ;\n\tnum_face = %d ;" % (len(edges), len(faces)))
    w("\tnum_el_blk = %d ;\n\tnum_ed_blk = 1 ;\n\tnum_fa_blk = 2 ;" % nbl)
    w("\tnum_node_sets = 1 ;\n\tnum_side_sets = 1 ;\n\tnum_edge_sets = %d ;" % len(es))
    w("\tnum_face_sets = %d ;\n\tnum_elem_sets = %d ;" % (len(fs), len(els)))
    w("\tnum_ed_in_blk1 = %d ;\n\tnum_nod_per_ed1 = 2 ;\n\tnum_att_in_eblk1 = 1 ;" % len(edges))
    for b, fb in enumerate(fblocks, 1):
        w("\tnum_fa_in_blk%d = %d ;\n\tnum_nod_per_fa%d = 4 ;\n\tnum_att_in_fblk%d = 1 ;"
          % (b, len(fb), b, b))
    for b in range(1, nbl + 1):
        w("\tnum_el_in_blk%d = %d ;\n\tnum_nod_per_el%d = 8 ;" % (b, cut[b] - cut[b - 1], b))
        w("\tnum_edg_per_el%d = 12 ;\n\tnum_fac_per_el%d = 6 ;" % (b, b))
    w("\tnum_nod_ns1 = %d ;\n\tnum_side_ss1 = %d ;" % (len(ns), len(ss)))
    for q, k in enumerate(es, 1):
        w("\tnum_edge_es%d = %d ;" % (q, len(es[k])))
    for q, k in enumerate(fs, 1):
        w("\tnum_face_fs%d = %d ;" % (q, len(fs[k])))
    for q, k in enumerate(els, 1):
        w("\tnum_ele_els%d = %d ;" % (q, len(els[k])))
    w("\tnum_nod_var = 1 ;\n\tnum_elem_var = 1 ;\n\tnum_edge_var = 1 ;\n\tnum_face_var = 1 ;")
    w("\tnum_eset_var = 1 ;\n\tnum_fset_var = 1 ;\n\tnum_elset_var = 1 ;")
    w("\tnum_nset_var = 1 ;\n\tnum_sset_var = 1 ;")
    w("variables:\n\tdouble time_whole(time_step) ;")
    for pre, dim in (("eb", "num_el_blk"), ("ed", "num_ed_blk"), ("fa", "num_fa_blk"),
                     ("ns", "num_node_sets"), ("ss", "num_side_sets"), ("es", "num_edge_sets"),
                     ("fs", "num_face_sets"), ("els", "num_elem_sets")):
        w("\tint %s_status(%s) ;\n\tint %s_prop1(%s) ;\n\t\t%s_prop1:name = \"ID\" ;"
          % (pre, dim, pre, dim, pre))
    w("\tchar es_names(num_edge_sets, len_string) ;\n\tchar fs_names(num_face_sets, len_string) ;")
    w("\tchar els_names(num_elem_sets, len_string) ;\n\tchar ns_names(num_node_sets, len_string) ;")
    w("\tchar ss_names(num_side_sets, len_string) ;")
    w("\tdouble coordx(num_nodes) ;\n\tdouble coordy(num_nodes) ;\n\tdouble coordz(num_nodes) ;")
    w("\tchar coor_names(num_dim, len_string) ;")
    w("\tdouble eattrb1(num_ed_in_blk1, num_att_in_eblk1) ;")
    w("\tchar eattrib_name1(num_att_in_eblk1, len_string) ;")
    w("\tint ebconn1(num_ed_in_blk1, num_nod_per_ed1) ;\n\t\tebconn1:elem_type = \"EDGE2\" ;")
    for b in (1, 2):
        w("\tdouble fattrb%d(num_fa_in_blk%d, num_att_in_fblk%d) ;" % (b, b, b))
        w("\tchar fattrib_name%d(num_att_in_fblk%d, len_string) ;" % (b, b))
        w("\tint fbconn%d(num_fa_in_blk%d, num_nod_per_fa%d) ;\n\t\tfbconn%d:elem_type = \"QUAD4\" ;"
          % (b, b, b, b))
    for b in range(1, nbl + 1):
        w("\tint connect%d(num_el_in_blk%d, num_nod_per_el%d) ;\n\t\tconnect%d:elem_type = \"HEX8\" ;"
          % (b, b, b, b))
        w("\tint edgconn%d(num_el_in_blk%d, num_edg_per_el%d) ;" % (b, b, b))
        w("\tint facconn%d(num_el_in_blk%d, num_fac_per_el%d) ;" % (b, b, b))
    w("\tint node_ns1(num_nod_ns1) ;\n\tint elem_ss1(num_side_ss1) ;\n\tint side_ss1(num_side_ss1) ;")
    for q in range(1, len(es) + 1):
        w("\tint edge_es%d(num_edge_es%d) ;\n\tint ornt_es%d(num_edge_es%d) ;" % (q, q, q, q))
    for q in range(1, len(fs) + 1):
        w("\tint face_fs%d(num_face_fs%d) ;\n\tint ornt_fs%d(num_face_fs%d) ;" % (q, q, q, q))
    for q in range(1, len(els) + 1):
        w("\tint elem_els%d(num_ele_els%d) ;" % (q, q))
    for v, dim in (("nod", "num_nod_var"), ("elem", "num_elem_var"), ("edge", "num_edge_var"),
                   ("face", "num_face_var"), ("eset", "num_eset_var"), ("fset", "num_fset_var"),
                   ("elset", "num_elset_var"), ("nset", "num_nset_var"), ("sset", "num_sset_var")):
        w("\tchar name_%s_var(%s, len_string) ;" % (v, dim))
    w("\tdouble vals_nod_var1(time_step, num_nodes) ;")
    for b in range(1, nbl + 1):
        w("\tdouble vals_elem_var1eb%d(time_step, num_el_in_blk%d) ;" % (b, b))
    w("\tdouble vals_edge_var1eb1(time_step, num_ed_in_blk1) ;")
    for b in (1, 2):
        w("\tdouble vals_face_var1fb%d(time_step, num_fa_in_blk%d) ;" % (b, b))
    for q in range(1, len(es) + 1):
        w("\tdouble vals_eset_var1es%d(time_step, num_edge_es%d) ;" % (q, q))
    for q in range(1, len(fs) + 1):
        w("\tdouble vals_fset_var1fs%d(time_step, num_face_fs%d) ;" % (q, q))
    for q in range(1, len(els) + 1):
        w("\tdouble vals_elset_var1es%d(time_step, num_ele_els%d) ;" % (q, q))
    w("\tdouble vals_nset_var1ns1(time_step, num_nod_ns1) ;")
    w("\tdouble vals_sset_var1ss1(time_step, num_side_ss1) ;")
    w("\n// global attributes:\n\t\t:api_version = 8.03f ;\n\t\t:version = 8.03f ;")
    w("\t\t:floating_point_word_size = 8 ;\n\t\t:file_size = 1 ;\n\t\t:maximum_name_length = 32 ;")
    w("\t\t:title = \"edge face sets\" ;\ndata:\n")
    w(" time_whole = 1, 2 ;")
    ids = {"eb": [10, 11][:nbl], "ed": [20], "fa": [30, 31], "ns": [40], "ss": [50],
           "es": list(range(60, 60 + len(es))), "fs": list(range(70, 70 + len(fs))),
           "els": list(range(80, 80 + len(els)))}
    for pre, v in ids.items():
        w(" %s_status = %s ;\n %s_prop1 = %s ;" % (pre, arr([1] * len(v)), pre, arr(v)))
    w(" es_names = %s ;\n fs_names = %s ;\n els_names = %s ;" % (names(es), names(fs), names(els)))
    w(' ns_names = "left" ;\n ss_names = "leftside" ;')
    for d, c in zip("xyz", range(3)):
        w(" coord%s = %s ;" % (d, arr(p[c] for p in coords)))
    w(' coor_names = "x", "y", "z" ;')
    w(" eattrb1 = %s ;\n eattrib_name1 = \"len\" ;" % arr(i / 10 for i in range(1, len(edges) + 1)))
    w(" ebconn1 = %s ;" % arr(n for e in edges for n in e))
    first = 1
    for b, fb in enumerate(fblocks, 1):
        w(" fattrb%d = %s ;\n fattrib_name%d = \"area\" ;"
          % (b, arr(i / 100 for i in range(first, first + len(fb))), b))
        w(" fbconn%d = %s ;" % (b, arr(n for f in fb for n in f)))
        first += len(fb)
    for b in range(1, nbl + 1):
        a, z = cut[b - 1], cut[b]
        w(" connect%d = %s ;" % (b, arr(n for e in elems[a:z] for n in e)))
        w(" edgconn%d = %s ;\n facconn%d = %s ;" % (b, arr(x for r in eedges[a:z] for x in r),
                                                   b, arr(x for r in efaces[a:z] for x in r)))
    w(" node_ns1 = %s ;" % arr(ns))
    w(" elem_ss1 = %s ;\n side_ss1 = %s ;" % (arr(e for e, s in ss), arr(s for e, s in ss)))
    for q, k in enumerate(es, 1):
        w(" edge_es%d = %s ;\n ornt_es%d = %s ;" % (q, arr(es[k]), q, arr([1] * len(es[k]))))
    for q, k in enumerate(fs, 1):
        w(" face_fs%d = %s ;\n ornt_fs%d = %s ;" % (q, arr(fs[k]), q, arr([1] * len(fs[k]))))
    for q, k in enumerate(els, 1):
        w(" elem_els%d = %s ;" % (q, arr(els[k])))
    for v, n in (("nod", "RHO"), ("elem", "EL"), ("edge", "EV"), ("face", "FV"), ("eset", "ESV"),
                 ("fset", "FSV"), ("elset", "ELSV"), ("nset", "NSV"), ("sset", "SSV")):
        w(' name_%s_var = "%s" ;' % (v, n))

    def steps(kind, idlist, index=0):
        return arr(values(kind, i, s, index) for s in (1, 2) for i in idlist)
    w(" vals_nod_var1 = %s ;" % steps("RHO", range(1, len(coords) + 1)))
    for b in range(1, nbl + 1):
        w(" vals_elem_var1eb%d = %s ;" % (b, steps("EL", range(cut[b - 1] + 1, cut[b] + 1))))
    w(" vals_edge_var1eb1 = %s ;" % steps("EV", range(1, len(edges) + 1)))
    w(" vals_face_var1fb1 = %s ;" % steps("FV", range(1, half + 1)))
    w(" vals_face_var1fb2 = %s ;" % steps("FV", range(half + 1, len(faces) + 1)))
    for q, k in enumerate(es, 1):
        w(" vals_eset_var1es%d = %s ;" % (q, steps("ESV", es[k], q - 1)))
    for q, k in enumerate(fs, 1):
        w(" vals_fset_var1fs%d = %s ;" % (q, steps("FSV", fs[k], q - 1)))
    for q, k in enumerate(els, 1):
        w(" vals_elset_var1es%d = %s ;" % (q, steps("ELSV", els[k], q - 1)))
    w(" vals_nset_var1ns1 = %s ;" % steps("NSV", ns))
    w(" vals_sset_var1ss1 = %s ;" % steps("SSV", [e for e, s in ss]))
    w("}")
    return "\n".join(L) + "\n"


def write(out, nx=4, ny=3, nz=2, split=False):
    subprocess.run(["ncgen", "-o", out, "-"], input=cdl(nx, ny, nz, split).encode(), check=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 5):
        sys.exit("usage: edge_face_gen.py OUT.exo [NX NY NZ]")
    write(sys.argv[1], *[int(x) for x in sys.argv[2:]])
