#pragma once
// Private to the bridge: the revolute joint in Bullet (site.hpp).
//
// Rigid bodies: a btHingeConstraint about the axis, the child as body A (getHingeAngle() = +q),
// with the model's limits when both are finite (a hinge limit is a range of the angle modulo
// 2 pi: a one-sided limit has none, and the joint is left free). btMultiBody: setupRevolute about
// the axis in the child's B axes; Bullet's q, v, tau and qdd are the model's.

#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Revolute : OneDofMultiBodyCoordinates {
  static constexpr bool torque_only = true;

  static BuiltConstraint makeConstraint(const ConstraintSite& s) {
    using detail::toBulletTransform;
    const Joint& joint = s.joint();
    const Transform X_JH(frameWithAxis(joint.axis, 2), Vector3::Zero());
    auto hinge = std::make_unique<btHingeConstraint>(
        s.child, s.parent, toBulletTransform(s.X_BcJ * X_JH), toBulletTransform(s.X_BpJ * X_JH));
    if (std::isfinite(joint.limits.lower) && std::isfinite(joint.limits.upper)) {
      hinge->setLimit(joint.limits.lower, joint.limits.upper);
    }
    return {std::move(hinge), false};
  }

  /// The angle, staged for readPositions' last pass (angle_sine, angle_cosine): with
  /// A = R_WP^T R_WC and R_JC = R_PJ^T A, angleAbout's sine and cosine terms are sums of A's
  /// entries weighed by per-joint constants (BridgeData): the sine's a . vee(R_JC - R_JC^T) by R_PJ
  /// [a]x, the cosine's tr(R_JC) - a . R_JC a by R_PJ - (R_PJ a) a^T. A's entries stay in
  /// registers: a 3x3 temporary written by scalars and read back as packets stalls on store
  /// forwarding. Twice the sine and cosine; the angle itself in the last pass, where several
  /// joints' long dependency chains can run at once. When the axis is +-e_j in J (most URDF
  /// files), column j of both weights is exactly zero, and A's column j is not formed.
  static void readPosition(const RigidSite& s, const double*, double*) {
    const Matrix3& R_WC = s.R_WC();
    const Matrix3& R_WP = s.R_WP();
    const Matrix3& S = internals(s.bdata).revolute_axis_cross_P[s.k];
    const Matrix3& C = internals(s.bdata).revolute_cosine_P[s.k];
    const Vector3& axis = s.joint().axis;
    double sine = 0.0, cosine = 0.0;
    for (int j = 0; j < 3; ++j) {
      if (axis[(j + 1) % 3] == 0.0 && axis[(j + 2) % 3] == 0.0) continue;
      for (int i = 0; i < 3; ++i) {
        const double A_ij = R_WP.col(i).dot(R_WC.col(j));
        sine += S(i, j) * A_ij;
        cosine += C(i, j) * A_ij;
      }
    }
    internals(s.bdata).staged_angles.push_back({s.joint().idx_q, sine, cosine});
  }
  /// v = a . omega_rel, taken in W (the axis is R_WP a_P).
  static void readVelocity(const RigidSite& s, double* v) {
    v[0] = s.axisInWorld().dot(s.relativeAngularVelocity());
  }
  static void wrench(const RigidSite& s, const double* tau, Vector3&, Vector3& t_W) {
    t_W = tau[0] * s.axisInWorld();
  }
  /// The pivots' separation, and the angle between the axis in the parent and in the child.
  static void error(const Joint& joint, const Transform& X_JC, JointError& e) {
    e.position_error = X_JC.translation().norm();
    e.rotation_error = angleBetween(joint.axis, X_JC.rotation() * joint.axis);
  }

  static void setupMultiBody(btMultiBody& body, int b, const MultiBodySetup& s, const Joint& joint,
                             const Transform& X_LB) {
    body.setupRevolute(b, s.mass, s.inertia, s.parent, s.rot_parent_to_this,
                       detail::toBullet(X_LB.rotation().transpose() * joint.axis),
                       s.parent_com_to_pivot, s.pivot_to_com, /*disableParentCollision=*/true);
  }
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
