#pragma once
// Private to the bridge: the ball joint in Bullet, one kernel per parametrization (site.hpp).
//
// Rigid bodies: a btPoint2PointConstraint at the pivot, or, when the description gives swing or
// twist spans, a btConeTwistConstraint whose twist axis (x) is the description's axis and whose
// swings are about y and z (a missing span is pi); parent as body A. Its generalized force is a
// torque. btMultiBody: setupSpherical, for the quaternion parametrization only (Bullet's
// spherical joint stores a quaternion and the child-frame angular velocity):
// Bullet's quaternion is R_JC seen in the child's B axes, Q_LB^-1 Q_JC Q_LB, and its velocity,
// torque and acceleration are the model's rotated into B axes by R_LB^T.

#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>

#include <Eigen/LU>
#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

/// What every ball joint shares: the constraint, the error, the btMultiBody setup.
struct Ball : BridgeKernel {
  static constexpr bool torque_only = true;

  static BuiltConstraint makeConstraint(const ConstraintSite& s) {
    using detail::toBullet;
    using detail::toBulletTransform;
    const JointDescription* d = s.described;
    const bool limited = d != nullptr && (std::isfinite(d->swing1) || std::isfinite(d->swing2) ||
                                          std::isfinite(d->twist));
    if (!limited) {
      return {std::make_unique<btPoint2PointConstraint>(s.parent, s.child,
                                                        toBullet(s.X_BpJ.translation()),
                                                        toBullet(s.X_BcJ.translation())),
              true};
    }
    const Transform X_JT(frameWithAxis(s.joint().axis, 0), Vector3::Zero());
    auto cone = std::make_unique<btConeTwistConstraint>(
        s.parent, s.child, toBulletTransform(s.X_BpJ * X_JT), toBulletTransform(s.X_BcJ * X_JT));
    const auto span = [](double limit) { return std::isfinite(limit) ? limit : M_PI; };
    cone->setLimit(span(d->swing1), span(d->swing2), span(d->twist));
    return {std::move(cone), true};
  }

  /// The pivots' separation (every rotation is allowed).
  static void error(const Joint&, const Transform& X_JC, JointError& e) {
    e.position_error = X_JC.translation().norm();
  }

  static void setupMultiBody(btMultiBody& body, int b, const MultiBodySetup& s, const Joint&,
                             const Transform&) {
    body.setupSpherical(b, s.mass, s.inertia, s.parent, s.rot_parent_to_this,
                        s.parent_com_to_pivot, s.pivot_to_com, /*disableParentCollision=*/true);
  }
};

/// q the unit quaternion of R_JC, v = omega_C.
struct BallQuaternion : Ball {

  /// R_JC staged for readPositions' last pass, which writes it as a quaternion.
  static void readPosition(const RigidSite& s, const double*, double*) {
    stageRotation(s, s.joint().idx_q);
  }
  static void readVelocity(const RigidSite& s, double* v) {
    put3(v, s.R_WC().transpose() * s.relativeAngularVelocity());
  }
  static void wrench(const RigidSite& s, const double* tau, Vector3&, Vector3& t_W) {
    t_W = s.R_WC() * Eigen::Map<const Vector3>(tau);
  }

  static void setState(const MultiBodySite& s, btMultiBody& body, const double* q,
                       const double* v) {
    const Quaternion& Q_LB = s.Q_LB();
    const Quaternion Q = Q_LB.conjugate() * quaternionFromCoeffs(q) * Q_LB;
    const btScalar q_bullet[4] = {btScalar(Q.x()), btScalar(Q.y()), btScalar(Q.z()),
                                  btScalar(Q.w())};
    const Vector3 omega_B = Q_LB.conjugate() * Eigen::Map<const Vector3>(v);
    const btScalar v_bullet[3] = {btScalar(omega_B.x()), btScalar(omega_B.y()),
                                  btScalar(omega_B.z())};
    body.setJointPosMultiDof(s.b, q_bullet);
    body.setJointVelMultiDof(s.b, v_bullet);
  }
  /// Q_JC = Q_LB Q_bullet Q_LB^-1; omega_C = R_LB omega_B.
  static void getState(const MultiBodySite& s, const btMultiBody& body, double* q, double* v) {
    const Quaternion& Q_LB = s.Q_LB();
    const btScalar* qb = body.getJointPosMultiDof(s.b);
    const btScalar* vb = body.getJointVelMultiDof(s.b);
    const Quaternion Q = Q_LB * Quaternion(qb[3], qb[0], qb[1], qb[2]) * Q_LB.conjugate();
    q[0] = Q.x();
    q[1] = Q.y();
    q[2] = Q.z();
    q[3] = Q.w();
    put3(v, Q_LB * Vector3(vb[0], vb[1], vb[2]));
  }
  /// A torque paired with omega_C, in B axes: tau_B . omega_B = tau_C . omega_C.
  static void setTorque(const MultiBodySite& s, btMultiBody& body, const double* tau) {
    const Vector3 tau_B = s.Q_LB().conjugate() * Eigen::Map<const Vector3>(tau);
    for (int i = 0; i < 3; ++i) body.getJointTorqueMultiDof(s.b)[i] = tau_B(i);
  }
  static void getAcceleration(const MultiBodySite& s, const btMultiBody& body,
                              const btScalar* joint_accelerations, double* a) {
    const btScalar* ab = joint_accelerations + body.getLink(s.b).m_dofOffset;
    put3(a, s.Q_LB() * Vector3(ab[0], ab[1], ab[2]));
  }
};

/// The exp-map and Euler-angle parametrizations: v the coordinate rates, v = J-hat^-1 omega_J,
/// and a torque tau on v is the moment J-hat^-T tau in J.
template <typename Read>
struct BallCoordinates : Ball {
  static constexpr bool in_multibody = false;
  static constexpr bool wrench_may_throw = true;
  static constexpr bool velocity_reads_q = true;
  static std::string multiBodyRefusal(const Joint& joint, const Transform&) {
    return std::string("it uses the ") + toString(joint.ball) +
           " parametrization; btMultiBody's spherical joints need the quaternion one (load the "
           "model with ModelOptions::ball = BallParametrization::Quaternion)";
  }

  static void readPosition(const RigidSite& s, const double*, double* q) {
    put3(q, Read::coordinates(s.X_JC().rotation()));
  }
  /// @throws SingularityError where the parametrization is singular.
  static void readVelocity(const RigidSite& s, double* v) {
    put3(v, ballVelocityFromAngularVelocity(s.joint(), s.q(),
                                            s.R_WJ().transpose() * s.relativeAngularVelocity()));
  }
  /// @throws SingularityError where the parametrization is singular (|det J-hat| < 1e-9).
  static void wrench(const RigidSite& s, const double* tau, Vector3&, Vector3& t_W) {
    const Joint& joint = s.joint();
    const Matrix3 J_hat = jointLocalJacobian(joint, s.q()).topRows<3>();
    if (std::abs(J_hat.determinant()) < 1e-9) {
      throw SingularityError("ball joint '" + joint.name + "' (" + toString(joint.ball) +
                             ") is at a singularity of its parametrization; its torque vector is "
                             "undefined there");
    }
    t_W = s.R_WJ() * Eigen::PartialPivLU<Matrix3>(J_hat.transpose()).solve(
                         Eigen::Map<const Vector3>(tau));
  }
};

struct ExpMapCoordinates {
  static Vector3 coordinates(const Matrix3& R_JC) { return rotationToExpMap(R_JC); }
};
struct EulerXYZCoordinates {
  static Vector3 coordinates(const Matrix3& R_JC) { return rotationToEulerXYZ(R_JC); }
};
using BallExpMap = BallCoordinates<ExpMapCoordinates>;
using BallEulerXYZ = BallCoordinates<EulerXYZCoordinates>;

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
