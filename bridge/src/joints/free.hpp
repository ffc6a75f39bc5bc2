#pragma once
// Private to the bridge: the free joint in Bullet (site.hpp). Only a root is free.
//
// Rigid bodies: no constraint, the root body moves freely; q = (p_JC, quaternion of R_JC) and
// v = (omega_C, v_Co in C) are read from its pose and velocity. Its generalized force is the
// wrench (moment about Co, force) in C. btMultiBody: the floating base, whose pose is
// X_WB = X_WJ X_JC(q) X_LB, and whose velocity is its angular velocity and COM velocity in W.

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Free : BridgeKernel {
  static constexpr bool root_only = true;

  /// No constraint: the child body moves freely.
  static BuiltConstraint makeConstraint(const ConstraintSite&) { return {nullptr, true}; }

  /// p_JC = R_WJ^T (p_WC - p_WJ) now; R_JC staged for the last pass.
  static void readPosition(const RigidSite& s, const double*, double* q) {
    // A root's parent is the world: X_WJ = X_PJ, read in place (a copy would stall on store
    // forwarding).
    const Transform& X_WJ = s.joint().X_PJ;
    put3(q, X_WJ.rotation().transpose() *
                (s.bdata.X_WL[s.k].translation() - X_WJ.translation()));
    stageRotation(s, s.joint().idx_q + 3);
  }
  /// The child's velocity relative to the parent, in child axes (omega_C, v_Co).
  static void readVelocity(const RigidSite& s, double* v) {
    const Matrix3& R_WC = s.R_WC();
    put3(v, R_WC.transpose() * s.relativeAngularVelocity());
    put3(v + 3, R_WC.transpose() * s.relativeLinearVelocity());
  }
  static void wrench(const RigidSite& s, const double* tau, Vector3& f_W, Vector3& t_W) {
    t_W = s.R_WC() * Eigen::Map<const Vector3>(tau);
    f_W = s.R_WC() * Eigen::Map<const Vector3>(tau + 3);
  }
  /// Every motion is allowed.
  static void error(const Joint&, const Transform&, JointError&) {}

  /// The base is made with the btMultiBody; nothing to set up.
  static void setupMultiBody(btMultiBody&, int, const MultiBodySetup&, const Joint&,
                             const Transform&) {}
  /// Base pose X_WB = X_WJ X_JC(q) X_LB (Bullet stores the world-to-base rotation) and its
  /// angular and COM velocity in W.
  static void setState(const MultiBodySite& s, btMultiBody& body, const double* q,
                       const double* v) {
    using detail::toBullet;
    const Joint& joint = s.joint();
    const Quaternion Q_WC =
        Quaternion(joint.X_PJ.rotation()).normalized() * quaternionFromCoeffs(q + 3);
    const Matrix3 R_WC = Q_WC.toRotationMatrix();
    const Vector3 p_WCo = joint.X_PJ.actPoint(Eigen::Map<const Vector3>(q));
    const Vector3& p_CoBcm_C = s.layout.X_LB[s.k].translation();
    body.setBasePos(toBullet(p_WCo + R_WC * p_CoBcm_C));
    body.setWorldToBaseRot(toBullet((Q_WC * s.Q_LB()).conjugate()));
    const Eigen::Map<const Vector3> omega_C(v), v_Co_C(v + 3);
    body.setBaseOmega(toBullet(R_WC * omega_C));
    body.setBaseVel(toBullet(R_WC * (v_Co_C + omega_C.cross(p_CoBcm_C))));
  }
  /// X_JC = X_WJ^-1 X_WB X_LB^-1, and the base velocity in C.
  static void getState(const MultiBodySite& s, const btMultiBody& body, double* q, double* v) {
    const Joint& joint = s.joint();
    const Quaternion Q_WC = orientation(s, body);
    const Matrix3 R_WC = Q_WC.toRotationMatrix();
    const Vector3 p_WCo =
        detail::fromBullet(body.getBasePos()) - R_WC * s.layout.X_LB[s.k].translation();
    const Quaternion Q_JC = Quaternion(joint.X_PJ.rotation()).normalized().conjugate() * Q_WC;
    put3(q, joint.X_PJ.actInvPoint(p_WCo));
    q[3] = Q_JC.x();
    q[4] = Q_JC.y();
    q[5] = Q_JC.z();
    q[6] = Q_JC.w();
    Vector3 omega_C, v_Co_C;
    velocity(s, body, R_WC, omega_C, v_Co_C);
    put3(v, omega_C);
    put3(v + 3, v_Co_C);
  }
  /// (moment about Co, force) in C -> force at the COM and moment about it, world axes, added to
  /// the base's (and reported through the site).
  static void setTorque(const MultiBodySite& s, btMultiBody& body, const double* tau) {
    using detail::toBullet;
    const Matrix3 R_WC = orientation(s, body).toRotationMatrix();
    const Eigen::Map<const Vector3> n_Co_C(tau), f_C(tau + 3);
    const Vector3& p_CoBcm_C = s.layout.X_LB[s.k].translation();
    const btVector3 f_W = toBullet(R_WC * f_C);
    const btVector3 n_Bcm_W = toBullet(R_WC * (n_Co_C - p_CoBcm_C.cross(f_C)));
    body.addBaseForce(f_W);
    body.addBaseTorque(n_Bcm_W);
    if (s.base_force_W != nullptr) *s.base_force_W = f_W;
    if (s.base_torque_W != nullptr) *s.base_torque_W = n_Bcm_W;
  }
  /// d/dt of (omega_C, v_Co_C) from Bullet's world-axes omega_dot and COM acceleration:
  /// a_Bcm_W = R_WC (dv_Co + domega x c + omega x (v_Co + omega x c)).
  static void getAcceleration(const MultiBodySite& s, const btMultiBody& body,
                              const btScalar* accelerations, double* a) {
    const Matrix3 R_WC = orientation(s, body).toRotationMatrix();
    Vector3 omega_C, v_Co_C;
    velocity(s, body, R_WC, omega_C, v_Co_C);
    const Vector3& c = s.layout.X_LB[s.k].translation();
    const Vector3 alpha_W(accelerations[0], accelerations[1], accelerations[2]);
    const Vector3 a_Bcm_W(accelerations[3], accelerations[4], accelerations[5]);
    const Vector3 alpha_C = R_WC.transpose() * alpha_W;
    put3(a, alpha_C);
    put3(a + 3, R_WC.transpose() * a_Bcm_W - alpha_C.cross(c) -
                    omega_C.cross(v_Co_C + omega_C.cross(c)));
  }

 private:
  /// The root link's orientation Q_WC from Bullet's base orientation.
  static Quaternion orientation(const MultiBodySite& s, const btMultiBody& body) {
    const Quaternion Q_WB = detail::fromBullet(body.getWorldToBaseRot()).conjugate();
    return Q_WB * s.Q_LB().conjugate();
  }
  /// The root link's spatial velocity in C: omega_C and the velocity of its origin Co.
  static void velocity(const MultiBodySite& s, const btMultiBody& body, const Matrix3& R_WC,
                       Vector3& omega_C, Vector3& v_Co_C) {
    const Vector3& p_CoBcm_C = s.layout.X_LB[s.k].translation();
    omega_C = R_WC.transpose() * detail::fromBullet(body.getBaseOmega());
    v_Co_C = R_WC.transpose() * detail::fromBullet(body.getBaseVel()) - omega_C.cross(p_CoBcm_C);
  }
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
