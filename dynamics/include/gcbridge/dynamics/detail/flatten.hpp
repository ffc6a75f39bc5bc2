#pragma once
/// @file
/// GCBRIDGE_FLATTEN, for the functions holding the hot loops of the dynamics and the bridge.
/// Internal to gcbridge.

/// Marks the function holding an algorithm's loops: every call in it (spatial algebra, Eigen
/// expressions, the joint kernels a dispatch chooses between) is inlined. Left to its size limits,
/// GCC keeps small operations such as cross products, and a dispatch's per-kernel code, out of
/// line in these long functions, which costs a large part of their time.
/// Off under the sanitizers: inlining everything into an instrumented function makes it too big
/// for the compiler to finish in reasonable time and memory.
#if defined(__SANITIZE_ADDRESS__)
#define GCBRIDGE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCBRIDGE_SANITIZED 1
#endif
#endif
#if defined(__GNUC__) && !defined(GCBRIDGE_SANITIZED)
#define GCBRIDGE_FLATTEN __attribute__((flatten))
#else
#define GCBRIDGE_FLATTEN
#endif
