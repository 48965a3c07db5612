/* Runs a libFuzzer harness without libFuzzer: every file named on the
 * command line, and every regular file in a directory named there, is
 * passed once to LLVMFuzzerTestOneInput(). Used by the ctest cases
 * fuzz_replay_* (testing/fuzz/CMakeLists.txt) to replay the inputs that once
 * crashed, under any compiler and in the ASan + UBSan build. The harness
 * aborts on a violated check; exit 0 means every input passed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* In the ASan build the leak check runs here, explicitly (testing/sanitize.sh
 * turns the at-exit one off). */
#if defined(__SANITIZE_ADDRESS__)
#define MXN_REPLAY_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MXN_REPLAY_LSAN 1
#endif
#endif
#ifdef MXN_REPLAY_LSAN
#include <sanitizer/lsan_interface.h>
#endif

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *b2 = realloc(buf, cap *= 2);
      if (!b2) free(buf);
      buf = b2;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return 1;
  }
  printf("replay: %s (%zu bytes)\n", path, n);
  fflush(stdout);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      bad++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad += run_file(argv[i]);
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
      if (e->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
        bad += run_file(p);
        count++;
      }
    }
    if (d) closedir(d);
  }
  printf("replay: %d input(s), %d unreadable\n", count, bad);
#ifdef MXN_REPLAY_LSAN
  if (__lsan_do_recoverable_leak_check()) return 1;
#endif
  return bad ? 1 : 0;
}
