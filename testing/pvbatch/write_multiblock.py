"""Write spread sets with ParaView's own ExodusIIWriter from a multi-block
input, as a user would save one (the sets of issue 43's "ids that cannot be
trusted"): two 4 x 2 x 2 hex boxes side by side (x 0..4 and 4..8), grouped,
with the point field RTData, its cell average RTData and a copy of that,
RTDataCell.

usage: mpiexec -n 3 pvbatch write_multiblock.py OUTDIR

Writes, one member per rank:
  OUTDIR/perblock.ex2.N.*  global ids made per block (GenerateGlobalIds on
                           each box): every member repeats element and node
                           ids between its two blocks;
  OUTDIR/whole.ex2.N.*     global ids made over the group: unique, 0-based.
"""
import os
import sys

if len(sys.argv) != 2:
    print("usage: pvbatch write_multiblock.py OUTDIR")
    sys.exit(2)
out = os.path.abspath(sys.argv[1])

from paraview.simple import *  # noqa: E402,F401,F403


def box(x0):
    w = Wavelet(WholeExtent=[x0, x0 + 4, 0, 2, 0, 2])
    return PointDatatoCellData(Input=CleantoGrid(Input=w), PassPointData=1)


a, b = box(0), box(4)
ca = Calculator(Input=a, AttributeType="Cell Data", ResultArrayName="RTDataCell",
                Function="RTData")
cb = Calculator(Input=b, AttributeType="Cell Data", ResultArrayName="RTDataCell",
                Function="RTData")
perblock = GroupDatasets(Input=[GenerateGlobalIds(Input=ca), GenerateGlobalIds(Input=cb)])
SaveData(os.path.join(out, "perblock.ex2"), proxy=perblock)
whole = GenerateGlobalIds(Input=GroupDatasets(Input=[ca, cb]))
SaveData(os.path.join(out, "whole.ex2"), proxy=whole)
