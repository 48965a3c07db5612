# MxNReader proxy and reader tests (pvbatch under mpiexec). Included at the
# end of testing/CMakeLists.txt. Tests that read the shared data exit 77
# (skipped) when it is absent. Costs measured on the 2-core CI machine, idle.
if(NOT MXN_BUILD_PLUGIN OR NOT PVBATCH)
  return()
endif()

set(MXN_PLUGIN_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# Quadratic and shell elements (HEX20/27, TETRA10, WEDGE15, PYRAMID13,
# SHELL8) with a side set of all their sides, written through ncgen.
find_package(Python3 COMPONENTS Interpreter)
set(MXN_READER_QUADRATIC ${MXN_TEST_TMP}/reader_quadratic/quadratic.exo)
add_test(NAME pvbatch_reader_quadratic_gen
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/make_quadratic.py
          ${MXN_READER_QUADRATIC})
set_tests_properties(pvbatch_reader_quadratic_gen PROPERTIES TIMEOUT 60
  FIXTURES_SETUP mxn_reader_quadratic)

# Proxy, names, block and side sizes against IOSSReader (the shared meshes
# and the quadratic file), selections, pieces, balance options, errors then
# a good file (reader_options.py), at 1 and 3 ranks.
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} mxn_reader_quadratic reader_options reader_options.py
                   ${MXN_SHARED_DATA} ${MXN_TEST_TMP}/reader_options_np${np}
                   ${MXN_READER_QUADRATIC})
endforeach()

# Displacements and mode shapes (displacements.py): a hex box with a
# nodal displacement vector (mxn_gen --displacement), split into 4 files.
set(MXN_DISP_DIR ${MXN_TEST_TMP}/displacements)
add_test(NAME pvbatch_displacements_gen
  COMMAND bash -c "rm -rf '${MXN_DISP_DIR}' && mkdir -p '${MXN_DISP_DIR}' && \
'$<TARGET_FILE:mxn_gen>' --type hex --dims 10 6 4 --blocks 2 --steps 3 --displacement '${MXN_DISP_DIR}/d.e' && \
'$<TARGET_FILE:mxn_cli>' split '${MXN_DISP_DIR}/d.e' '${MXN_DISP_DIR}/s.e' -n 4 --quiet")
set_tests_properties(pvbatch_displacements_gen PROPERTIES TIMEOUT 60
  FIXTURES_SETUP mxn_displacements)
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} mxn_displacements displacements displacements.py
                   ${MXN_DISP_DIR}/s.e.4.0 ${MXN_DISP_DIR}/d.e 10 6 4 3)
endforeach()

# Element ids (original ids of nem_spread's sets), file_id and element
# attributes against IOSSReader (ids_fileid.py); file_id after
# re-balancing on a hot spot set split into 3 (named `.e.3.j`: IOSSReader
# finds the other members of such names only).
set(MXN_IDS_DIR ${MXN_TEST_TMP}/ids_fileid)
add_test(NAME pvbatch_ids_fileid_gen
  COMMAND bash -c "rm -rf '${MXN_IDS_DIR}' && mkdir -p '${MXN_IDS_DIR}' && \
'$<TARGET_FILE:mxn_gen>' --type hex --dims 24 24 2 --steps 20 --hot-spot '${MXN_IDS_DIR}/serial.e' && \
'$<TARGET_FILE:mxn_cli>' split '${MXN_IDS_DIR}/serial.e' '${MXN_IDS_DIR}/hs.e' -n 3 --quiet")
set_tests_properties(pvbatch_ids_fileid_gen PROPERTIES TIMEOUT 120 FIXTURES_SETUP mxn_ids_fileid)
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} mxn_ids_fileid ids_fileid ids_fileid.py
                   ${MXN_SHARED_DATA} ${MXN_IDS_DIR}/hs.e.3.0)
endforeach()

# A 2D quad set (side sets are edges), split into 3 files.
set(MXN_READER_QUAD_DIR ${MXN_TEST_TMP}/reader_sets_quad)
add_test(NAME pvbatch_reader_sets_quad_gen
  COMMAND bash -c "mkdir -p '${MXN_READER_QUAD_DIR}' && \
'$<TARGET_FILE:mxn_gen>' --type quad --dims 12 7 --steps 2 '${MXN_READER_QUAD_DIR}/q.e' && \
'$<TARGET_FILE:mxn_cli>' split '${MXN_READER_QUAD_DIR}/q.e' '${MXN_READER_QUAD_DIR}/r.e' -n 3")
set_tests_properties(pvbatch_reader_sets_quad_gen PROPERTIES TIMEOUT 300
  FIXTURES_SETUP mxn_reader_quad)

# Node and side sets, ghosts and every time step against ExodusIIReader
# (reader_totals.py --sets). One rank count per case keeps the cost down;
# together they cover N = 1..4.
foreach(case
    "mug_ghosts2|${MXN_SHARED_DATA}/nemesis/mug/inertial-M4/mug.e.4.0|Files|2|--ghosts;2"
    "crush_rcb|${MXN_SHARED_DATA}/nemesis/block_crush_1/scattered-M3/block_crush_1.e.3.0|RCB|3|"
    "disk64|${MXN_SHARED_DATA}/nemesis/disk_out_ref/inertial-M4-int64/disk_out_ref.e.4.0|SFC|4|"
    "coarse2d|${MXN_SHARED_DATA}/nemesis/coarseGrid/random-M3/coarseGrid.e.3.0|Files|1|"
    "mixed|${MXN_TEST_TMP}/reader_totals_mixed/y.e.3.0|Graph|3|"
    "quad|${MXN_READER_QUAD_DIR}/r.e.3.0|HSFC|2|"
    # The remaining shared sets, so every set in ../shared/data is compared
    # with ExodusIIReader at least once: two written by ParaView's own
    # Exodus writer, the other Nemesis layouts.
    "pv_wavelet|${MXN_SHARED_DATA}/spread/paraview-writer/wavelet20.ex2.3.0|Files|2|"
    "pv_disk4|${MXN_SHARED_DATA}/spread/paraview-writer/disk4.ex2.4.0|RCB|3|--ghosts;1"
    "coarse_m4|${MXN_SHARED_DATA}/nemesis/coarseGrid/inertial-M4/coarseGrid.e.4.0|SFC|3|"
    "crush_m3|${MXN_SHARED_DATA}/nemesis/block_crush_1/inertial-M3/block_crush_1.e.3.0|Graph|2|"
    "disk_m7|${MXN_SHARED_DATA}/nemesis/disk_out_ref/multikl-M7/disk_out_ref.e.7.0|Files|4|"
    "disk_m4|${MXN_SHARED_DATA}/nemesis/disk_out_ref/inertial-M4/disk_out_ref.e.4.0|RIB|2|")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 tag)
  list(GET case 1 file)
  list(GET case 2 method)
  list(GET case 3 np)
  list(LENGTH case n)
  set(extra)
  if(n GREATER 4)
    list(SUBLIST case 4 -1 extra)
  endif()
  set(fixture)
  if(tag STREQUAL "mixed")
    set(fixture mxn_reader_mixed)
  elseif(tag STREQUAL "quad")
    set(fixture mxn_reader_quad)
  endif()
  mxn_pvbatch_case(reader ${np} "${fixture}" reader_sets_${tag} reader_totals.py
                   ${file} ${method} --sets ${extra})
endforeach()

# The install tree: cmake --install puts the plugin where ParaView finds it
# (PV_PLUGIN_PATH), and pvbatch loads it from there.
add_test(NAME plugin_install
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/plugin_install.sh
          ${CMAKE_BINARY_DIR} ${MXN_TEST_TMP}/plugin_install ${PVBATCH}
          ${MXN_SHARED_DATA}/meshes/mug.e)
set_tests_properties(plugin_install PROPERTIES TIMEOUT 300)

# Parity with IOSSReader (issue 58, pvbatch/parity.py): every shared dataset
# and one generated set of each kind (parity_gen.sh: classic, netCDF-4,
# compressed, int64, polyhedra, polygons, quadratic and shell elements, an
# adaptive series) read by IOSSReader (ExodusIIReader where IOSSReader
# cannot) and by MxNReader with the same properties, default and all
# selected, compared leaf by leaf over the ranks at the last time step.
# The generated sets alone run when the shared data is absent.
set(MXN_PARITY_DIR ${MXN_TEST_TMP}/parity)
add_test(NAME pvbatch_parity_gen
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/parity_gen.sh $<TARGET_FILE:mxn_gen>
          $<TARGET_FILE:mxn_cli> ${MXN_PARITY_DIR}/gen)
set_tests_properties(pvbatch_parity_gen PROPERTIES TIMEOUT 120 FIXTURES_SETUP mxn_parity_gen)
foreach(mode default all)
  foreach(np 1 3)
    add_test(NAME pvbatch_parity_${mode}_np${np}
      COMMAND ${MXN_MPIEXEC} --oversubscribe -n ${np} ${PVBATCH} --symmetric
              ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/parity.py $<TARGET_FILE:MxNReader>
              ${MXN_SHARED_DATA} ${MXN_PARITY_DIR}/gen ${mode}
              --report ${MXN_PARITY_DIR}/report_${mode}_np${np}.json)
    set_tests_properties(pvbatch_parity_${mode}_np${np} PROPERTIES TIMEOUT 300
      SKIP_RETURN_CODE 77 ENVIRONMENT "${MXN_PLUGIN_ENV}"
      FIXTURES_REQUIRED mxn_parity_gen)
  endforeach()
endforeach()
# Scripts recorded against IOSSReader (testing/pvbatch/traces/), run as
# written and with MxNReader in its place: the same output.
file(GLOB MXN_PARITY_TRACES ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/traces/*.py)
foreach(np 1 3)
  add_test(NAME pvbatch_parity_trace_np${np}
    COMMAND ${MXN_MPIEXEC} --oversubscribe -n ${np} ${PVBATCH} --symmetric
            ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/parity.py $<TARGET_FILE:MxNReader>
            ${MXN_SHARED_DATA} ${MXN_PARITY_DIR}/gen trace ${MXN_PARITY_TRACES})
  set_tests_properties(pvbatch_parity_trace_np${np} PROPERTIES TIMEOUT 300
    SKIP_RETURN_CODE 77 ENVIRONMENT "${MXN_PLUGIN_ENV}" FIXTURES_REQUIRED mxn_parity_gen)
endforeach()

# Sets shown whole whatever blocks are selected (issue 58,
# pvbatch/sets_unselected.py): node and side sets on an unselected block of
# block_crush_1's spread set, against IOSSReader, each entry owned once.
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} "" sets_unselected sets_unselected.py ${MXN_SHARED_DATA})
endforeach()

# Edge and face sets whose edges and faces only unselected blocks' elements
# or no element refer to (issue 58, pvbatch/edge_face_unselected.py): each
# entry owned once, as with every block selected and as written.
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} "" edge_face_unselected edge_face_unselected.py
                   ${MXN_TEST_TMP}/edge_face_unselected_np${np})
endforeach()

# Files from other writers (issue 58, testing/writers/: meshio's Exodus
# layout, libMesh's Nemesis output after adaptivity): what ParaView's
# readers open, MxNReader opens with the same cells, points by id and
# arrays (parity.py over the writers_gen files alone, default selections),
# with at most one warning per file naming it.
foreach(np 1 3)
  add_test(NAME pvbatch_writers_np${np}
    COMMAND ${MXN_MPIEXEC} --oversubscribe -n ${np} ${PVBATCH} --symmetric
            ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/parity.py $<TARGET_FILE:MxNReader>
            ${MXN_TEST_TMP}/writers/no-shared-data ${MXN_TEST_TMP}/writers/open default
            --datasets-only --max-warnings 1 --report ${MXN_TEST_TMP}/writers/report_np${np}.json)
  set_tests_properties(pvbatch_writers_np${np} PROPERTIES TIMEOUT 300
    SKIP_RETURN_CODE 77 ENVIRONMENT "${MXN_PLUGIN_ENV}" FIXTURES_REQUIRED mxn_writers)
endforeach()

# Edge and face blocks, element/face/edge sets and set variables (issue 58,
# pvbatch/edge_face_sets.py): each edge, face and set entry owned once over
# the ranks, against IOSSReader and the generator's formulas, both steps.
foreach(np 1 3)
  mxn_pvbatch_case(plugin ${np} "" edge_face_sets edge_face_sets.py
                   ${MXN_TEST_TMP}/edge_face_sets_np${np})
endforeach()
