#pragma once
// Private to gcbridge::dynamics: LU factorization of a matrix with the mass matrix's tree
// sparsity (entry (i, j) nonzero only when dof i is dof j, an ancestor or a descendant) that
// need not be symmetric, such as implicit Euler's Newton matrix.
//
// Eliminating from the leaves up, as Featherstone's LTDL does for M (RBDA sec. 6.5), only ever
// combines a dof's ancestors with one another, which the pattern already couples: nothing fills in
// and the work is the sum over dofs of their squared depths, not nv^3 / 3. There is no pivoting.

#include <Eigen/Core>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::detail {

/// One past the last dof of the subtree of `dof`'s link: the dofs after `dof` up to there are its
/// descendants (the later dofs of its joint included).
inline int subtreeDofEnd(const Model& model, int dof) {
  const int link_end = model.subtree_end[model.dof_link[dof]];
  return link_end < model.numLinks() ? model.joints[link_end].idx_v : model.nv;
}

/// The first `rows` entries of X.col(i) less sum of c(j) X.col(j) over the dofs j after i in its
/// subtree (c a column of a factor, read below i), as one matrix-vector product: those dofs
/// follow i.
template <typename Column>
void subtractDescendantColumns(const Model& model, int i, const Column& c, Eigen::MatrixXd& X,
                               Eigen::Index rows) {
  const int n = subtreeDofEnd(model, i) - i - 1;
  if (n == 0) return;
  X.col(i).head(rows).noalias() -= X.block(0, i + 1, rows, n) * c.segment(i + 1, n);
}

/// X.col(k) -= sum of c(j) X.col(j) over the ancestor dofs j of dof k (c a row of a factor, read
/// left of k), as one matrix-vector product per run of consecutive ancestors.
template <typename Row>
void subtractAncestorColumns(const Model& model, int k, const Row& c, Eigen::MatrixXd& X) {
  for (int last = model.dof_parent[k]; last >= 0;) {
    int first = last;
    while (first > 0 && model.dof_parent[first] == first - 1) --first;
    const int n = last - first + 1;
    X.col(k).noalias() -= X.middleCols(first, n) * c.segment(first, n).transpose();
    last = model.dof_parent[first];
  }
}

/// Whether K (nv x nv) is zero wherever the tree pattern is not.
bool hasTreePattern(const Model& model, const Eigen::MatrixXd& K);

/// Factorizes K in place, leaves first: left of each pivot K(k, k), row k keeps the reduced
/// coefficients K(k, j) on k's ancestors j; above it, K(i, k) becomes the multiplier of row k
/// taken from the ancestor row i.
/// @pre hasTreePattern(model, K).
/// @return false, with K part-way through, when a pivot is not above `pivot_floor` in magnitude.
bool factorizeTree(const Model& model, Eigen::MatrixXd& K, double pivot_floor);

/// Solves K X = B in place with the factor of factorizeTree, B and X held transposed (nv
/// columns): the solve's row operations become matrix-vector products on whole contiguous columns.
void solveTreeTransposed(const Model& model, const Eigen::MatrixXd& factor, Eigen::MatrixXd& Xt);

}  // namespace gcbridge::detail
