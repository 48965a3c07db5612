# trace generated using paraview version 5.11.0 (a session with
# IOSSReader, as the Python trace records it; the parity test runs it as
# written and with MxNReader in place of IOSSReader)
#### import the simple module from the paraview
from paraview.simple import *
#### disable automatic camera reset on 'Show'
paraview.simple._DisableFirstRenderCameraReset()

# create a new 'IOSS Reader'
block_crush_1e30 = IOSSReader(registrationName='block_crush_1.e.3.0*', FileName=['SHARED_DATA/nemesis/block_crush_1/inertial-M3/block_crush_1.e.3.0'])
block_crush_1e30.ElementBlocks = ['block_1', 'block_2', 'rigidbodyoutputpart']
block_crush_1e30.NodeBlockFields = ['carea', 'cdirnor', 'cdirtan', 'celement', 'cetan', 'cftan', 'displ', 'vel']
block_crush_1e30.ElementBlockFields = ['processor_id', 'stress', 'vonmises']

# Properties modified on block_crush_1e30
block_crush_1e30.ElementBlocks = ['block_2', 'rigidbodyoutputpart']
block_crush_1e30.NodeSets = ['nodelist_10', 'nodelist_40']
block_crush_1e30.SideSets = ['surface_20']
block_crush_1e30.NodeBlockFields = ['displ', 'vel']
block_crush_1e30.ElementBlockFields = ['vonmises']
block_crush_1e30.DisplacementMagnitude = 2.5

# get animation scene
animationScene1 = GetAnimationScene()

# update animation scene based on data timesteps
animationScene1.UpdateAnimationUsingDataTimeSteps()
animationScene1.GoToLast()
