# trace generated using paraview version 5.11.0 (a session with
# IOSSReader, as the Python trace records it; the parity test runs it as
# written and with MxNReader in place of IOSSReader)
#### import the simple module from the paraview
from paraview.simple import *
#### disable automatic camera reset on 'Show'
paraview.simple._DisableFirstRenderCameraReset()

# create a new 'IOSS Reader'
testassemblyexo = IOSSReader(registrationName='test-assembly.exo', FileName=['SHARED_DATA/meshes/test-assembly.exo'])
testassemblyexo.ElementBlocks = ['block_10', 'block_11', 'block_12', 'block_13', 'block_14', 'block_15', 'block_16']

# Properties modified on testassemblyexo
testassemblyexo.ElementBlocks = ['block_11']
testassemblyexo.AssemblySelectors = ['/Assemblies/FromPython/Root/Child4']
testassemblyexo.ApplyDisplacements = 0
testassemblyexo.ReadQAAndInformationRecords = 0
