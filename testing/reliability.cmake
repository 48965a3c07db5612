# Bad-input corpus (issue 9): make_corpus.py edits copies of good generated
# data into broken datasets, map files and options; run_corpus.py runs every
# case through the CLI under `mpiexec -n 3` and through MxNReader in pvbatch
# (1 and 3 ranks), each case under a 10-second limit, and checks the
# documented outcome (cases.json "why" says what it is for each case).
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# midread: a member breaks between the load and a later step's read.
add_executable(mxn_midread reliability/midread.c)
target_link_libraries(mxn_midread PRIVATE mxn MPI::MPI_C m)

set(MXN_CORPUS ${MXN_TEST_TMP}/corpus)
add_test(NAME reliability_corpus_gen
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/make_corpus.py
          $<TARGET_FILE:mxn_cli> $<TARGET_FILE:mxn_gen> ${MXN_CORPUS})
set_tests_properties(reliability_corpus_gen PROPERTIES TIMEOUT 300
  FIXTURES_SETUP mxn_corpus)

add_test(NAME reliability_corpus_cli_np3
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/run_corpus.py cli
          ${MXN_CORPUS} ${MXN_TEST_TMP}/corpus_cli $<TARGET_FILE:mxn_cli> ${MXN_MPIEXEC}
          $<TARGET_FILE:mxn_midread> 3)
set_tests_properties(reliability_corpus_cli_np3 PROPERTIES TIMEOUT 1200
  FIXTURES_REQUIRED mxn_corpus
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

if(MXN_BUILD_PLUGIN AND PVBATCH)
  foreach(np 1 3)
    add_test(NAME reliability_corpus_plugin_np${np}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/run_corpus.py plugin
              ${MXN_CORPUS} ${MXN_TEST_TMP}/corpus_plugin_np${np} ${PVBATCH}
              $<TARGET_FILE:MxNReader> ${MXN_MPIEXEC} ${np})
    set_tests_properties(reliability_corpus_plugin_np${np} PROPERTIES TIMEOUT 1200
      FIXTURES_REQUIRED mxn_corpus
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endif()
