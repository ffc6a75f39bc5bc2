#pragma once
/// @file
/// The Cholesky factor of a small dense symmetric positive definite matrix, unblocked: at the
/// sizes of a controller's QP (tens of unknowns) it takes about half the time of Eigen's blocked
/// LLT (docs/benchmarks.md), and it keeps its storage between factorizations.

#include <Eigen/Core>
#include <cmath>

namespace gcbridge::detail {

/// A = L L^T, L lower triangular, column by column, each by one matrix-vector product (the
/// "gaxpy" Cholesky of Golub & Van Loan, "Matrix Computations", sec. 4.2).
class Cholesky {
 public:
  /// Factors A's lower triangle (its upper one is not read). @return false if A is not positive
  /// definite (a pivot not positive or not finite); the factor is then meaningless.
  bool compute(const Eigen::Ref<const Eigen::MatrixXd>& A) {
    n_ = A.rows();
    L_ = A;
    return factor();
  }
  /// As above, and the rows of B (m x n) carried along below A, as the rows of L would be:
  /// carried() = B L^-T, the transpose of L^-1 B^T, within the same matrix-vector products.
  bool compute(const Eigen::Ref<const Eigen::MatrixXd>& A,
               const Eigen::Ref<const Eigen::MatrixXd>& B) {
    n_ = A.rows();
    L_.resize(n_ + B.rows(), n_);
    L_.topRows(n_) = A;
    L_.bottomRows(B.rows()) = B;
    return factor();
  }

  auto matrixL() const { return L_.topRows(n_).triangularView<Eigen::Lower>(); }
  auto matrixU() const { return L_.topRows(n_).transpose().triangularView<Eigen::Upper>(); }
  /// B L^-T for the B of the last compute(A, B).
  auto carried() const { return L_.bottomRows(L_.rows() - n_); }
  /// x <- A^-1 x.
  template <typename Derived>
  void solveInPlace(Eigen::MatrixBase<Derived>& x) const {
    matrixL().solveInPlace(x);
    matrixU().solveInPlace(x);
  }

 private:
  /// L_'s first n_ columns: the factor in the top square, the carried rows below.
  bool factor() {
    const Eigen::Index rows = L_.rows();
    for (Eigen::Index k = 0; k < n_; ++k) {
      const Eigen::Index below = rows - k - 1;
      const double pivot = L_(k, k) - L_.row(k).head(k).squaredNorm();
      if (!(pivot > 0.0) || !std::isfinite(pivot)) return false;
      L_(k, k) = std::sqrt(pivot);
      if (below == 0) continue;
      L_.col(k).tail(below).noalias() -=
          L_.bottomLeftCorner(below, k) * L_.row(k).head(k).transpose();
      L_.col(k).tail(below) /= L_(k, k);
    }
    return true;
  }

  Eigen::Index n_ = 0;
  Eigen::MatrixXd L_;  ///< L in the top square's lower triangle (the strict upper one holds A's)
};

}  // namespace gcbridge::detail
