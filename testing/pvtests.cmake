# ParaView end-to-end tests of the MxNReader plugin (testing/gui/): images
# rendered by pvbatch against IOSSReader's, the `paraview` GUI client, and an
# MPI pvserver with a pvpython client. Included at the end of
# testing/CMakeLists.txt. Rendering needs an X server (the Debian ParaView
# 5.11 build renders through GLX only): every test starts its own Xvfb
# (testing/gui/xvfb_run.sh). Tests reading the shared data exit 77 (skipped)
# when it is absent. Every test bounds itself with `timeout` below the ctest
# TIMEOUT and stops the processes it started.
if(NOT MXN_BUILD_PLUGIN OR NOT PVBATCH)
  return()
endif()
find_program(MXN_PARAVIEW paraview)
find_program(MXN_PVSERVER pvserver)
find_program(MXN_PVPYTHON pvpython)
if(NOT MXN_PARAVIEW OR NOT MXN_PVSERVER OR NOT MXN_PVPYTHON)
  message(WARNING "paraview, pvserver or pvpython not found: the GUI and "
                  "client-server tests (testing/pvtests.cmake) are not registered")
  return()
endif()

set(MXN_GUI_SRC ${CMAKE_CURRENT_SOURCE_DIR}/gui)
set(MXN_GUI_TMP ${MXN_TEST_TMP}/gui)
set(MXN_GUI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# The generated set: a 16x10x8 hex box in 2 blocks (1280 elements, 1683
# nodes), 2 time steps, split into 4 files (rcb).
set(MXN_GUI_SET ${MXN_GUI_TMP}/data/box.e.4.0)
set(MXN_GUI_CELLS 1280)
set(MXN_GUI_NODES 1683)
add_test(NAME gui_data_gen
  COMMAND bash -c "rm -rf '${MXN_GUI_TMP}/data' && mkdir -p '${MXN_GUI_TMP}/data' && \
'$<TARGET_FILE:mxn_gen>' --type hex --dims 16 10 8 --blocks 2 --steps 2 '${MXN_GUI_TMP}/data/box_serial.e' && \
'$<TARGET_FILE:mxn_cli>' split '${MXN_GUI_TMP}/data/box_serial.e' '${MXN_GUI_TMP}/data/box.e' -n 4 --quiet")
set_tests_properties(gui_data_gen PROPERTIES TIMEOUT 60 FIXTURES_SETUP mxn_gui_data)

# 1. MxNReader's image against IOSSReader's (point and cell field), at 1 and
#    3 ranks: the generated set, and mug (2 blocks, 21 steps, ids not 1..N).
foreach(case
    "gen|${MXN_GUI_SET}|node_gid_time|elem_gid_time|1;3"
    "mug|${MXN_SHARED_DATA}/nemesis/mug/inertial-M4/mug.e.4.0|convected|aux_elem|1;3")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 tag)
  list(GET case 1 file)
  list(GET case 2 pfield)
  list(GET case 3 cfield)
  list(SUBLIST case 4 -1 nps)
  foreach(np ${nps})
    set(tname gui_render_${tag}_np${np})
    add_test(NAME ${tname}
      COMMAND bash ${MXN_GUI_SRC}/render_compare.sh ${MXN_MPIEXEC} ${np} ${PVBATCH}
              $<TARGET_FILE:MxNReader> ${file} ${MXN_GUI_TMP}/render_${tag} ${pfield} ${cfield})
    set_tests_properties(${tname} PROPERTIES TIMEOUT 200 SKIP_RETURN_CODE 77
      ENVIRONMENT "${MXN_GUI_ENV}")
    if(tag STREQUAL "gen")
      set_tests_properties(${tname} PROPERTIES FIXTURES_REQUIRED mxn_gui_data)
    endif()
  endforeach()
endforeach()

# 2. The GUI client: plugin loaded at start-up, the spread set shown, the
#    screenshot not blank.
add_test(NAME gui_paraview_smoke
  COMMAND bash ${MXN_GUI_SRC}/gui_smoke.sh $<TARGET_FILE:MxNReader> ${MXN_GUI_SET}
          node_gid_time ${MXN_GUI_CELLS} ${MXN_GUI_TMP}/paraview_smoke)
set_tests_properties(gui_paraview_smoke PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED mxn_gui_data)

# 3. A 3-process pvserver with the plugin on PV_PLUGIN_PATH and a pvpython
#    client: totals and pieces, bad files, the good file again.
add_test(NAME gui_pvserver_np3
  COMMAND bash ${MXN_GUI_SRC}/pvserver_session.sh $<TARGET_FILE:MxNReader> ${MXN_MPIEXEC} 3
          ${MXN_GUI_SET} ${MXN_GUI_CELLS} ${MXN_GUI_NODES} ${MXN_GUI_TMP}/pvserver_np3)
set_tests_properties(gui_pvserver_np3 PROPERTIES TIMEOUT 250 SKIP_RETURN_CODE 77
  ENVIRONMENT "${MXN_GUI_ENV}" FIXTURES_REQUIRED mxn_gui_data)

# The same session with one more bad set: member 2's connectivity points at
# node 999999, which only the ranks reading that member find. The core
# agrees every rank-local failure before the next collective, so every
# server rank reports the error and the session goes on (before that fix
# the others waited in a collective: MPI_ERR_TRUNCATE, MPI_ABORT, and the
# whole pvserver died).
add_test(NAME gui_pvserver_badconn_np3
  COMMAND bash ${MXN_GUI_SRC}/pvserver_session.sh $<TARGET_FILE:MxNReader> ${MXN_MPIEXEC} 3
          ${MXN_GUI_SET} ${MXN_GUI_CELLS} ${MXN_GUI_NODES} ${MXN_GUI_TMP}/pvserver_badconn_np3
          --bad-connectivity)
set_tests_properties(gui_pvserver_badconn_np3 PROPERTIES TIMEOUT 250 SKIP_RETURN_CODE 77
  ENVIRONMENT "${MXN_GUI_ENV}" FIXTURES_REQUIRED mxn_gui_data)

# 4. The README's main job (testing/demo.sh, M = 4 files on N = 3 ranks with
#    one ghost level): split, join, diff, then the plugin in pvbatch with a
#    screenshot and a per-rank summary whose owned cells must add up to the
#    element count. Writes into data/generated/demo (not committed).
add_test(NAME demo_main_job
  COMMAND bash ${PROJECT_SOURCE_DIR}/testing/demo.sh 4 3)
set_tests_properties(demo_main_job PROPERTIES TIMEOUT 300
  ENVIRONMENT "${MXN_GUI_ENV};MXN_BUILD_DIR=${PROJECT_BINARY_DIR}"
  PASS_REGULAR_EXPRESSION "demo: nothing lost; 4 files read as 3 balanced pieces with ghost cells")
