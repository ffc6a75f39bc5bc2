#pragma once
// Private to the bridge: the planar joint in Bullet (site.hpp).
//
// Rigid bodies: a btGeneric6DofSpring2Constraint whose frames have their x, y and z axes along
// the joint's e1, e2 and axis (planarJointFrame): the translations along x and y free, along z
// locked, the rotations about x and y locked and about z free; parent as body A (the 6-DOF
// constraint measures its translation in A's frame, as q measures it in J).
//
// btMultiBody: setupPlanar, whose coordinates differ from the model's (btMultiBody::setupPlanar
// and btMultibodyLink::updateCacheMultiDof, stepPositionsMultiDof in Bullet 3.24):
// - the order is (theta, t1, t2) and the rotation turns the child about its COM, not about its
//   link origin;
// - the translation (t1, t2) is the COM's, along b1 = n x e and b2 = b1 x n in the child's B axes
//   at theta = 0 (n the axis in B axes; e = x, or y when n . x > 0.999);
// - its velocity (theta_dot, u1, u2) has u the COM velocity in the rotating child frame on b1, b2;
//   stepPositionsMultiDof integrates t from u correctly only when |b1| = 1, i.e. when n is
//   perpendicular to B's x axis or is x itself, which makeMultiBodyLayout requires.
// With c the COM in C and R = Rot(axis, theta): t = B^T R_LB^T (x e1 + y e2 + (R - 1) c),
// u = B^T R_LB^T (S_lin (x_dot, y_dot) + theta_dot axis x c), S_lin = [R^T e1, R^T e2] the model's
// S (joints/planar.hpp of the dynamics), B = [b1 b2]; forces and accelerations follow (below).

#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>

#include <Eigen/LU>
#include <cmath>
#include <string>

#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

struct Planar : BridgeKernel {

  /// btMultiBody integrates the translation right only when |b1| = 1 (file comment).
  static std::string multiBodyRefusal(const Joint& joint, const Transform& X_LB) {
    const Vector3 n_B = X_LB.rotation().transpose() * joint.axis;
    const Vector3 e = n_B.x() > 0.999 ? Vector3::UnitY() : Vector3::UnitX();
    const double scale = n_B.cross(e).squaredNorm();
    if (std::abs(scale - 1.0) <= 1e-12) return "";
    return "its axis in the child's principal-axes frame, (" + std::to_string(n_B.x()) + ", " +
           std::to_string(n_B.y()) + ", " + std::to_string(n_B.z()) +
           "), is neither perpendicular to that frame's x axis nor x itself: btMultiBody's planar "
           "joint would scale its translation by " + std::to_string(scale) +
           " (btMultiBody::stepPositionsMultiDof)";
  }

  static BuiltConstraint makeConstraint(const ConstraintSite& s) {
    using detail::toBulletTransform;
    const Transform X_JE(planarJointFrame(s.joint().axis), Vector3::Zero());
    auto dof = std::make_unique<btGeneric6DofSpring2Constraint>(
        s.parent, s.child, toBulletTransform(s.X_BpJ * X_JE), toBulletTransform(s.X_BcJ * X_JE));
    // lower > upper: free; lower == upper: locked.
    dof->setLinearLowerLimit(btVector3(1, 1, 0));
    dof->setLinearUpperLimit(btVector3(-1, -1, 0));
    dof->setAngularLowerLimit(btVector3(0, 0, 1));
    dof->setAngularUpperLimit(btVector3(0, 0, -1));
    return {std::move(dof), true};
  }

  static void readPosition(const RigidSite& s, const double* previous, double* q) {
    const Joint& joint = s.joint();
    const Transform X_JC = s.X_JC();
    const Matrix3 E = planarJointFrame(joint.axis);
    q[0] = E.col(0).dot(X_JC.translation());
    q[1] = E.col(1).dot(X_JC.translation());
    q[2] = unwrap(angleAbout(X_JC.rotation(), joint.axis),
                  previous != nullptr ? previous + 2 : nullptr);
  }
  /// (x_dot, y_dot) the child origin's velocity relative to the parent on e1, e2 in W, and
  /// theta_dot the relative angular velocity about the axis.
  static void readVelocity(const RigidSite& s, double* v) {
    const Matrix3 E_W = s.R_WJ() * planarJointFrame(s.joint().axis);
    const Vector3 v_rel = s.relativeLinearVelocity();
    v[0] = E_W.col(0).dot(v_rel);
    v[1] = E_W.col(1).dot(v_rel);
    v[2] = E_W.col(2).dot(s.relativeAngularVelocity());
  }
  /// The force tau_x e1 + tau_y e2 at Co and the torque tau_theta about the axis.
  static void wrench(const RigidSite& s, const double* tau, Vector3& f_W, Vector3& t_W) {
    const Matrix3 E_W = s.R_WJ() * planarJointFrame(s.joint().axis);
    f_W = tau[0] * E_W.col(0) + tau[1] * E_W.col(1);
    t_W = tau[2] * E_W.col(2);
  }
  /// The child origin's offset off the plane, and the tilt of the axis.
  static void error(const Joint& joint, const Transform& X_JC, JointError& e) {
    e.position_error = std::abs(joint.axis.dot(X_JC.translation()));
    e.rotation_error = angleBetween(joint.axis, X_JC.rotation() * joint.axis);
  }

  static void setupMultiBody(btMultiBody& body, int b, const MultiBodySetup& s, const Joint& joint,
                             const Transform& X_LB) {
    // The COM's offset from the parent's COM at q = 0, in the parent's B axes.
    const Vector3 offset = s.X_BpJ.actPoint(X_LB.translation());
    body.setupPlanar(b, s.mass, s.inertia, s.parent, s.rot_parent_to_this,
                     detail::toBullet(X_LB.rotation().transpose() * joint.axis),
                     detail::toBullet(offset), /*disableParentCollision=*/true);
  }
  static void setState(const MultiBodySite& s, btMultiBody& body, const double* q,
                       const double* v) {
    const Coordinates c(s, body, q[2]);
    const Vector3 w = c.R_BL * (q[0] * c.E.col(0) + q[1] * c.E.col(1) + c.R * c.com - c.com);
    const Vector3 v_b = c.velocityMap() * Eigen::Map<const Vector3>(v);
    const btScalar q_bullet[3] = {btScalar(q[2]), btScalar(c.b1.dot(w)), btScalar(c.b2.dot(w))};
    const btScalar v_bullet[3] = {btScalar(v_b[0]), btScalar(v_b[1]), btScalar(v_b[2])};
    body.setJointPosMultiDof(s.b, q_bullet);
    body.setJointVelMultiDof(s.b, v_bullet);
  }
  static void getState(const MultiBodySite& s, const btMultiBody& body, double* q, double* v) {
    const btScalar* qb = body.getJointPosMultiDof(s.b);
    const btScalar* vb = body.getJointVelMultiDof(s.b);
    const Coordinates c(s, body, qb[0]);
    const Vector3 p = c.R_BL.transpose() * (qb[1] * c.b1 + qb[2] * c.b2) - c.R * c.com + c.com;
    q[0] = c.E.col(0).dot(p);
    q[1] = c.E.col(1).dot(p);
    q[2] = qb[0];
    put3(v, c.velocityMap().inverse() * Vector3(vb[0], vb[1], vb[2]));
  }
  /// Power-preserving: tau_bullet = T^-T tau for v_bullet = T v.
  static void setTorque(const MultiBodySite& s, btMultiBody& body, const double* tau) {
    const Coordinates c(s, body, body.getJointPosMultiDof(s.b)[0]);
    const Vector3 tau_b = c.velocityMap().transpose().inverse() * Eigen::Map<const Vector3>(tau);
    for (int i = 0; i < 3; ++i) body.getJointTorqueMultiDof(s.b)[i] = tau_b(i);
  }
  /// v_bullet = T(theta) v, so a_bullet = T a + T_dot v and a = T^-1 (a_bullet - T_dot v).
  static void getAcceleration(const MultiBodySite& s, const btMultiBody& body,
                              const btScalar* joint_accelerations, double* a) {
    const Coordinates c(s, body, body.getJointPosMultiDof(s.b)[0]);
    const btScalar* ab = joint_accelerations + body.getLink(s.b).m_dofOffset;
    const btScalar* vb = body.getJointVelMultiDof(s.b);
    const Matrix3 T = c.velocityMap();
    const Vector3 v = T.inverse() * Vector3(vb[0], vb[1], vb[2]);
    put3(a, T.inverse() * (Vector3(ab[0], ab[1], ab[2]) - c.velocityMapRate(v[2]) * v));
  }

 private:
  /// What the maps between the two coordinate sets need at one theta (file comment).
  struct Coordinates {
    Coordinates(const MultiBodySite& s, const btMultiBody& body, double theta)
        : axis(s.joint().axis),
          E(planarJointFrame(axis)),
          R(rotationAboutAxis(axis, theta)),
          R_BL(s.layout.X_LB[s.k].rotation().transpose()),
          com(s.layout.X_LB[s.k].translation()),
          b1(detail::fromBullet(body.getLink(s.b).getAxisBottom(1))),
          b2(detail::fromBullet(body.getLink(s.b).getAxisBottom(2))) {}
    /// T with v_bullet = T v: theta_dot first, then u = B^T R_BL (S_lin (x_dot, y_dot) +
    /// theta_dot axis x com).
    Matrix3 velocityMap() const {
      Matrix3 T = Matrix3::Zero();
      T(0, 2) = 1.0;
      const Vector3 s1 = R.transpose() * E.col(0), s2 = R.transpose() * E.col(1);
      const Vector3 s3 = axis.cross(com);
      T.row(1) << b1.dot(R_BL * s1), b1.dot(R_BL * s2), b1.dot(R_BL * s3);
      T.row(2) << b2.dot(R_BL * s1), b2.dot(R_BL * s2), b2.dot(R_BL * s3);
      return T;
    }
    /// dT/dt: only S_lin turns, with dS_lin/dt = -theta_dot [axis]x S_lin.
    Matrix3 velocityMapRate(double theta_dot) const {
      Matrix3 dT = Matrix3::Zero();
      const Vector3 s1 = -theta_dot * axis.cross(R.transpose() * E.col(0));
      const Vector3 s2 = -theta_dot * axis.cross(R.transpose() * E.col(1));
      dT.row(1) << b1.dot(R_BL * s1), b1.dot(R_BL * s2), 0.0;
      dT.row(2) << b2.dot(R_BL * s1), b2.dot(R_BL * s2), 0.0;
      return dT;
    }
    Vector3 axis;  ///< in C (and J)
    Matrix3 E;     ///< (e1, e2, axis) in J
    Matrix3 R;     ///< R_JC = Rot(axis, theta)
    Matrix3 R_BL;  ///< the child's B axes from its C axes
    Vector3 com;   ///< the COM in C
    Vector3 b1;    ///< Bullet's translation axes, in B
    Vector3 b2;
  };
};

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
