#pragma once
// Private to gcbridge::dynamics: the fixed joint's kernel (kernel.hpp).
//
// No coordinates: nq = nv = 0, X_JC = 1. Its link moves with its parent; every step is empty.

#include "kernel.hpp"

namespace gcbridge::joints {

struct Fixed : Kernel<Fixed, 0, 0> {
  static constexpr std::array<JointCoordinate, 0> q_coordinates{};
  static constexpr std::array<JointCoordinate, 0> v_coordinates{};
  static void random(const Joint&, Random&, double*) {}
  static Transform transform(const Joint&, const double*) { return Transform::Identity(); }
  static void placement(const Joint& joint, const double*, Transform& X_PB) { X_PB = joint.X_PJ; }

  static void subspace(const Joint&, const double*, SubspaceMap<0>) {}
  static JointMatrix localJacobian(const Joint&, const double*) { return JointMatrix(6, 0); }

  static void addSubspaceTimes(const Joint&, const Data&, const double*, Motion&) {}
  static void addVelocityProduct(const Joint&, const Data&, const Motion&, const double*,
                                 Motion&) {}
  static void projectForce(const Joint&, const Data&, const Force&, double*) {}
};

}  // namespace gcbridge::joints
