#pragma once
// A counting malloc: malloc, calloc and realloc (which Eigen and operator new both use) are
// interposed with wrappers around glibc's allocator that count calls. Include in exactly one
// source file of a test executable.

#include <atomic>
#include <cstddef>

namespace gcbridge::test {
inline std::atomic<long> g_allocations{0};

/// Number of heap allocations made by f().
template <typename F>
long allocationsOf(F&& f) {
  const long before = g_allocations.load();
  f();
  return g_allocations.load() - before;
}
}  // namespace gcbridge::test

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* malloc(std::size_t size) {
  ++gcbridge::test::g_allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  ++gcbridge::test::g_allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  ++gcbridge::test::g_allocations;
  return __libc_realloc(p, size);
}
}
