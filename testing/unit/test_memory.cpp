// Unit tests for mxn/memory.h: the huge-page advice for large buffers.
//
// The advice must cover exactly the whole 2 MiB pages inside the buffer
// (the kernel marks such a range "hg" in /proc/self/smaps), leave the
// memory around it alone and never change the contents; small buffers and
// NULL are left alone.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <mxn/mxn.h>

namespace {

const uintptr_t kHuge = uintptr_t(2) << 20;

// Whether the kernel can give transparent huge pages on advice.
bool ThpAdvisable() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(f, line) && line.find("[never]") == std::string::npos;
}

// The VmFlags line of the mapping of /proc/self/smaps holding address a.
std::string VmFlagsAt(const void* a) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a);
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {
      inside = x >= lo && x < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool HasHugeAdvice(const void* a) {
  std::istringstream flags(VmFlagsAt(a));
  std::string w;
  while (flags >> w)
    if (w == "hg") return true;
  return false;
}

// An anonymous mapping, unmapped at the end of the test.
struct Mapping {
  explicit Mapping(size_t n) : size(n) {
    void* q = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p = q == MAP_FAILED ? nullptr : static_cast<unsigned char*>(q);
  }
  ~Mapping() {
    if (p) munmap(p, size);
  }
  unsigned char* p;
  size_t size;
};

}  // namespace

TEST(Memory, AdviceCoversTheWholeHugePagesInsideAndKeepsTheContents) {
  Mapping m(size_t(24) << 20);
  ASSERT_NE(m.p, nullptr);
  // A buffer that starts and ends inside huge pages: 1 MiB + 12 bytes in,
  // 16 MiB + 100 bytes long.
  unsigned char* buf = m.p + (size_t(1) << 20) + 12;
  const size_t n = (size_t(16) << 20) + 100;
  for (size_t i = 0; i < n; ++i) buf[i] = static_cast<unsigned char>(i * 7 + 3);
  mxn_advise_large(buf, n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(buf[i], static_cast<unsigned char>(i * 7 + 3)) << "byte " << i << " changed";

  if (!ThpAdvisable()) GTEST_SKIP() << "no transparent huge pages on this kernel";
  const uintptr_t b = reinterpret_cast<uintptr_t>(buf);
  const uintptr_t first = (b + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t last = ((b + n) & ~(kHuge - 1)) - 1;  // last byte advised
  ASSERT_LT(first, last);
  EXPECT_TRUE(HasHugeAdvice(reinterpret_cast<void*>(first))) << VmFlagsAt(buf);
  EXPECT_TRUE(HasHugeAdvice(reinterpret_cast<void*>(last)));
  // Outside: the partial huge pages at both ends and the rest of the mapping.
  EXPECT_FALSE(HasHugeAdvice(m.p));
  EXPECT_FALSE(HasHugeAdvice(reinterpret_cast<void*>(first - 1)));
  EXPECT_FALSE(HasHugeAdvice(reinterpret_cast<void*>(last + 1)));
  EXPECT_FALSE(HasHugeAdvice(m.p + m.size - 1));
}

TEST(Memory, SmallBuffersAndNullAreLeftAlone) {
  mxn_advise_large(nullptr, size_t(1) << 30);  // no crash, nothing to do
  Mapping m(size_t(8) << 20);
  ASSERT_NE(m.p, nullptr);
  // Under MXN_LARGE_BUFFER, even though it holds a whole aligned huge page.
  const uintptr_t a = (reinterpret_cast<uintptr_t>(m.p) + kHuge - 1) & ~(kHuge - 1);
  std::memset(m.p, 0x5a, m.size);
  mxn_advise_large(reinterpret_cast<void*>(a), MXN_LARGE_BUFFER - 1);
  EXPECT_FALSE(HasHugeAdvice(reinterpret_cast<void*>(a)));
  for (size_t i = 0; i < m.size; ++i) ASSERT_EQ(m.p[i], 0x5a);
  // A buffer too short to hold a whole huge page: nothing to advise.
  mxn_advise_large(m.p + 1, 0);
  EXPECT_FALSE(HasHugeAdvice(m.p + 1));
}

namespace {
// How many of the pages of [a, a + n) are resident (mincore).
size_t ResidentPages(const unsigned char* a, size_t n) {
  const size_t pg = 4096;
  std::vector<unsigned char> v((n + pg - 1) / pg);
  if (mincore(const_cast<unsigned char*>(a), n, v.data()) != 0) return 0;
  size_t r = 0;
  for (unsigned char c : v) r += c & 1;
  return r;
}

// Whether this kernel backs pages on request (MADV_POPULATE_WRITE, Linux
// 5.14), asked of a mapping of its own.
bool PopulateSupported() {
  Mapping t(size_t(64) << 10);
  return t.p && madvise(t.p, t.size, 23 /* MADV_POPULATE_WRITE */) == 0;
}
}  // namespace

// A large buffer is backed before anything writes it (one call, not a
// fault per page), its contents kept; memory outside it is not.
TEST(Memory, LargeBufferIsBackedBeforeItIsWritten) {
  if (!PopulateSupported()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)";
  Mapping m(size_t(24) << 20);
  ASSERT_NE(m.p, nullptr);
  unsigned char* buf = m.p + (size_t(2) << 20);  // page-aligned, 16 MiB long
  const size_t n = size_t(16) << 20;
  EXPECT_EQ(0u, ResidentPages(m.p, m.size)) << "a fresh mapping has no pages yet";
  buf[5] = 42;  // one page written before: kept
  mxn_advise_large(buf, n);
  EXPECT_EQ(n / 4096, ResidentPages(buf, n)) << "every page of the buffer is backed";
  EXPECT_EQ(42, buf[5]);
  EXPECT_EQ(0, buf[6]);
  EXPECT_EQ(0u, ResidentPages(m.p, size_t(2) << 20)) << "memory before the buffer";
  EXPECT_EQ(0u, ResidentPages(buf + n, m.size - n - (size_t(2) << 20))) << "memory after it";
}

// A buffer written whole is backed from 256 KiB on, in small pages under
// MXN_LARGE_BUFFER (no huge-page advice there); a smaller one is left to
// fault in as it is written.
TEST(Memory, WholeBufferIsBackedFrom256KiB) {
  if (!PopulateSupported()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)";
  Mapping m(size_t(4) << 20);
  ASSERT_NE(m.p, nullptr);
  const size_t n = size_t(1) << 20, small = (size_t(256) << 10) - 4096;
  unsigned char* buf = m.p;
  unsigned char* other = m.p + (size_t(2) << 20);
  buf[7] = 9;
  mxn_advise_whole(buf, n);
  EXPECT_EQ(n / 4096, ResidentPages(buf, n)) << "every page of the 1 MiB buffer is backed";
  EXPECT_EQ(9, buf[7]);
  EXPECT_FALSE(HasHugeAdvice(buf)) << "under MXN_LARGE_BUFFER: no huge-page advice";
  EXPECT_EQ(0u, ResidentPages(buf + n, (size_t(1) << 20))) << "memory after it";
  mxn_advise_whole(other, small);
  EXPECT_EQ(0u, ResidentPages(other, small)) << "a buffer under 256 KiB is left alone";
  mxn_advise_whole(nullptr, n);  // no crash, nothing to do
}
