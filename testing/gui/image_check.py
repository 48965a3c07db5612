"""Check that a screenshot shows something: not blank, not one flat colour.

usage: python3 image_check.py PNG [MIN_FOREGROUND [MIN_COLOURS]]

The background is taken as the most frequent colour of the image border
(ParaView's views have a uniform background). Checked:

  * at least MIN_FOREGROUND (default 0.05) of the pixels differ from the
    background by more than 3 (of 255) in some channel;
  * the foreground has at least MIN_COLOURS (default 32) distinct colours
    (a mesh coloured by a field through a colour map, shaded);
  * the standard deviation of the grey level over the image is at least 5.

Prints one line with the figures. Exit codes: 0 pass, 1 failure (or
unreadable file), 2 bad usage.
"""
import os
import sys

if len(sys.argv) not in (2, 3, 4):
    print("usage: python3 image_check.py PNG [MIN_FOREGROUND [MIN_COLOURS]]")
    sys.exit(2)
path = sys.argv[1]
min_fg = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
min_colours = int(sys.argv[3]) if len(sys.argv) > 3 else 32

import numpy as np  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402

if not os.path.isfile(path) or os.path.getsize(path) == 0:
    print("image_check: FAIL: %s missing or empty" % path)
    sys.exit(1)
r = vtkPNGReader()
if not r.CanReadFile(path):
    print("image_check: FAIL: %s is not a PNG" % path)
    sys.exit(1)
r.SetFileName(path)
r.Update()
img = r.GetOutput()
w, h, _ = img.GetDimensions()
a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3].astype(np.int32)

border = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
colours, counts = np.unique(border, axis=0, return_counts=True)
bg = colours[np.argmax(counts)]
fg_mask = np.any(np.abs(a - bg) > 3, axis=2)
fg = float(np.mean(fg_mask))
n_colours = int(np.unique(a[fg_mask], axis=0).shape[0]) if fg_mask.any() else 0
grey_std = float(np.std(a.mean(axis=2)))

problems = []
if fg < min_fg:
    problems.append("only %.2f %% of the pixels differ from the background" % (100 * fg))
if n_colours < min_colours:
    problems.append("only %d distinct foreground colours" % n_colours)
if grey_std < 5.0:
    problems.append("grey level standard deviation %.2f" % grey_std)
print("image_check: %s: %s %dx%d: background %s, foreground %.1f %%, %d colours, "
      "grey std %.1f%s" % ("FAIL" if problems else "PASS", os.path.basename(path), w, h,
                           list(bg), 100 * fg, n_colours, grey_std,
                           (": " + "; ".join(problems)) if problems else ""))
sys.exit(1 if problems else 0)
