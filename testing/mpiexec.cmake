# Every mpiexec the tests start, directly or from their scripts, goes
# through mpiexec.sh, which gives each one a fresh Open MPI session
# directory (see there why). MXN_MPIEXEC stays the found mpiexec in the
# cache; from here on in this directory it names a launcher in the build
# tree that runs mpiexec.sh with that mpiexec.
set(MXN_MPIEXEC_REAL "${MXN_MPIEXEC}")
set(mxn_launcher_dir "${CMAKE_CURRENT_BINARY_DIR}/launcher")
file(WRITE "${mxn_launcher_dir}/mpiexec"
  "#!/bin/sh\n"
  "# Made by testing/mpiexec.cmake: mpiexec with a session directory of its own.\n"
  "MXN_MPIEXEC_REAL='${MXN_MPIEXEC_REAL}' exec bash '${CMAKE_CURRENT_SOURCE_DIR}/mpiexec.sh' \"$@\"\n")
file(COPY "${mxn_launcher_dir}/mpiexec" DESTINATION "${CMAKE_CURRENT_BINARY_DIR}"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                   WORLD_READ WORLD_EXECUTE)
set(MXN_MPIEXEC "${CMAKE_CURRENT_BINARY_DIR}/mpiexec")
