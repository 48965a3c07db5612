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

# Out of memory on one rank (failalloc.so fails the n-th allocation the mxn
# executable, or the plugin's library, makes on rank 1 of 3): the load
# (stats), the rewrite (repart), per-step re-balancing three ways, the
# serial join and split, and MxNReader in pvbatch must each end on every
# rank with an error or the same result, never hang or crash, and a
# failed repart, join or split leaves no output file behind. A sample of
# 48 allocations per command here (every 4th run also fails all later
# ones), 24 for the reader; run_failalloc.py --all tries every one.
# Not in the sanitizer build: ASan's allocator must come before any
# preloaded one.
if(NOT MXN_SANITIZE)
  add_library(mxn_failalloc MODULE reliability/failalloc.c)
  set_target_properties(mxn_failalloc PROPERTIES PREFIX "" OUTPUT_NAME failalloc)
  target_link_libraries(mxn_failalloc PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
  set(mxn_failalloc_args --np 3 --ranks 1 --sample 48 --timeout 60)
  if(MXN_BUILD_PLUGIN AND PVBATCH)
    list(APPEND mxn_failalloc_args --scenarios stats,repart,steps,shift,diffusion,join,split,plugin
         --pvbatch ${PVBATCH} --plugin $<TARGET_FILE:MxNReader> --plugin-sample 24)
  endif()
  add_test(NAME reliability_failalloc_np3
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/run_failalloc.py
            $<TARGET_FILE:mxn_cli> $<TARGET_FILE:mxn_gen> ${MXN_MPIEXEC}
            $<TARGET_FILE:mxn_failalloc> ${MXN_TEST_TMP}/failalloc ${mxn_failalloc_args})
  set_tests_properties(reliability_failalloc_np3 PROPERTIES TIMEOUT 1200
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  # Every exchange between ranks: for each place the core (or the CLI)
  # calls MPI on rank 1 of 3, the last allocation before it fails, alone
  # and with every later one; the load, the rewrite, the three re-balances,
  # untrusted element ids and an adaptive series (testing/README.md lists
  # the exchanges and the scenario reaching each).
  add_test(NAME reliability_failalloc_exchanges_np3
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/reliability/run_failalloc.py
            $<TARGET_FILE:mxn_cli> $<TARGET_FILE:mxn_gen> ${MXN_MPIEXEC}
            $<TARGET_FILE:mxn_failalloc> ${MXN_TEST_TMP}/failalloc_exchanges
            --np 3 --ranks 1 --exchanges --timeout 60
            --scenarios stats,repart,steps,shift,diffusion,ids,series)
  set_tests_properties(reliability_failalloc_exchanges_np3 PROPERTIES TIMEOUT 2400
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
