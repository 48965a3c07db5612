"""ParaView opens mxn_gen output as the generator documents it.

usage: pvbatch gen_check.py MXN_GEN TMPDIR

For small meshes of every type, both ParaView Exodus readers must report
the expected cell and point counts; the legacy reader's global ids must be
the set {O + 1 + S*m} and the variables at the last step must follow the
documented encodings; node and side sets must have the expected sizes;
IOSS (which converts Exodus wedges to VTK orientation) must see only
positive cell volumes summing to the box volume. Prints the failures and
exits 1 if there are any, 0 otherwise.
"""
import os
import subprocess
import sys

from paraview import servermanager as sm
from paraview.simple import (CellSize, ExodusIIReader, IOSSReader,
                             MergeBlocks)

NSUB = {'hex': 1, 'wedge': 2, 'tet': 6, 'quad': 1}
MIXED = ['hex', 'wedge', 'tet']

# name, type, dims, extra options
CASES = [
    ('hex', 'hex', (4, 3, 2), ['--blocks', '2']),
    ('tet', 'tet', (4, 3, 2), ['--blocks', '2', '--shuffle-ids', '3']),
    ('wedge', 'wedge', (4, 3, 2), ['--blocks', '3']),
    ('quad', 'quad', (5, 3), ['--blocks', '2', '--id-stride', '3']),
    ('mixed', 'mixed', (6, 3, 2), []),
    ('mixed64', 'mixed', (6, 3, 2),
     ['--int64', '--id-offset', '3000000000', '--shuffle-ids', '4']),
    ('hexf', 'hex', (4, 3, 2), ['--word-size', '4', '--steps', '5']),
]


def expected_counts(kind, dims, blocks):
    nx = dims[0]
    rest = 1
    for d in dims[1:]:
        rest *= d
    cells = 0
    for b in range(blocks):
        t = MIXED[b % 3] if kind == 'mixed' else kind
        cells += ((b + 1) * nx // blocks - b * nx // blocks) * rest * NSUB[t]
    points = 1
    for d in dims:
        points *= d + 1
    return cells, points


def fetch_merged(reader, time=None):
    m = MergeBlocks(Input=reader)
    if time is None:
        m.UpdatePipeline()
    else:
        m.UpdatePipeline(time)
    return sm.Fetch(m)


def blocks_by_name(reader):
    reader.UpdatePipeline()
    d = sm.Fetch(reader)
    out = {}
    it = d.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        out[it.GetCurrentMetaData().Get(d.NAME())] = it.GetCurrentDataObject()
        it.GoToNextItem()
    return out


def check_case(gen, tmp, name, kind, dims, opts, errors):
    path = os.path.join(tmp, 'gen_check_%s.e' % name)
    args = [gen, '--type', kind, '--dims'] + [str(d) for d in dims] + opts + [path]
    subprocess.run(args, check=True)
    blocks = int(opts[opts.index('--blocks') + 1]) if '--blocks' in opts else (
        3 if kind == 'mixed' else 1)
    steps = int(opts[opts.index('--steps') + 1]) if '--steps' in opts else 3
    cells, points = expected_counts(kind, dims, blocks)

    def err(msg):
        errors.append('%s: %s' % (name, msg))

    # legacy reader: counts, ids, values at the last step
    r = ExodusIIReader(FileName=[path])
    r.UpdatePipelineInformation()
    r.ElementVariables = ['elem_gid_time', 'elem_block_only']
    r.PointVariables = ['node_gid_time', 'nodal_x']
    r.GenerateGlobalElementIdArray = 1
    r.GenerateGlobalNodeIdArray = 1
    times = list(r.TimestepValues)
    if times != [0.25 * (k + 1) for k in range(steps)]:
        err('times %s' % times)
    d = fetch_merged(r, times[-1])
    if (d.GetNumberOfCells(), d.GetNumberOfPoints()) != (cells, points):
        err('ExodusIIReader %d cells %d points, expected %d/%d' % (
            d.GetNumberOfCells(), d.GetNumberOfPoints(), cells, points))
    k = steps - 1
    pd, cd = d.GetPointData(), d.GetCellData()

    # ids: {O + 1 + S*m}, whatever the permutation
    def opt(flag, default):
        return int(opts[opts.index(flag) + 1]) if flag in opts else default
    o, st = opt('--id-offset', 0), opt('--id-stride', 1)
    for what, arr, n in (('node', pd.GetArray('GlobalNodeId'), points),
                         ('element', cd.GetArray('GlobalElementId'), cells)):
        got = sorted(arr.GetValue(q) for q in range(arr.GetNumberOfTuples()))
        if got != [o + 1 + st * m for m in range(n)]:
            err('%s ids are not O + 1 + S*m' % what)
    ngid, nval, nx = (pd.GetArray('GlobalNodeId'), pd.GetArray('node_gid_time'),
                      pd.GetArray('nodal_x'))
    for q in range(d.GetNumberOfPoints()):
        g = ngid.GetValue(q)
        if nval.GetValue(q) != g + k / 16.0 or nx.GetValue(q) != d.GetPoint(q)[0] + k:
            err('node %d: node_gid_time %r nodal_x %r' % (
                g, nval.GetValue(q), nx.GetValue(q)))
            break
    egid, eval_ = cd.GetArray('GlobalElementId'), cd.GetArray('elem_gid_time')
    for q in range(d.GetNumberOfCells()):
        g = egid.GetValue(q)
        if eval_.GetValue(q) != -(g + k / 16.0):
            err('element %d: elem_gid_time %r' % (g, eval_.GetValue(q)))
            break

    # sets
    r.ElementBlocks = []
    r.SideSetArrayStatus = r.SideSetArrayStatus.Available
    r.NodeSetArrayStatus = r.NodeSetArrayStatus.Available
    sets = blocks_by_name(r)
    nz = dims[2] if len(dims) == 3 else 1
    ns_points = (dims[1] + 1) * (nz + 1 if len(dims) == 3 else 1)
    for s in ('x_min', 'x_max'):
        if s not in sets or sets[s].GetNumberOfPoints() != ns_points:
            err('node set %s' % s)
    # a boundary face of area A has A quads, 2A triangles (tet or wedge top)
    for s in ('y_min', 'z_max' if len(dims) == 3 else 'y_max'):
        if s not in sets:
            err('side set %s missing' % s)
            continue
        area = sum(sets[s].GetCell(c).GetNumberOfPoints() == 4 or
                   sets[s].GetCell(c).GetNumberOfPoints() == 2
                   for c in range(sets[s].GetNumberOfCells()))
        area += 0.5 * sum(sets[s].GetCell(c).GetNumberOfPoints() == 3
                          for c in range(sets[s].GetNumberOfCells()))
        want = dims[0] * (nz if s == 'y_min' else dims[1])
        if len(dims) == 2:
            want = dims[0]
        if area != want:
            err('side set %s covers %s, expected %s' % (s, area, want))

    # IOSS: counts, orientation
    i = IOSSReader(FileName=[path])
    di = fetch_merged(i)
    if (di.GetNumberOfCells(), di.GetNumberOfPoints()) != (cells, points):
        err('IOSSReader %d cells %d points, expected %d/%d' % (
            di.GetNumberOfCells(), di.GetNumberOfPoints(), cells, points))
    cs = CellSize(Input=MergeBlocks(Input=i))
    cs.UpdatePipeline()
    dv = sm.Fetch(cs)
    arr = dv.GetCellData().GetArray('Area' if kind == 'quad' else 'Volume')
    vals = [arr.GetValue(q) for q in range(arr.GetNumberOfTuples())]
    box = 1
    for dd in dims:
        box *= dd
    if min(vals) <= 0 or abs(sum(vals) - box) > 1e-9 * box:
        err('IOSS cell sizes: min %g sum %g, box %g' % (min(vals), sum(vals), box))
    os.remove(path)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    gen, tmp = sys.argv[1], sys.argv[2]
    errors = []
    for name, kind, dims, opts in CASES:
        check_case(gen, tmp, name, kind, dims, opts, errors)
    for e in errors:
        print('FAIL ' + e)
    print('gen_check: %d cases, %d failures' % (len(CASES), len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
