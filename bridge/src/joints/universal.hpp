#pragma once
// Private to the bridge: the universal joint in Bullet (site.hpp): two revolute joints of the
// model, k into a massless link with no body and its one child c out of it, with orthogonal axes
// and coincident pivots (RigidBodyMap checks the pattern).
//
// Rigid bodies: one btUniversalConstraint between k's parent and c's body for both joints (its
// own limits kept, Bullet 3.24's constructor: +-(pi/2 - 0.01) about the second axis,
// +-(pi - 0.01) about the first). Each joint's torque goes to c's body and k's parent, as a
// revolute joint's. btMultiBody has no universal joint: the massless link is a link there.

#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Universal {
  /// The constraint at the joint frame X_WJ of the first joint (world pose at q = 0), its axis and
  /// the second joint's in W.
  static BuiltConstraint makeConstraint(btRigidBody& parent, btRigidBody& child,
                                        const Transform& X_WJ, const Vector3& axis1_W,
                                        const Vector3& axis2_W) {
    using detail::toBullet;
    return {std::make_unique<btUniversalConstraint>(parent, child, toBullet(X_WJ.translation()),
                                                    toBullet(axis1_W), toBullet(axis2_W)),
            true};
  }

  /// Both angles from the parent and the grandchild body, and the massless link's pose:
  /// R_J1C = Rot(a1, q1) R_mJ2 Rot(a2, q2) = Rot(a1, q1) Rot(w, q2) R_mJ2 with w = R_mJ2 a2, so
  /// T = R_J1C R_mJ2^T maps w to Rot(a1, q1) w, which gives q1, and Rot(a1, -q1) T = Rot(w, q2).
  static void readPosition(const RigidSite& s, const double* previous, double* q) {
    const Joint& first = s.joint();
    const int c = s.model.children[s.k][0];
    const Joint& second = s.model.joints[c];
    const Transform X_WJ = s.X_WJ();
    const Matrix3 R_J1C = X_WJ.rotation().transpose() * s.bdata.X_WL[c].rotation();
    const Matrix3& R_mJ2 = second.X_PJ.rotation();
    const Vector3 w = R_mJ2 * second.axis;
    const Matrix3 T = R_J1C * R_mJ2.transpose();
    const Vector3 Tw = T * w;
    double& q1 = q[first.idx_q];
    double& q2 = q[second.idx_q];
    q1 = gcbridge::detail::arcTan2(first.axis.dot(w.cross(Tw)), w.dot(Tw));
    q2 = angleAbout(rotationAboutAxis(first.axis, -q1) * T, w);
    if (previous != nullptr) {
      q1 = unwrap(q1, previous + first.idx_q);
      q2 = unwrap(q2, previous + second.idx_q);
    }
    s.bdata.X_WL[s.k] = X_WJ * Transform(rotationAboutAxis(first.axis, q1), Vector3::Zero());
  }
  /// Both rates: J-hat's columns a1 and Rot(a1, q1) w are orthonormal, so its pseudo-inverse is
  /// its transpose.
  static void readVelocity(const RigidSite& s, double* v) {
    const Joint& first = s.joint();
    const int c = s.model.children[s.k][0];
    const Joint& second = s.model.joints[c];
    const int p = s.parent();
    const Vector3 omega_P = p < 0 ? Vector3::Zero() : s.bdata.omega_WB_W[p];
    const Vector3 omega_J = s.R_WJ().transpose() * (s.bdata.omega_WB_W[c] - omega_P);
    const Vector3 w =
        rotationAboutAxis(first.axis, s.q()[0]) * (second.X_PJ.rotation() * second.axis);
    v[first.idx_v] = first.axis.dot(omega_J);
    v[second.idx_v] = w.dot(omega_J);
  }
  /// The first joint: the pivots' separation (its child is c's body). The second: how far its
  /// axis is from orthogonal to the first one.
  static void errors(const RigidSite& s, JointError& first, JointError& second) {
    const int c = s.model.children[s.k][0];
    first.position_error = (s.X_WJ().inverse() * s.bdata.X_WL[c]).translation().norm();
    const Vector3 a1_W = s.axisInWorld();
    const Vector3 a2_W = s.bdata.X_WL[c].rotation() * s.model.joints[c].axis;
    second.rotation_error = std::asin(std::min(1.0, std::abs(a1_W.dot(a2_W))));
  }
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
