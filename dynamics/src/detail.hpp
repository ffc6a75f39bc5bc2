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
/// Transform::actInv(m, out) on why the loops keep spatial vectors in halves). Through the COM,
/// everything in the link frame B: with m, c and I_c the mass, the COM and the rotational inertia
/// about it, w, v the halves of V and v_c = v + w x c the COM's velocity, the force is m w x v_c
/// and its moment about B's origin w x (I_c w) + c x (that force).
inline void velocityProductForce(const Inertia& I, const Motion& V, Force& f) {
  const Vector3 w = V.angular();
  const Vector3& c = I.com();
  const Vector3 f_lin = I.mass() * w.cross(V.linear() + w.cross(c));
  f.angular() = w.cross(I.inertiaAboutCom() * w) + c.cross(f_lin);
  f.linear() = f_lin;
}

/// f = I A + V x* (I V): the net force for velocity V and acceleration A, half by half. Through
/// the COM as velocityProductForce: with alpha, a the halves of A, the force is
/// m (a + alpha x c + w x v_c), the COM's acceleration times m, and its moment about B's origin
/// I_c alpha + w x (I_c w) + c x (that force).
inline void netForce(const Inertia& I, const Motion& V, const Motion& A, Force& f) {
  const Vector3 w = V.angular(), alpha = A.angular();
  const Vector3& c = I.com();
  const Matrix3& I_c = I.inertiaAboutCom();
  const Vector3 f_lin = I.mass() * (A.linear() + alpha.cross(c) + w.cross(V.linear() + w.cross(c)));
  f.angular() = I_c * alpha + w.cross(I_c * w) + c.cross(f_lin);
  f.linear() = f_lin;
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
