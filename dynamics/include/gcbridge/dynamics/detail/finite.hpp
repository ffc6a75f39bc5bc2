#pragma once
/// @file
/// A finiteness test for the per-step checks of vectors and matrices (q, v, tau, a QP's terms), in
/// one vectorized pass.
/// Internal to gcbridge (namespace detail): the API does not offer it.

#include <Eigen/Core>

namespace gcbridge::detail {

/// Whether every entry of x is finite. x * 0 is 0 for a finite x and NaN for a NaN or an
/// infinity, so the sum is 0 exactly when all are; the sum runs in SIMD packets, where Eigen's
/// allFinite compares entry by entry.
template <typename Derived>
bool allFinite(const Eigen::DenseBase<Derived>& x) {
  return (x.derived().array() * 0.0).sum() == 0.0;
}

}  // namespace gcbridge::detail
