# Polyhedral and polygonal meshes (issue 7): NSIDED/NFACED blocks through
# every path. Included from testing/CMakeLists.txt.

# Core: structure, whole and partial reads against the Exodus API, split/join
# round trips, and the parallel load (N equals serial, ghosts equal a brute
# force) at 2, 3 and 4 ranks.
mxn_add_gtest_exodus(test_poly unit/test_poly.cpp)
add_dependencies(test_poly mxn_cli)
mxn_add_mpi_runs(test_poly 2 3 4)

# CLI: split -> repart (every method, ghosts) -> join equals the original.
add_test(NAME cli_poly_np3
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/poly.sh $<TARGET_FILE:mxn_cli>
          $<TARGET_FILE:mxn_gen> ${MXN_MPIEXEC} 3 ${MXN_TEST_TMP}/cli_poly_np3)
set_tests_properties(cli_poly_np3 PROPERTIES TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
