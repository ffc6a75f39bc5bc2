#pragma once
// Private to the bridge: the fixed joint in Bullet (site.hpp). No coordinates.
//
// Rigid bodies: a btFixedConstraint (a fixed root is no constraint: its link is a static body).
// btMultiBody: setupFixed.

#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Fixed : BridgeKernel {
  static constexpr bool torque_only = true;

  static BuiltConstraint makeConstraint(const ConstraintSite& s) {
    using detail::toBulletTransform;
    return {std::make_unique<btFixedConstraint>(s.parent, s.child, toBulletTransform(s.X_BpJ),
                                                toBulletTransform(s.X_BcJ)),
            true};
  }

  static void readPosition(const RigidSite&, const double*, double*) {}
  static void readVelocity(const RigidSite&, double*) {}
  static void wrench(const RigidSite&, const double*, Vector3&, Vector3& t_W) { t_W.setZero(); }
  /// The origins' separation and the whole relative rotation.
  static void error(const Joint&, const Transform& X_JC, JointError& e) {
    e.position_error = X_JC.translation().norm();
    e.rotation_error = rotationAngle(X_JC.rotation());
  }

  static void setupMultiBody(btMultiBody& body, int b, const MultiBodySetup& s, const Joint&,
                             const Transform&) {
    body.setupFixed(b, s.mass, s.inertia, s.parent, s.rot_parent_to_this, s.parent_com_to_pivot,
                    s.pivot_to_com);
  }
  static void setState(const MultiBodySite&, btMultiBody&, const double*, const double*) {}
  static void getState(const MultiBodySite&, const btMultiBody&, double*, double*) {}
  static void setTorque(const MultiBodySite&, btMultiBody&, const double*) {}
  static void getAcceleration(const MultiBodySite&, const btMultiBody&, const btScalar*, double*) {}
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
