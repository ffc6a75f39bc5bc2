#include "tree_lu.hpp"

#include <cmath>
#include <vector>

namespace gcbridge::detail {

bool hasTreePattern(const Model& model, const Eigen::MatrixXd& K) {
  // Row i's ancestors are below it, met in decreasing order by walking the parent array; every
  // other earlier dof j is in another branch, and (i, j) and (j, i) must both be zero.
  for (int i = 1; i < model.nv; ++i) {
    int ancestor = model.dof_parent[i];
    for (int j = i - 1; j >= 0; --j) {
      if (j == ancestor) {
        ancestor = model.dof_parent[ancestor];
      } else if (K(i, j) != 0.0 || K(j, i) != 0.0) {
        return false;
      }
    }
  }
  return true;
}

bool factorizeTree(const Model& model, Eigen::MatrixXd& K, double pivot_floor) {
  const std::vector<int>& lambda = model.dof_parent;
  for (int k = model.nv - 1; k >= 0; --k) {
    const double pivot = K(k, k);
    if (!(std::abs(pivot) > pivot_floor)) return false;
    // Row i -= (K(i, k) / pivot) row k, for each ancestor i; row k is nonzero on k's ancestors.
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const double multiplier = K(i, k) / pivot;
      for (int j = lambda[k]; j >= 0; j = lambda[j]) K(i, j) -= multiplier * K(k, j);
      K(i, k) = multiplier;
    }
  }
  return true;
}

void solveTreeTransposed(const Model& model, const Eigen::MatrixXd& factor, Eigen::MatrixXd& Xt) {
  // The eliminations applied to B's rows, leaves first: row i less its descendants' (after it).
  for (int i = model.nv - 1; i >= 0; --i) {
    subtractDescendantColumns(model, i, factor.row(i).transpose(), Xt, 0, Xt.rows());
  }
  // The remaining triangle, root first.
  for (int k = 0; k < model.nv; ++k) {
    subtractAncestorColumns(model, k, factor.row(k), Xt);
    Xt.col(k) /= factor(k, k);
  }
}

}  // namespace gcbridge::detail
