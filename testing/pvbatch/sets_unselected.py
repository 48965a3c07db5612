"""Sets shown whole whatever blocks are selected (issue 58), against
IOSSReader: block_crush_1's spread set with only block_2 and
rigidbodyoutputpart selected, and the node sets nodelist_10 (nodes of the
unselected block_1 only), nodelist_40 and the side set surface_20 (sides
of block_1's elements) selected. Over the ranks, for each set leaf:
the same cells (node sets: node ids; side sets: (element, side)), each
owned by one rank on MxNReader's side; the same coordinates (displacements
applied) and nodal values (vel, displ) by node id.

usage: mpiexec -n N pvbatch --symmetric sets_unselected.py PLUGIN_SO SHARED_DATA
Exit 77 when the shared data is absent."""
import os
import sys

from paraview.simple import *  # noqa: F401,F403

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import pvcheck as pc  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402

plugin, shared = sys.argv[1], sys.argv[2]
path = os.path.join(shared, "nemesis/block_crush_1/inertial-M3/block_crush_1.e.3.0")
if not os.path.exists(path):
    if pc.rank == 0:
        print("sets_unselected: SKIP: %s absent" % path)
    sys.exit(77)
LoadPlugin(plugin, remote=False, ns=globals())
LEAVES = ["/IOSS/node_sets/nodelist_10", "/IOSS/node_sets/nodelist_40",
          "/IOSS/side_sets/surface_20"]


def read(make):
    r = make(FileName=[path])
    r.ElementBlocks = ["block_2", "rigidbodyoutputpart"]
    r.NodeSets = ["nodelist_10", "nodelist_40"]
    r.SideSets = ["surface_20"]
    r.NodeBlockFields = ["displ", "vel"]
    t = list(r.TimestepValues)
    r.UpdatePipeline(t[-1] if t else 0.0)
    out = r.GetClientSideObject().GetOutputDataObject(0)
    got = {}
    a = out.GetDataAssembly()
    for leaf in LEAVES:
        keys, owned_keys, points = [], [], {}
        for i in a.GetDataSetIndices(a.GetFirstNodeByPath(leaf)):
            pds = out.GetPartitionedDataSet(i)
            for p in range(pds.GetNumberOfPartitions()):
                g = pds.GetPartition(p)
                if g is None or g.GetNumberOfCells() == 0:
                    continue
                own = pc.owned(g)
                ids = vtk_to_numpy(g.GetPointData().GetGlobalIds())
                xyz = vtk_to_numpy(g.GetPoints().GetData())
                vel = g.GetPointData().GetArray("vel")
                vel = vtk_to_numpy(vel) if vel is not None else None
                for k in range(g.GetNumberOfPoints()):
                    points[int(ids[k])] = (tuple(xyz[k]), tuple(vel[k]) if vel is not None else None)
                es = g.GetCellData().GetArray("element_side")
                for c in range(g.GetNumberOfCells()):
                    if es is not None:
                        key = (int(es.GetComponent(c, 0)), int(es.GetComponent(c, 1)))
                    else:
                        key = int(ids[g.GetCell(c).GetPointId(0)])
                    keys.append(key)
                    if own[c]:
                        owned_keys.append(key)
        got[leaf] = (keys, owned_keys, points)
    Delete(r)
    return got


def gathered(got):
    allr = pc.allgather_objects(got)
    out = {}
    for leaf in LEAVES:
        keys, owned_keys, points = [], [], {}
        for g in allr:
            keys += g[leaf][0]
            owned_keys += g[leaf][1]
            points.update(g[leaf][2])
        out[leaf] = (keys, owned_keys, points)
    return out


ioss = gathered(read(IOSSReader))
mxn = gathered(read(MxNReader))
if pc.rank == 0:
    for leaf in LEAVES:
        ik, _, ip = ioss[leaf]
        mk, mo, mp = mxn[leaf]
        if not ik:
            pc.fail("%s: IOSSReader shows nothing (the reference changed?)" % leaf)
        if set(ik) != set(mk):
            pc.fail("%s: cells: %d only in IOSSReader (first %s), %d only in MxNReader" % (
                leaf, len(set(ik) - set(mk)), sorted(set(ik) - set(mk))[:5], len(set(mk) - set(ik))))
        if sorted(mo) != sorted(set(mk)):
            pc.fail("%s: MxNReader owns %d cells for %d distinct ones" % (leaf, len(mo), len(set(mk))))
        for nid, (x, v) in ip.items():
            if nid not in mp:
                pc.fail("%s: node %d absent from MxNReader" % (leaf, nid))
                break
            mx, mv = mp[nid]
            if not np.allclose(x, mx, rtol=1e-9, atol=1e-12) or (v is not None and (
                    mv is None or not np.allclose(v, mv, rtol=1e-9, atol=1e-12))):
                pc.fail("%s: node %d: MxNReader %s %s, IOSSReader %s %s" % (leaf, nid, mx, mv, x, v))
                break
        print("sets_unselected: %s: %d cells (%d distinct, %d owned), %d points" % (
            leaf, len(mk), len(set(mk)), len(mo), len(mp)))
pc.finish("sets_unselected", "N=%d: every selected set whole, as IOSSReader shows it" % pc.nranks)
