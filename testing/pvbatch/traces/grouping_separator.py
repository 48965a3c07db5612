# trace generated using paraview version 5.11.0 (a session with
# IOSSReader, as the Python trace records it; the parity test runs it as
# written and with MxNReader in place of IOSSReader)
#### import the simple module from the paraview
from paraview.simple import *
#### disable automatic camera reset on 'Show'
paraview.simple._DisableFirstRenderCameraReset()

# create a new 'IOSS Reader'
se30 = IOSSReader(registrationName='s.e.3.0*', FileName=['GEN_DIR/names/s.e.3.0'])
se30.ElementBlocks = ['block_10', 'block_20']
se30.NodeBlockFields = ['a_1', 'a_2', 'disp']
se30.ElementBlockFields = ['attr_gid', 'attribute', 'elem_block_only', 'elem_gid_time']

# Properties modified on se30
se30.FieldSuffixSeparator = '_'
se30.NodeSets = ['x_min']
se30.SideSets = ['y_min']

# get animation scene
animationScene1 = GetAnimationScene()

# update animation scene based on data timesteps
animationScene1.UpdateAnimationUsingDataTimeSteps()
animationScene1.GoToLast()
