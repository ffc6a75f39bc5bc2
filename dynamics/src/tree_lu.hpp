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

/// One past the last dof of link k's subtree: its dofs are those from joints[k].idx_v up to there.
inline int linkSubtreeDofEnd(const Model& model, int k) {
  const int link_end = model.subtree_end[k];
  return link_end < model.numLinks() ? model.joints[link_end].idx_v : model.nv;
}

/// One past the last dof of the subtree of `dof`'s link: the dofs after `dof` up to there are its
/// descendants (the later dofs of its joint included).
inline int subtreeDofEnd(const Model& model, int dof) {
  return linkSubtreeDofEnd(model, model.dof_link[dof]);
}

/// Rows [first_row, first_row + rows) of X.col(i) less sum of c(j) X.col(j) over the dofs j after
/// i in its subtree (c a column of a factor, read below i), as one matrix-vector product: those
/// dofs follow i.
template <typename Column>
void subtractDescendantColumns(const Model& model, int i, const Column& c, Eigen::MatrixXd& X,
                               Eigen::Index first_row, Eigen::Index rows) {
  const int n = subtreeDofEnd(model, i) - i - 1;
  if (n == 0) return;
  X.col(i).segment(first_row, rows).noalias() -=
      X.block(first_row, i + 1, rows, n) * c.segment(i + 1, n);
}

/// Calls visit(first, n) for each run [first, first + n) of consecutive dofs among `dof` and its
/// ancestors, from `dof`'s run up to the root's. @pre dof >= 0.
template <typename Visit>
void forEachAncestorRun(const Model& model, int dof, const Visit& visit) {
  for (int last = dof; last >= 0;) {
    int first = last;
    while (first > 0 && model.dof_parent[first] == first - 1) --first;
    visit(first, last - first + 1);
    last = model.dof_parent[first];
  }
}

/// Rows from `first_row` on of X.col(k) less sum of c(j) X.col(j) over the ancestor dofs j of dof k
/// (c a row of a factor, read left of k), as one matrix-vector product per run of consecutive
/// ancestors.
template <typename Row>
void subtractAncestorColumns(const Model& model, int k, const Row& c, Eigen::MatrixXd& X,
                             Eigen::Index first_row = 0) {
  const int parent = model.dof_parent[k];
  if (parent < 0) return;
  const Eigen::Index rows = X.rows() - first_row;
  forEachAncestorRun(model, parent, [&](int first, int n) {
    X.col(k).tail(rows).noalias() -=
        X.block(first_row, first, rows, n) * c.segment(first, n).transpose();
  });
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
