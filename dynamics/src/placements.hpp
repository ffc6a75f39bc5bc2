#pragma once
// Private to gcbridge::dynamics: the per-joint pieces every recursive algorithm starts from.

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::detail {

/// X_PB of every link and the motion subspaces that depend on q (ExpMap and EulerXYZ balls; the
/// others are constant and set once by Data's constructor). Not the world poses.
/// @pre q validated.
void updateJointPlacements(const Model& model, Data& data, const ConstVectorRef& q);

/// S x for joint `j` (x: the joint's slice of a velocity-sized vector), as a spatial vector in B.
inline Vector6 subspaceTimes(const Data& data, const Joint& j, const double* x) {
  if (j.nv == 1) return data.S_B.col(j.idx_v) * x[0];
  return data.S_B.middleCols(j.idx_v, j.nv).lazyProduct(Eigen::Map<const Eigen::VectorXd>(x, j.nv));
}

}  // namespace gcbridge::detail
