#pragma once
// Private to gcbridge::dynamics: pieces the algorithms share.

#include <string>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/flatten.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge::detail {

/// X_PB of every link and the motion subspaces that depend on q (ExpMap and EulerXYZ balls; the
/// others are constant and set once by Data's constructor). Not the world poses.
/// @pre q validated.
void updateJointPlacements(const Model& model, Data& data, const ConstVectorRef& q);

/// f = V x* (I V): the force a body of inertia I needs to keep moving with velocity V (the
/// velocity-product term of Newton-Euler, RBDA eq. 5.9), written half by half into `f` (see
/// Transform::actInv(m, out) on why the loops keep spatial vectors in halves).
inline void velocityProductForce(const Inertia& I, const Motion& V, Force& f) {
  const Force IV = I * V;
  f.angular() = V.angular().cross(IV.angular()) + V.linear().cross(IV.linear());
  f.linear() = V.angular().cross(IV.linear());
}

/// f = I A + V x* (I V): the net force for velocity V and acceleration A, half by half.
inline void netForce(const Inertia& I, const Motion& V, const Motion& A, Force& f) {
  velocityProductForce(I, V, f);
  const Force IA = I * A;
  f.angular() += IA.angular();
  f.linear() += IA.linear();
}

/// @throws InvalidArgumentError if `link` is not a link index of the model.
inline void checkLinkIndex(const Model& model, int link) {
  if (link < 0 || link >= model.numLinks()) {
    throw InvalidArgumentError("link index " + std::to_string(link) + " out of range [0, " +
                               std::to_string(model.numLinks()) + ") of model '" + model.name +
                               "'");
  }
}

/// Checks f_ext (one finite force per link) and writes each, expressed in its link frame B, into
/// data.fext_B. @pre forward kinematics ran for the current q (data.X_WB).
/// @throws InvalidArgumentError naming the link.
void externalForcesToLinkFrames(const Model& model, Data& data, const ExternalForces& f_ext);

}  // namespace gcbridge::detail
