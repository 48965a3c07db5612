// Shared main for the unit tests: MPI is initialized because the core's
// partitioners (Zoltan) need it, even for single-process use.
#include <gtest/gtest.h>
#include <mpi.h>

// In the ASan build (testing/sanitize.sh) leaks are checked here, after the
// tests and before MPI_Finalize: Open MPI's state is still reachable then,
// and what it allocates in MPI_Init is not checked at all, so no Open MPI
// suppression is needed and LeakSanitizer can use its fast unwinder (the
// full-stack one, needed to recognize Open MPI's frames at exit, made
// HDF5-heavy tests 10x slower).
#if defined(__SANITIZE_ADDRESS__)
#define MXN_TEST_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MXN_TEST_LSAN 1
#endif
#endif
#ifdef MXN_TEST_LSAN
#include <sanitizer/lsan_interface.h>
#endif

int main(int argc, char **argv) {
#ifdef MXN_TEST_LSAN
  __lsan_disable();
#endif
  MPI_Init(&argc, &argv);
#ifdef MXN_TEST_LSAN
  __lsan_enable();
#endif
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
#ifdef MXN_TEST_LSAN
  if (__lsan_do_recoverable_leak_check()) rc = 1;
#endif
  MPI_Finalize();
  return rc;
}
