# Sanitizers and fuzzing in the test suite (issue 9). Included at the end of
# testing/CMakeLists.txt.

# Replays of the fuzzers' seeds and regression inputs (testing/fuzz), in
# every test build; the fuzz build itself (MXN_FUZZ) adds testing/fuzz from
# the top level instead.
if(NOT MXN_FUZZ)
  add_subdirectory(fuzz)
endif()
# The partition map parser the fuzzer drives (a private core header).
mxn_add_gtest(test_partmap unit/test_partmap.cpp)
target_include_directories(test_partmap PRIVATE ${MXN_CORE_PRIVATE_INCLUDE_DIRS})
# The fuzzers' findings reproduced with the outcome the fixed core gives.
mxn_add_gtest(test_fuzz_regress unit/test_fuzz_regress.cpp)
target_compile_definitions(test_fuzz_regress PRIVATE
  MXN_FUZZ_REGRESS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regress")

# sanitize_build, then sanitize_asan_ubsan: testing/sanitize.sh builds the
# core, CLI, generator and tests with -fsanitize=address,undefined in
# <build>/asan (no plugin; --build-only), and runs their ctest cases there
# (--test-only). The build is a fixture started first (its COST), so that
# it runs beside the other tests rather than alone after them: neither
# case is RUN_SERIAL. Nothing else reads or writes <build>/asan, and each
# case's Open MPI session directory is its own (mxn_own_mpi_session_dirs),
# so they are safe beside any other test. Not registered inside the
# sanitizer build itself.
if(MXN_SANITIZE)
  # A sanitized mxn process starts several times slower: ~150 of them.
  # It is the longest case of sanitize.sh's run: started first.
  set_tests_properties(cli_bad_input PROPERTIES TIMEOUT 900 COST 1000)
  # The CLI tests run without LeakSanitizer (testing/sanitize.sh): ASan
  # takes the last of repeated options, so they append detect_leaks=0 to
  # the ASAN_OPTIONS sanitize.sh sets for the run.
  get_property(mxn_all_tests DIRECTORY PROPERTY TESTS)
  foreach(t ${mxn_all_tests})
    if(t MATCHES "^cli_")
      set_tests_properties(${t} PROPERTIES
        ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
    endif()
  endforeach()
  return()
endif()
option(MXN_TEST_SANITIZE "Register the ASan + UBSan build-and-test case (sanitize_asan_ubsan)" ON)
if(MXN_TEST_SANITIZE)
  add_test(NAME sanitize_build
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sanitize.sh --build-only ${CMAKE_BINARY_DIR}/asan)
  add_test(NAME sanitize_asan_ubsan
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sanitize.sh --test-only ${CMAKE_BINARY_DIR}/asan)
  # The build is the first link of the longest chain of the suite: started
  # first, and its tests as soon as it is done.
  set_tests_properties(sanitize_build PROPERTIES TIMEOUT 1500 COST 5000
    FIXTURES_SETUP mxn_asan_build)
  set_tests_properties(sanitize_asan_ubsan PROPERTIES TIMEOUT 900 COST 4000
    FIXTURES_REQUIRED mxn_asan_build)
endif()
