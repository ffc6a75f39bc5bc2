#pragma once
// Private to the bridge: what a joint's bridge kernel sees of its joint, for each of the Bullet
// representations, and the rotation read-outs the kernels share.
//
// A bridge kernel (one file per joint kind in this folder) says, for its joint type, which Bullet
// constraint builds it between two rigid bodies and how it is set up in a btMultiBody, how q and
// v are read from the two bodies' poses and velocities, how its generalized force becomes a
// wrench on the child and the opposite one on the parent, what its constraint error is, and how
// q, v, tau and qdd map onto btMultiBody's coordinates. dispatch.hpp picks the kernel; the
// conversions call its functions and never look at the type. How a Bullet constraint is
// recognised as a joint during inference is per Bullet constraint class (constraint_readers).

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>

#include <cmath>
#include <memory>
#include <string>

#include "../bridge_internals.hpp"
#include "../bullet_conversions.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "gcbridge/dynamics/detail/flatten.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

/// What a bridge kernel is, unless it says otherwise.
struct BridgeKernel {
  /// Only a root may have it (a free joint).
  static constexpr bool root_only = false;
  /// Its generalized force is a pure torque: no force, no moment arm (revolute, ball, fixed).
  /// wrench(site, tau, f_W, t_W) writes t_W, and f_W unless torque_only.
  static constexpr bool torque_only = false;
  /// Whether wrench can throw (a parametrization singular somewhere).
  static constexpr bool wrench_may_throw = false;
  /// Whether readVelocity reads the joint's q (the configuration last read, RigidSite::q), so
  /// that it must run after the positions were read and stored.
  static constexpr bool velocity_reads_q = false;
  /// Whether it has btMultiBody functions at all (multiBodyRefusal says why not).
  static constexpr bool in_multibody = true;
  /// Why btMultiBody cannot represent this joint, with the child's COM principal frame X_LB; ""
  /// when it can.
  static std::string multiBodyRefusal(const Joint&, const Transform&) { return ""; }
};

/// The world's rotation, for roots.
inline const Matrix3 kIdentityRotation = Matrix3::Identity();

// --- Rigid bodies: the conversions ------------------------------------------------------------

/// Joint k of a model mapped onto rigid bodies, with the link poses X_WL (and, for velocities,
/// the bodies' velocities) already read into the workspace. P is the parent link (the world for a
/// root), C the child link, J the joint frame.
struct RigidSite {
  const Model& model;
  const RigidBodyMap& map;
  BridgeData& bdata;
  int k;

  const Joint& joint() const { return model.joints[k]; }
  int parent() const { return model.parents[k]; }
  const Matrix3& R_WP() const {
    return parent() < 0 ? kIdentityRotation : bdata.X_WL[parent()].rotation();
  }
  const Matrix3& R_WC() const { return bdata.X_WL[k].rotation(); }
  Matrix3 R_WJ() const { return R_WP() * joint().X_PJ.rotation(); }
  Transform X_WJ() const {
    return parent() < 0 ? joint().X_PJ : bdata.X_WL[parent()] * joint().X_PJ;
  }
  /// The child frame in the joint frame, from the link poses.
  Transform X_JC() const { return X_WJ().inverse() * bdata.X_WL[k]; }
  /// The joint's axis (a normal for a planar joint) in W.
  Vector3 axisInWorld() const { return R_WP() * internals(bdata).joint_axis_P[k]; }
  /// This joint's slice of the configuration last read.
  const double* q() const { return bdata.q_previous.data() + joint().idx_q; }

  /// The child's angular velocity relative to the parent, in W.
  Vector3 relativeAngularVelocity() const {
    return parent() < 0 ? bdata.omega_WB_W[k]
                        : Vector3(bdata.omega_WB_W[k] - bdata.omega_WB_W[parent()]);
  }
  /// The velocity of the child origin Co relative to the parent link (the point of the parent
  /// at Co), in W.
  Vector3 relativeLinearVelocity() const {
    const Vector3 v_Co = linkOriginVelocity(k);
    const int p = parent();
    if (p < 0) return v_Co;
    const Vector3 p_PoCo_W = bdata.X_WL[k].translation() - bdata.X_WL[p].translation();
    return v_Co - (linkOriginVelocity(p) + bdata.omega_WB_W[p].cross(p_PoCo_W));
  }

 private:
  /// Velocity of link j's origin in W: v_Bcm + omega x (p_Lo - p_Bcm).
  Vector3 linkOriginVelocity(int j) const {
    const Vector3 p_LoBcm_W = bdata.X_WL[j].rotation() * map.X_LB(j).translation();
    return bdata.v_WBcm_W[j] - bdata.omega_WB_W[j].cross(p_LoBcm_W);
  }
};

// --- Rigid bodies: the builder ----------------------------------------------------------------

/// What a joint's Bullet constraint is made from: the two bodies (the parent may be Bullet's fixed
/// body) and the joint frame J in each body's frame B (the parent's is in W for the world).
struct ConstraintSite {
  const Model& model;
  int k;
  btRigidBody& parent;
  btRigidBody& child;
  Transform X_BpJ;
  Transform X_BcJ;
  /// The joint as described (swing and twist spans of a ball joint), or nullptr.
  const JointDescription* described;
  const Joint& joint() const { return model.joints[k]; }
};

/// A joint's constraint, and which of its bodies is the parent.
struct BuiltConstraint {
  std::unique_ptr<btTypedConstraint> constraint;
  bool parent_is_a = true;
};

/// A rotation whose `column`-th axis is the unit vector a (the rest completed orthonormally).
inline Matrix3 frameWithAxis(const Vector3& a, int column) {
  const Vector3 z = a.normalized();
  const Vector3 helper = std::abs(z.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
  const Vector3 x = helper.cross(z).normalized();
  const Vector3 y = z.cross(x);
  Matrix3 R;
  // Cyclic order keeps det +1: the axis in `column`, then the next two.
  R.col(column) = z;
  R.col((column + 1) % 3) = x;
  R.col((column + 2) % 3) = y;
  return R;
}

// --- btMultiBody ------------------------------------------------------------------------------

/// Model link k as Bullet link b of a btMultiBody built from the model (b = -1: Bullet's base).
struct MultiBodySite {
  const Model& model;
  const MultiBodyLayout& layout;
  int k;
  int b;
  /// Where a free root reports the force and torque it added to the base (may be nullptr).
  btVector3* base_force_W = nullptr;
  btVector3* base_torque_W = nullptr;
  const Joint& joint() const { return model.joints[k]; }
  const Quaternion& Q_LB() const { return layout.Q_LB[k]; }
};

/// What btMultiBody's setup functions take for link k, in Bullet's B frames: the mass and
/// principal inertia, the parent's Bullet index, the rotation from the parent's B frame to this
/// one at q = 0, the vector from the parent's COM to the joint frame's origin (parent B axes) and
/// from there to this COM (this B axes), and the joint frame in the parent's B frame.
struct MultiBodySetup {
  btScalar mass;
  btVector3 inertia;
  int parent;
  btQuaternion rot_parent_to_this;
  btVector3 parent_com_to_pivot;
  btVector3 pivot_to_com;
  Transform X_BpJ;
};

/// btMultiBody's revolute and prismatic joints: one coordinate, the model's own.
struct OneDofMultiBodyCoordinates : BridgeKernel {
  static void setState(const MultiBodySite& s, btMultiBody& body, const double* q,
                       const double* v) {
    body.setJointPos(s.b, q[0]);
    body.setJointVel(s.b, v[0]);
  }
  static void getState(const MultiBodySite& s, const btMultiBody& body, double* q, double* v) {
    q[0] = body.getJointPos(s.b);
    v[0] = body.getJointVel(s.b);
  }
  static void setTorque(const MultiBodySite& s, btMultiBody& body, const double* tau) {
    body.getJointTorqueMultiDof(s.b)[0] = tau[0];
  }
  static void getAcceleration(const MultiBodySite& s, const btMultiBody& body,
                              const btScalar* joint_accelerations, double* a) {
    a[0] = joint_accelerations[body.getLink(s.b).m_dofOffset];
  }
};

// --- Rotation read-outs -----------------------------------------------------------------------

/// Writes x to out[0..2].
inline void put3(double* out, const Vector3& x) {
  out[0] = x.x();
  out[1] = x.y();
  out[2] = x.z();
}

/// The angle of R about the unit axis a: exact for R = Rot(a, theta); for a rotation that is
/// not about a (Bullet's joint error), the angle of its component about a.
inline double angleAbout(const Matrix3& R, const Vector3& a) {
  const Vector3 twice_sin_axis(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  const double s = 0.5 * a.dot(twice_sin_axis);
  const double c = 0.5 * (R.trace() - a.dot(R * a));
  return gcbridge::detail::arcTan2(s, c);
}

/// The rotation angle of R in [0, pi].
inline double rotationAngle(const Matrix3& R) {
  const Vector3 twice_sin_axis(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  return gcbridge::detail::arcTan2(0.5 * twice_sin_axis.norm(), 0.5 * (R.trace() - 1.0));
}

/// The angle between the unit vectors a and b in [0, pi].
inline double angleBetween(const Vector3& a, const Vector3& b) {
  return gcbridge::detail::arcTan2(a.cross(b).norm(), a.dot(b));
}

/// theta moved by a multiple of 2 pi to be within pi of `previous` (if there is one).
inline double unwrap(double theta, const double* previous) {
  if (previous == nullptr) return theta;
  double step = theta - *previous;
  // Usually |step| < pi already: skip the division.
  if (std::abs(step) > M_PI) step -= 2.0 * M_PI * std::round(step / (2.0 * M_PI));
  return *previous + step;
}

/// Writes the unit quaternion of R into q (x, y, z, w), on the same side as `previous` (or with
/// w >= 0 without one).
void writeQuaternion(const Matrix3& R, const double* previous, double* q);

/// Stages R_JC = R_PJ^T R_WP^T R_WC for readPositions' last pass, which writes it as the
/// quaternion at q[first] (R_PJ is usually the identity, and then skipped). Written in place: a
/// copied temporary would stall on store forwarding.
inline void stageRotation(const RigidSite& s, int first) {
  BridgeInternals::StagedRotation& staged = internals(s.bdata).staged_rotations.emplace_back();
  staged.q_index = first;
  Matrix3& R_JC = staged.R_JC;
  if (s.parent() < 0) {
    R_JC = s.R_WC();
  } else {
    R_JC.noalias() = s.R_WP().transpose() * s.R_WC();
  }
  if (!s.joint().parent_axes) {
    R_JC = s.joint().X_PJ.rotation().transpose() * R_JC;
  }
}

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
