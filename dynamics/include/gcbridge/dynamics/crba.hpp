#pragma once
/// @file
/// The joint-space inertia matrix M(q) by the composite-rigid-body algorithm (Featherstone, RBDA
/// sec. 6.2; in one fixed frame on deep trees, as Pinocchio's WORLD convention), and its
/// tree-sparse factorization M = L^T D L (RBDA sec. 6.5), which costs O(n d^2) for a tree of depth
/// d instead of O(n^3) and never fills in outside the tree's pattern.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// The mean dof depth (Model::mean_dof_depth) above which crba works in the root link's frame: the
/// form in the links' frames transforms each column once per ancestor link, the fixed-frame form
/// moves every link to one frame once and then pays a 6-vector product per ancestor dof, so it
/// wins on deep trees only. Chosen from bench_dynamics' chains and robots (docs/benchmarks.md).
inline constexpr double kCrbaRootFrameDepth = 16.0;

/// M(q), symmetric, both triangles filled. Fills data.M and data.X_PB, and on deep trees (mean dof
/// depth above kCrbaRootFrameDepth) works in the root link's frame (data.X_RB, data.S_R,
/// data.Ic_R, data.IcS_R), else in the links' frames (data.Ic_B, data.IcS_B).
/// @return data.M. @throws InvalidArgumentError on bad q.
const Eigen::MatrixXd& crba(const Model& model, Data& data, const ConstVectorRef& q);

/// Factorizes data.M = L^T D L into data.LTDL (D on the diagonal, L below it, L^T above), using
/// the expanded parent array model.dof_parent (Featherstone's LTDL). It reads M's upper triangle.
/// @pre crba ran (or M is otherwise filled, both triangles).
void factorizeMassMatrix(const Model& model, Data& data);

/// Solves M x = b in place with the factor. @pre factorizeMassMatrix ran.
/// @param[in,out] x b on entry (size nv), M^-1 b on exit.
void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);

/// M^-1, from the factor. Fills data.Minv. @pre factorizeMassMatrix ran. @return data.Minv.
const Eigen::MatrixXd& computeMassMatrixInverse(const Model& model, Data& data);

}  // namespace gcbridge
