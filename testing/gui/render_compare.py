"""Render a dataset read by MxNReader and by ParaView's IOSSReader; compare.

usage: [mpiexec -n N] pvbatch --symmetric render_compare.py PLUGIN_SO DATASET
           OUTDIR POINT_FIELD [CELL_FIELD]

Needs an X display (run it through xvfb_run.sh: the Debian ParaView build
renders through GLX only). DATASET is a spread-set member (mesh.e.4.0) or a
plain Exodus file; IOSSReader reads the whole spread set from a member. At
the last time step, with a fixed 400x300 image, a fixed camera (computed
from IOSSReader's bounds, then the same for every image), a fixed
background, no orientation axes and no scalar bar, this saves

  OUTDIR/{mxn,ioss}_point_npN.png   coloured by POINT_FIELD
  OUTDIR/{mxn,ioss}_cell_npN.png    coloured by CELL_FIELD (when given)
  OUTDIR/control_npN.png            MxNReader with every cell whose global
                                    id is a multiple of 40 removed

where both readers share one colour map per field with the range fixed to
IOSSReader's range of that field. Checked (rank 0 computes, every rank
agrees on the verdict):

  * MxNReader reports no error; its cells over all ranks (ghost cells,
    vtkGhostType DUPLICATECELL, left out), its bounds and the ranges of
    the fields equal IOSSReader's;
  * every image is not blank: at least 5 % of its pixels differ from the
    background;
  * each MxN image matches the IOSS image of the same field: at most
    MAX_BAD_FRACTION of the pixels differ by more than PIXEL_TOLERANCE in
    some channel, and the mean absolute channel difference is at most
    MAX_MEAN_DIFF. (Sources of legitimate difference: pieces end in
    internal faces that are hidden but still rasterized, and with N > 1
    ranks the image is depth-composited; on this machine the measured
    difference is 0 pixels.)
  * the control image (a reader that loses 2.5 % of the cells) does NOT
    match: the tolerance is tight enough to see such a defect.

Exit codes: 0 pass (falling off the end: under mpiexec, SystemExit ends
pvbatch before it finalizes MPI), 1 failure, 2 bad usage, 77 skipped
(DATASET absent).
"""
import os
import sys
import time

T0 = time.time()

SKIP = 77
WIDTH, HEIGHT = 400, 300
BACKGROUND = [0.32, 0.34, 0.43]
# A channel differing by more than PIXEL_TOLERANCE (of 255) makes a pixel
# "bad"; an image pair matches with at most MAX_BAD_FRACTION bad pixels (of
# the foreground) and a mean absolute channel difference <= MAX_MEAN_DIFF.
PIXEL_TOLERANCE = 24
MAX_BAD_FRACTION = 0.005
MAX_MEAN_DIFF = 0.5
MIN_FOREGROUND = 0.05
CONTROL_MODULUS = 40

if len(sys.argv) not in (5, 6):
    print("usage: pvbatch --symmetric render_compare.py PLUGIN_SO DATASET OUTDIR "
          "POINT_FIELD [CELL_FIELD]")
    sys.exit(2)
plugin, dataset, outdir = (os.path.abspath(a) for a in sys.argv[1:4])
point_field = sys.argv[4]
cell_field = sys.argv[5] if len(sys.argv) == 6 else None
if not os.path.isfile(dataset):
    print("render_compare: SKIP: %s not found" % dataset)
    sys.exit(SKIP)

import numpy as np  # noqa: E402
from paraview.simple import *  # noqa: E402,F401,F403
import paraview.simple  # noqa: E402
from paraview import servermanager  # noqa: E402
from vtkmodules.util.misc import calldata_type  # noqa: E402
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy  # noqa: E402
from vtkmodules.util.vtkConstants import VTK_STRING  # noqa: E402
from vtkmodules.vtkCommonCore import vtkDoubleArray, vtkIntArray  # noqa: E402
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController  # noqa: E402

ctrl = vtkMultiProcessController.GetGlobalController()
rank, nranks = ctrl.GetLocalProcessId(), ctrl.GetNumberOfProcesses()
name = "render_compare[%s, N=%d]" % (os.path.basename(dataset), nranks)
if rank == 0:
    os.makedirs(outdir, exist_ok=True)
ctrl.Barrier()
problems = []


def as_list(prop):
    try:
        return [float(v) for v in prop]
    except TypeError:
        return [float(prop)]


# --- the two readers --------------------------------------------------------
LoadPlugin(plugin, remote=False, ns=globals())
errors = []


@calldata_type(VTK_STRING)
def on_error(obj, event, msg):
    errors.append(" ".join(str(msg).split()))


mxn = servermanager.sources.MxNReader()
mxn.GetClientSideObject().AddObserver("ErrorEvent", on_error)
mxn.FileName = dataset
mxn.UpdatePipelineInformation()
times = as_list(mxn.TimestepValues) if mxn.TimestepValues is not None else []
t_last = times[-1] if times else 0.0

ioss = IOSSReader(FileName=[dataset])  # noqa: F405
ioss.UpdatePipelineInformation()
# Element blocks and nodal/element fields only (no sets): what MxN gives.
for prop, value in (("NodeSets", []), ("SideSets", [])):
    if prop in ioss.ListProperties():
        ioss.SetPropertyWithName(prop, value)

mxn.UpdatePipeline(t_last)
ioss.UpdatePipeline(t_last)
if errors:
    problems.append("MxNReader errors: " + " | ".join(errors)[:600])

def leaves(data):
    it = data.NewIterator()
    it.UnRegister(None)
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def global_stats(source):
    """Over all ranks: owned cells (vtkGhostType without DUPLICATECELL),
    bounds, and per field (present on some rank, [min, max])."""
    data = source.GetClientSideObject().GetOutputDataObject(0)
    owned, box, seen = 0, [np.inf, -np.inf] * 3, {}
    for g in leaves(data):
        if g.GetNumberOfCells() == 0:
            continue
        ghosts = g.GetCellData().GetArray("vtkGhostType")
        owned += g.GetNumberOfCells() if ghosts is None else \
            int(np.sum((vtk_to_numpy(ghosts) & 1) == 0))
        b = g.GetBounds()
        box = [min(box[k], b[k]) if k % 2 == 0 else max(box[k], b[k]) for k in range(6)]
        for assoc, attrs in (("POINTS", g.GetPointData()), ("CELLS", g.GetCellData())):
            for field in (point_field, cell_field):
                a = attrs.GetArray(field) if field else None
                if a is not None:
                    lo, hi = a.GetRange(-1) if a.GetNumberOfComponents() > 1 else a.GetRange()
                    old = seen.get((assoc, field), (np.inf, -np.inf))
                    seen[(assoc, field)] = (min(old[0], lo), max(old[1], hi))
    keys = [(a, f) for a in ("POINTS", "CELLS") for f in (point_field, cell_field) if f]
    # One MAX reduction: negate what must be minimized.
    local = [-box[0], box[1], -box[2], box[3], -box[4], box[5]]
    for k in keys:
        lo, hi = seen.get(k, (np.inf, -np.inf))
        local += [1.0 if k in seen else 0.0, -lo, hi]
    send = numpy_to_vtk(np.array(local, dtype=np.float64), deep=1)
    recv = vtkDoubleArray()
    ctrl.AllReduce(send, recv, vtkCommunicator.MAX_OP)
    m = vtk_to_numpy(recv)
    total = vtkDoubleArray()
    ctrl.AllReduce(numpy_to_vtk(np.array([float(owned)]), deep=1), total, vtkCommunicator.SUM_OP)
    fields = {}
    for i, k in enumerate(keys):
        if m[6 + 3 * i] > 0:
            fields[k] = (-m[7 + 3 * i], m[8 + 3 * i])
    return int(total.GetValue(0)), [-m[0], m[1], -m[2], m[3], -m[4], m[5]], fields


mxn_cells, mxn_box, mxn_fields = global_stats(mxn)
ioss_cells, b, ioss_fields = global_stats(ioss)
if mxn_cells != ioss_cells:
    problems.append("cells: MxNReader %d, IOSSReader %d" % (mxn_cells, ioss_cells))
ranges = {}
for assoc, field in (("POINTS", point_field), ("CELLS", cell_field)):
    if field is None:
        continue
    rm, ri = mxn_fields.get((assoc, field)), ioss_fields.get((assoc, field))
    if rm is None or ri is None:
        problems.append("%s field %s: MxNReader %s it, IOSSReader %s it"
                        % (assoc, field, "has" if rm else "lacks", "has" if ri else "lacks"))
        continue
    span = max(1.0, abs(ri[1] - ri[0]))
    if abs(rm[0] - ri[0]) > 1e-9 * span or abs(rm[1] - ri[1]) > 1e-9 * span:
        problems.append("%s range: MxNReader %s, IOSSReader %s" % (field, rm, ri))
    ranges[field] = (assoc, ri)
if any(abs(x - y) > 1e-9 * max(1.0, abs(y)) for x, y in zip(mxn_box, b)):
    problems.append("bounds: MxNReader %s, IOSSReader %s" % (mxn_box, b))

T_READ = time.time()

# --- the view: everything fixed --------------------------------------------
# paraview.simple resets the camera at the first Render of the session
# (what ParaView's own traces switch off with this call).
paraview.simple._DisableFirstRenderCameraReset()
view = CreateView("RenderView")  # noqa: F405
view.ViewSize = [WIDTH, HEIGHT]
view.OrientationAxesVisibility = 0
if "UseColorPaletteForBackground" in view.ListProperties():
    view.UseColorPaletteForBackground = 0
view.Background = BACKGROUND
view.ViewTime = t_last

centre = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
diag = max(1e-12, ((b[1] - b[0]) ** 2 + (b[3] - b[2]) ** 2 + (b[5] - b[4]) ** 2) ** 0.5)
direction = [0.55, -0.65, 0.52]  # from front-right, above: three faces visible
norm = sum(d * d for d in direction) ** 0.5


def set_camera():
    view.CameraFocalPoint = centre
    view.CameraPosition = [c + 1.9 * diag * d / norm for c, d in zip(centre, direction)]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.CameraViewAngle = 30.0
    view.CameraParallelProjection = 0


def shoot(source, assoc, field, path):
    """Show SOURCE alone coloured by FIELD and save the image."""
    for s in (mxn, ioss) + tuple(extra):
        Hide(s, view)  # noqa: F405
    d = Show(source, view)  # noqa: F405
    d.Representation = "Surface"
    ColorBy(d, (assoc, field))  # noqa: F405
    lut = GetColorTransferFunction(field)  # noqa: F405
    lut.ApplyPreset("Viridis (matplotlib)", True)
    lut.AutomaticRescaleRangeMode = "Never"
    lut.RescaleTransferFunction(*ranges[field][1])
    d.SetScalarBarVisibility(view, False)
    set_camera()  # SaveScreenshot renders
    SaveScreenshot(path, view, ImageResolution=[WIDTH, HEIGHT],  # noqa: F405
                   TransparentBackground=0)


extra = []
shots = []  # (mxn png, ioss png, label)
for field, (assoc, _) in ranges.items():
    label = "point" if assoc == "POINTS" else "cell"
    pm = os.path.join(outdir, "mxn_%s_np%d.png" % (label, nranks))
    pi = os.path.join(outdir, "ioss_%s_np%d.png" % (label, nranks))
    shoot(mxn, assoc, field, pm)
    shoot(ioss, assoc, field, pi)
    shots.append((pm, pi, "%s %s" % (label, field)))

# Control: MxNReader's output less every cell whose global id ("ids") is a
# multiple of CONTROL_MODULUS, coloured like the first image.
control = None
if shots:
    field0, (assoc0, _) = next(iter(ranges.items()))
    calc = PythonCalculator(Input=mxn, ArrayAssociation="Cell Data",  # noqa: F405
                            ArrayName="keep",
                            Expression="ids %% %d" % CONTROL_MODULUS)
    thr = Threshold(Input=calc, Scalars=["CELLS", "keep"])  # noqa: F405
    thr.LowerThreshold, thr.UpperThreshold = 0.5, CONTROL_MODULUS
    extra.extend([calc, thr])
    control = os.path.join(outdir, "control_np%d.png" % nranks)
    shoot(thr, assoc0, field0, control)

T_RENDER = time.time()

# --- compare (rank 0 has the images) ---------------------------------------
bg = np.round(np.array(BACKGROUND) * 255.0)


def load_png(path):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)
    return a[:, :, :3].astype(np.int32)


def foreground(a):
    return np.any(np.abs(a - bg) > 3, axis=2)


def compare(pa, pb):
    """(bad pixel fraction of the foreground, mean abs channel difference)."""
    a, b = load_png(pa), load_png(pb)
    if a.shape != b.shape:
        return 1.0, 255.0
    diff = np.abs(a - b)
    fg = max(1, int(np.sum(foreground(a) | foreground(b))))
    bad = int(np.sum(np.any(diff > PIXEL_TOLERANCE, axis=2)))
    return bad / fg, float(np.mean(diff))


report = []
if rank == 0:
    for path in [p for s in shots for p in s[:2]] + ([control] if control else []):
        if not os.path.isfile(path):
            problems.append("%s was not written" % path)
            continue
        f = float(np.mean(foreground(load_png(path))))
        if f < MIN_FOREGROUND:
            problems.append("%s is blank: %.2f %% foreground" % (os.path.basename(path), 100 * f))
    if not problems:
        for pm, pi, label in shots:
            bad, mean = compare(pm, pi)
            report.append("%s: %.3f %% bad pixels, mean diff %.3f" % (label, 100 * bad, mean))
            if bad > MAX_BAD_FRACTION or mean > MAX_MEAN_DIFF:
                problems.append("%s: MxN and IOSS images differ: %.3f %% of the pixels by > %d, "
                                "mean %.3f (limits %.2f %%, %.2f)"
                                % (label, 100 * bad, PIXEL_TOLERANCE, mean,
                                   100 * MAX_BAD_FRACTION, MAX_MEAN_DIFF))
        bad, mean = compare(control, shots[0][1])
        report.append("control: %.3f %% bad, mean %.3f" % (100 * bad, mean))
        if bad <= MAX_BAD_FRACTION and mean <= MAX_MEAN_DIFF:
            problems.append("control image with 1/%d of the cells removed passes the "
                            "comparison: the tolerance is too loose" % CONTROL_MODULUS)
    if not shots:
        problems.append("no field to colour by")

verdict = vtkIntArray()
verdict.InsertNextValue(len(problems))
ctrl.Broadcast(verdict, 0)
nprob = verdict.GetValue(0)
if problems:
    sys.stdout.write("%s rank %d: %s\n" % (name, rank, "; ".join(problems)[:2000]))
if rank == 0:
    print("render_compare: %s: %s: %d cells, t=%g; %s; images in %s; "
          "%.1f s start + read, %.1f s render, %.1f s compare"
          % ("FAIL" if nprob else "PASS", name, mxn_cells, t_last,
             "; ".join(report), outdir, T_READ - T0, T_RENDER - T_READ,
             time.time() - T_RENDER))
sys.stdout.flush()
for s in reversed(extra):
    Delete(s)  # noqa: F405
Delete(ioss)  # noqa: F405
Delete(mxn)  # noqa: F405
# Close the render window before SystemExit: otherwise Xlib reports
# GLXBadContext while the interpreter tears down.
Delete(view)  # noqa: F405
del view
if nprob:
    sys.exit(1)
