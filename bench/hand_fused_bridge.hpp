#pragma once
// A hand-fused peer of the bridge's work in one substep, for bench_bridge: what readPositions,
// readVelocities(Sparse), addJointForces and removeJointForces do, written out for four joint
// kinds only (a fixed or free root, quaternion balls, revolutes) in plain loops straight from
// Bullet's bodies: no kernel dispatch, no per-joint site, each quantity computed once where it is
// used. It keeps the bridge's guarantees on the hot path (the model and the world checked against
// what they were when it was made, every pose and velocity checked finite, q and v written only
// when all of them are, angles unwrapped and quaternions kept on the side of the last read,
// the forces checked finite and the world checked again before them): the peer the generic
// bridge is measured against. It is not a bound: written straightforwardly, it takes each angle
// where it reads the joint, where the bridge overlaps them. Unlike the bridge it says nothing
// about what failed.

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

#include <Eigen/Core>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::bench {
namespace hand_fused_detail {
/// The rotation matrix of the world, row by row: a root's parent.
inline constexpr double kIdentityRows[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
}  // namespace hand_fused_detail

class HandFusedBridge {
 public:
  /// The peer for `model` in the world of `map`, or nullptr (with `why`) for a model it was not
  /// written for: another joint type, a ball or free joint with rotated joint axes, a body whose
  /// axes are not its link's, or a static body other than a fixed root's.
  static std::unique_ptr<HandFusedBridge> make(const Model& model, const RigidBodyMap& map,
                                               std::string& why);

  /// readPositions + readVelocities(Sparse): false, with q and v unchanged, if the model or the
  /// world changed or a pose or velocity is not finite.
  bool read(Eigen::VectorXd& q, Eigen::VectorXd& v);
  /// addJointForces: false, applying nothing, if tau is not finite or the world changed.
  bool addForces(const Eigen::VectorXd& tau);
  /// removeJointForces: takes out what addForces applied.
  void removeForces();

 private:
  enum class Kind { FixedRoot, Free, Ball, Revolute };
  /// One joint, with what its read and its forces need.
  struct FusedJoint {
    Kind kind;
    int link, parent;  ///< parent -1: the world
    int idx_q, idx_v;
    btRigidBody* child_body;
    btRigidBody* parent_body;  ///< nullptr: the world
    bool parent_moves;         ///< the parent body takes the reaction torque
    const btTypedConstraint* constraint;
    int constraint_index;  ///< where it was in the world's list at the last check
    /// Revolute: 2 sin(theta) and 2 cos(theta) are the Frobenius products of S_P and C_P with
    /// R_PC; axis_P is the axis in the parent's axes.
    double S_P[9], C_P[9];
    Vector3 axis_P;
  };
  /// A link's pose and velocity as Bullet has them: R_WL row by row, the link origin Lo, the
  /// angular velocity and the COM's velocity and position.
  struct LinkState {
    double R_WL[9];
    Vector3 p_WLo, omega_WL_W, v_WLcm_W, p_WLcm;
  };

  HandFusedBridge(const Model& model, const RigidBodyMap& map);
  bool sameModel() const;
  bool sameWorld();
  bool readLinks();
  /// R_WP row by row (the identity for a root).
  const double* parentRotation(const FusedJoint& j) const {
    return j.parent >= 0 ? links_[j.parent].R_WL : hand_fused_detail::kIdentityRows;
  }
  void readJoint(const FusedJoint& j, double* q, double* v);
  void applyTorque(const FusedJoint& j, const btVector3& t_W);

  const Model& model_;
  const RigidBodyMap& map_;
  const btAlignedObjectArray<btTypedConstraint*>* constraints_;
  std::vector<FusedJoint> joints_;
  std::vector<int> parents_, types_;
  std::vector<double> masses_, inverse_masses_;
  /// The links' states of the last read that passed, and the buffer the next read fills.
  std::vector<LinkState> links_, links_read_;
  std::vector<btVector3> applied_torque_W_, applied_force_W_;
  Eigen::VectorXd q_read_, v_read_, q_previous_;
  bool has_previous_ = false;
};

// ---------------------------------------------------------------------------------------------

namespace hand_fused_detail {

/// The list of constraints a btDiscreteDynamicsWorld solves (protected: named through a
/// derived class), as the map reads it.
struct ConstraintList : btDiscreteDynamicsWorld {
  static const btAlignedObjectArray<btTypedConstraint*>& of(const btDiscreteDynamicsWorld& w) {
    return w.*(&ConstraintList::m_constraints);
  }
};

/// The unit quaternion (x, y, z, w) of the rotation whose rows are R, on the side of `previous`
/// (w >= 0 without one): Shepperd's method, normalized as the bridge's (which is private to it).
inline void writeQuaternion(const double R[9], const double* previous, double* q) {
  double x, y, z, w;
  const double trace = R[0] + R[4] + R[8];
  if (trace > 0.0) {
    const double t = std::sqrt(trace + 1.0), s = 0.5 / t;
    w = 0.5 * t, x = (R[7] - R[5]) * s, y = (R[2] - R[6]) * s, z = (R[3] - R[1]) * s;
  } else if (R[0] >= R[4] && R[0] >= R[8]) {
    const double t = std::sqrt(R[0] - R[4] - R[8] + 1.0), s = 0.5 / t;
    x = 0.5 * t, w = (R[7] - R[5]) * s, y = (R[3] + R[1]) * s, z = (R[6] + R[2]) * s;
  } else if (R[4] >= R[8]) {
    const double t = std::sqrt(R[4] - R[8] - R[0] + 1.0), s = 0.5 / t;
    y = 0.5 * t, w = (R[2] - R[6]) * s, z = (R[7] + R[5]) * s, x = (R[1] + R[3]) * s;
  } else {
    const double t = std::sqrt(R[8] - R[0] - R[4] + 1.0), s = 0.5 / t;
    z = 0.5 * t, w = (R[3] - R[1]) * s, x = (R[2] + R[6]) * s, y = (R[5] + R[7]) * s;
  }
  const double norm2 = x * x + y * y + z * z + w * w;
  double scale = std::abs(norm2 - 1.0) > 1e-14 ? 1.0 / std::sqrt(norm2) : 1.0;
  const double side = previous != nullptr
                          ? x * previous[0] + y * previous[1] + z * previous[2] + w * previous[3]
                          : w;
  if (side < 0.0) scale = -scale;
  q[0] = scale * x, q[1] = scale * y, q[2] = scale * z, q[3] = scale * w;
}

/// R^T a for R stored row by row.
inline Vector3 transposeTimes(const double R[9], const Vector3& a) {
  return Vector3(R[0] * a.x() + R[3] * a.y() + R[6] * a.z(),
                 R[1] * a.x() + R[4] * a.y() + R[7] * a.z(),
                 R[2] * a.x() + R[5] * a.y() + R[8] * a.z());
}

/// R a for R stored row by row.
inline Vector3 times(const double R[9], const Vector3& a) {
  return Vector3(R[0] * a.x() + R[1] * a.y() + R[2] * a.z(),
                 R[3] * a.x() + R[4] * a.y() + R[5] * a.z(),
                 R[6] * a.x() + R[7] * a.y() + R[8] * a.z());
}

inline void put3(double* out, const Vector3& a) { out[0] = a.x(), out[1] = a.y(), out[2] = a.z(); }

inline btVector3 toBt(const Vector3& a) { return btVector3(a.x(), a.y(), a.z()); }
inline Vector3 fromBt(const btVector3& a) { return Vector3(a.x(), a.y(), a.z()); }

}  // namespace hand_fused_detail

inline std::unique_ptr<HandFusedBridge> HandFusedBridge::make(const Model& model,
                                                              const RigidBodyMap& map,
                                                              std::string& why) {
  const auto* world = dynamic_cast<const btDiscreteDynamicsWorld*>(map.world());
  if (world == nullptr) {
    why = "the world is not a btDiscreteDynamicsWorld";
    return nullptr;
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const bool root = model.parents[k] < 0;
    const bool known =
        joint.type == JointType::Revolute ||
        (joint.type == JointType::Ball && joint.ball == BallParametrization::Quaternion) ||
        (root && (joint.type == JointType::Free || joint.type == JointType::Fixed));
    const bool axes = joint.type == JointType::Revolute || joint.parent_axes;
    // A body in link axes, moving unless it is a fixed root's.
    const btRigidBody* body = map.body(k);
    const bool body_fits =
        body != nullptr && map.bodyAxesAreLinkAxes(k) &&
        ((root && joint.type == JointType::Fixed) || !body->isStaticOrKinematicObject());
    if (!known || !axes || !body_fits ||
        (joint.type == JointType::Free && !joint.X_PJ.translation().isZero(0.0))) {
      why = "joint '" + joint.name + "' is not one the hand-fused pass was written for";
      return nullptr;
    }
  }
  return std::unique_ptr<HandFusedBridge>(new HandFusedBridge(model, map));
}

inline HandFusedBridge::HandFusedBridge(const Model& model, const RigidBodyMap& map)
    : model_(model),
      map_(map),
      constraints_(&hand_fused_detail::ConstraintList::of(
          *static_cast<const btDiscreteDynamicsWorld*>(map.world()))),
      parents_(model.parents),
      links_(model.numLinks()),
      links_read_(model.numLinks()),
      applied_torque_W_(model.numLinks(), btVector3(0, 0, 0)),
      applied_force_W_(model.numLinks(), btVector3(0, 0, 0)),
      q_read_(model.nq),
      v_read_(model.nv),
      q_previous_(model.nq) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    types_.push_back(static_cast<int>(joint.type));
    masses_.push_back(model.inertias[k].mass());
    inverse_masses_.push_back(map.body(k)->getInvMass());
    FusedJoint j{};
    j.link = k;
    j.parent = model.parents[k];
    j.idx_q = joint.idx_q;
    j.idx_v = joint.idx_v;
    j.child_body = map.body(k);
    j.parent_body = j.parent >= 0 ? map.body(j.parent) : nullptr;
    j.parent_moves = j.parent_body != nullptr && !j.parent_body->isStaticOrKinematicObject();
    j.constraint = map.constraint(k);
    j.constraint_index = -1;
    j.kind = joint.type == JointType::Fixed  ? Kind::FixedRoot
             : joint.type == JointType::Free ? Kind::Free
             : joint.type == JointType::Ball ? Kind::Ball
                                             : Kind::Revolute;
    if (j.kind == Kind::Revolute) {
      // R_JC = I + sin [a]x + (1 - cos) [a]x^2 and R_PC = R_PJ R_JC give the two products.
      const Matrix3& R_PJ = joint.X_PJ.rotation();
      const Vector3& a = joint.axis;
      Matrix3 a_cross;
      a_cross << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
      const Matrix3 S_P = R_PJ * a_cross;
      const Matrix3 C_P = R_PJ - (R_PJ * a) * a.transpose();
      for (int i = 0; i < 9; ++i) j.S_P[i] = S_P(i / 3, i % 3), j.C_P[i] = C_P(i / 3, i % 3);
      j.axis_P = R_PJ * a;
    }
    joints_.push_back(j);
  }
}

/// The model's tree, joint types and masses as they were (map.validate's model check).
inline bool HandFusedBridge::sameModel() const {
  bool same = model_.parents == parents_;
  for (int k = 0; k < model_.numLinks(); ++k) {
    same &= static_cast<int>(model_.joints[k].type) == types_[k];
    same &= model_.inertias[k].mass() == masses_[k];
  }
  return same;
}

/// Every body still in the world with its inverse mass, every constraint in it and enabled.
inline bool HandFusedBridge::sameWorld() {
  const btCollisionObjectArray& objects = map_.world()->getCollisionObjectArray();
  const int num_constraints = constraints_->size();
  bool same = true;
  for (FusedJoint& j : joints_) {
    const int i = j.child_body->getWorldArrayIndex();
    same &= i >= 0 && i < objects.size() && objects[i] == j.child_body;
    same &= j.child_body->getInvMass() == inverse_masses_[j.link];
    if (j.constraint == nullptr) continue;
    int& index = j.constraint_index;
    if (index < 0 || index >= num_constraints || (*constraints_)[index] != j.constraint) {
      index = -1;
      for (int c = 0; c < num_constraints; ++c) {
        if ((*constraints_)[c] == j.constraint) index = c;
      }
    }
    same &= index >= 0 && j.constraint->isEnabled();
  }
  return same;
}

/// Every link's pose and velocity from its body, into links_read_; whether all are finite (a NaN
/// or an infinity anywhere in a body's pose reaches the link origin computed from it).
inline bool HandFusedBridge::readLinks() {
  using hand_fused_detail::fromBt;
  btVector3 zero(0, 0, 0);
  for (const FusedJoint& j : joints_) {
    const btTransform& X_WB = j.child_body->getCenterOfMassTransform();
    LinkState& link = links_read_[j.link];
    for (int i = 0; i < 9; ++i) link.R_WL[i] = X_WB.getBasis()[i / 3][i % 3];
    const btVector3 p_WLo = X_WB(hand_fused_detail::toBt(map_.X_BL(j.link).translation()));
    const btVector3& omega = j.child_body->getAngularVelocity();
    const btVector3& v_cm = j.child_body->getLinearVelocity();
    zero += p_WLo * 0 + omega * 0 + v_cm * 0;
    link.p_WLo = fromBt(p_WLo);
    link.omega_WL_W = fromBt(omega);
    link.v_WLcm_W = fromBt(v_cm);
    link.p_WLcm = fromBt(X_WB.getOrigin());
  }
  return zero.x() + zero.y() + zero.z() == 0;
}

/// Joint j's q and v from its link's and its parent's states (the bridge's kernels' formulas).
inline void HandFusedBridge::readJoint(const FusedJoint& j, double* q, double* v) {
  using hand_fused_detail::transposeTimes;
  const LinkState& C = links_[j.link];
  const double* previous = has_previous_ ? q_previous_.data() + j.idx_q : nullptr;
  if (j.kind == Kind::Free) {
    q[0] = C.p_WLo.x(), q[1] = C.p_WLo.y(), q[2] = C.p_WLo.z();
    hand_fused_detail::writeQuaternion(C.R_WL, previous ? previous + 3 : nullptr, q + 3);
    const Vector3 v_WLo_W = C.v_WLcm_W + C.omega_WL_W.cross(C.p_WLo - C.p_WLcm);
    hand_fused_detail::put3(v, transposeTimes(C.R_WL, C.omega_WL_W));
    hand_fused_detail::put3(v + 3, transposeTimes(C.R_WL, v_WLo_W));
    return;
  }
  const double* R_WP = parentRotation(j);
  const Vector3 omega_PC_W =
      j.parent >= 0 ? Vector3(C.omega_WL_W - links_[j.parent].omega_WL_W) : C.omega_WL_W;
  // R_PC = R_WP^T R_WC, entry by entry.
  double R_PC[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      R_PC[3 * r + c] =
          R_WP[r] * C.R_WL[c] + R_WP[3 + r] * C.R_WL[3 + c] + R_WP[6 + r] * C.R_WL[6 + c];
    }
  }
  if (j.kind == Kind::Ball) {
    hand_fused_detail::writeQuaternion(R_PC, previous, q);
    hand_fused_detail::put3(v, transposeTimes(C.R_WL, omega_PC_W));
    return;
  }
  double twice_sin = 0.0, twice_cos = 0.0;
  for (int i = 0; i < 9; ++i) twice_sin += j.S_P[i] * R_PC[i], twice_cos += j.C_P[i] * R_PC[i];
  double theta = gcbridge::detail::arcTan2(twice_sin, twice_cos);
  if (previous != nullptr) {
    double step = theta - *previous;
    if (std::abs(step) > M_PI) step -= 2.0 * M_PI * std::round(step / (2.0 * M_PI));
    theta = *previous + step;
  }
  q[0] = theta;
  v[0] = hand_fused_detail::times(R_WP, j.axis_P).dot(omega_PC_W);
}

inline bool HandFusedBridge::read(Eigen::VectorXd& q, Eigen::VectorXd& v) {
  if (!sameModel() || !sameWorld() || !readLinks()) return false;
  links_.swap(links_read_);
  for (const FusedJoint& j : joints_) {
    if (j.kind != Kind::FixedRoot) readJoint(j, q_read_.data() + j.idx_q, v_read_.data() + j.idx_v);
  }
  q = q_read_;
  v = v_read_;
  q_previous_ = q_read_;
  has_previous_ = true;
  return true;
}

/// t_W on joint j's child and its reaction on a moving parent, remembered for removeForces.
inline void HandFusedBridge::applyTorque(const FusedJoint& j, const btVector3& t_W) {
  j.child_body->applyTorque(t_W);
  applied_torque_W_[j.link] += t_W;
  if (!j.parent_moves) return;
  j.parent_body->applyTorque(-t_W);
  applied_torque_W_[j.parent] -= t_W;
}

inline bool HandFusedBridge::addForces(const Eigen::VectorXd& tau) {
  using hand_fused_detail::times;
  using hand_fused_detail::toBt;
  if (!((tau * 0.0).sum() == 0.0) || !sameWorld()) return false;
  for (const FusedJoint& j : joints_) {
    const LinkState& C = links_[j.link];
    const double* tau_j = tau.data() + j.idx_v;
    if (j.kind == Kind::Revolute) {
      applyTorque(j, toBt(tau_j[0] * times(parentRotation(j), j.axis_P)));
    } else if (j.kind == Kind::Ball) {
      applyTorque(j, toBt(times(C.R_WL, Eigen::Map<const Vector3>(tau_j))));
    } else if (j.kind == Kind::Free) {
      // The force at the link origin, moved to the COM.
      const Vector3 f_W = times(C.R_WL, Eigen::Map<const Vector3>(tau_j + 3));
      const Vector3 t_W =
          times(C.R_WL, Eigen::Map<const Vector3>(tau_j)) + (C.p_WLo - C.p_WLcm).cross(f_W);
      j.child_body->applyCentralForce(toBt(f_W));
      applied_force_W_[j.link] += toBt(f_W);
      applyTorque(j, toBt(t_W));
    }
  }
  return true;
}

inline void HandFusedBridge::removeForces() {
  for (const FusedJoint& j : joints_) {
    if (j.kind == Kind::FixedRoot) continue;
    j.child_body->applyTorque(-applied_torque_W_[j.link]);
    applied_torque_W_[j.link].setZero();
    if (j.kind != Kind::Free) continue;
    j.child_body->applyCentralForce(-applied_force_W_[j.link]);
    applied_force_W_[j.link].setZero();
  }
}

}  // namespace gcbridge::bench
