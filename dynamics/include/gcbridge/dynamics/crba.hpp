#pragma once
/// @file
/// The joint-space inertia matrix M(q) by the composite-rigid-body algorithm (Featherstone, RBDA
/// sec. 6.2; in world coordinates on deep trees, as Pinocchio's WORLD convention), and its
/// tree-sparse factorization M = L^T D L (RBDA sec. 6.5), which costs O(n d^2) for a tree of depth
/// d instead of O(n^3) and never fills in outside the tree's pattern.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// M(q), symmetric, both triangles filled. Fills data.M and data.X_PB, and on deep trees
/// (Model::mean_dof_depth above 16) works in world coordinates, filling data.X_WB, data.J_W and
/// data.Ic_W_moments, else in the links' frames, filling data.Ic_B.
/// @return data.M. @throws InvalidArgumentError on bad q.
const Eigen::MatrixXd& crba(const Model& model, Data& data, const ConstVectorRef& q);

/// Factorizes data.M = L^T D L in place into data.LTDL, using the expanded parent array
/// model.dof_parent (Featherstone's LTDL). @pre crba ran.
void factorizeMassMatrix(const Model& model, Data& data);

/// Solves M x = b in place with the factor. @pre factorizeMassMatrix ran.
/// @param[in,out] x b on entry (size nv), M^-1 b on exit.
void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);

/// M^-1, from the factor. Fills data.Minv. @pre factorizeMassMatrix ran. @return data.Minv.
const Eigen::MatrixXd& computeMassMatrixInverse(const Model& model, Data& data);

}  // namespace gcbridge
