#pragma once
// Private to the bridge: the prismatic joint in Bullet (site.hpp).
//
// Rigid bodies: a btSliderConstraint along the axis (its x), rotation about it locked, parent as
// body A (position +q), with the model's limits, one-sided ones included: Bullet limits a slider
// only when lower <= upper, so a missing bound becomes one it never reaches (BT_LARGE_FLOAT), and
// with neither, lower > upper turns the limit off. btMultiBody: setupPrismatic along the axis in
// the child's B axes; Bullet's q, v, tau and qdd are the model's.

#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Prismatic : OneDofMultiBodyCoordinates {
  static BuiltConstraint makeConstraint(const ConstraintSite& s) {
    using detail::toBulletTransform;
    const Joint& joint = s.joint();
    const Transform X_JS(frameWithAxis(joint.axis, 0), Vector3::Zero());
    auto slider = std::make_unique<btSliderConstraint>(
        s.parent, s.child, toBulletTransform(s.X_BpJ * X_JS), toBulletTransform(s.X_BcJ * X_JS),
        /*useLinearReferenceFrameA=*/true);
    const bool bounded = std::isfinite(joint.limits.lower) || std::isfinite(joint.limits.upper);
    const auto bound = [&](double limit, double unreached) {
      return std::isfinite(limit) ? limit : (bounded ? unreached : -unreached);
    };
    slider->setLowerLinLimit(bound(joint.limits.lower, -BT_LARGE_FLOAT));
    slider->setUpperLinLimit(bound(joint.limits.upper, BT_LARGE_FLOAT));
    slider->setLowerAngLimit(0.0);
    slider->setUpperAngLimit(0.0);
    return {std::move(slider), true};
  }

  static void readPosition(const RigidSite& s, const double*, double* q) {
    q[0] = s.joint().axis.dot(s.X_JC().translation());
  }
  /// v = a . (relative velocity of the child origin), in W.
  static void readVelocity(const RigidSite& s, double* v) {
    v[0] = s.axisInWorld().dot(s.relativeLinearVelocity());
  }
  static void wrench(const RigidSite& s, const double* tau, Vector3& f_W, Vector3& t_W) {
    f_W = tau[0] * s.axisInWorld();
    t_W.setZero();
  }
  /// The child origin's offset off the axis, and the whole relative rotation.
  static void error(const Joint& joint, const Transform& X_JC, JointError& e) {
    const Vector3& p_JC = X_JC.translation();
    e.position_error = (p_JC - joint.axis.dot(p_JC) * joint.axis).norm();
    e.rotation_error = rotationAngle(X_JC.rotation());
  }

  static void setupMultiBody(btMultiBody& body, int b, const MultiBodySetup& s, const Joint& joint,
                             const Transform& X_LB) {
    body.setupPrismatic(b, s.mass, s.inertia, s.parent, s.rot_parent_to_this,
                        detail::toBullet(X_LB.rotation().transpose() * joint.axis),
                        s.parent_com_to_pivot, s.pivot_to_com, /*disableParentCollision=*/true);
  }
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
