#pragma once
/// @file
/// RigidBodyMap: how a gcbridge Model sits in a Bullet world of btRigidBody objects held together
/// by btTypedConstraint joints (maximal coordinates), and BridgeData, the workspace of every
/// conversion between that world and the model's generalized coordinates.
///
/// Frames. L is a model link frame (the frame model.inertias[k] is given in; its origin is in
/// general not the centre of mass). B is Bullet's frame of the same link's btRigidBody: always the
/// centre of mass with principal axes (btRigidBody takes a diagonal inertia). X_LB is constant per
/// link and
/// kept in the map, so X_WL = X_WB * X_LB^-1 exactly.
///
/// Parents. Which body a Bullet constraint calls A and which B carries no meaning (Bullet's own
/// URDF importer makes the child A for hinges; single-body constructors put the body on A for
/// hinges and point-to-point constraints, on B for sliders and 6-DOF constraints). The map records,
/// per joint, which side is the parent link.
///
/// Ownership. The map does not own the bodies or constraints (a RigidBodyWorld or the application
/// does). It claims its bodies: while it exists, no other map can be made over any of them (two
/// models driving one body would fight over it); the claim ends with the map.

#include "gcbridge/bridge/bullet_precision.hpp"

// Bullet.
#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btAlignedObjectArray.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/spatial.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// What RigidBodyMap::validate checks.
enum class MapCheck {
  Everything,     ///< the model against the map, the world against the map, the bodies' state
  ModelAndWorld,  ///< without the bodies' state (before it is overwritten, or where a read
                  ///< checks it as it reads it)
  World,          ///< the world only (bodies, constraints, masses): before forces, whose
                  ///< substep's read checked the model and the bodies' state
};

/// Which link each Bullet body is, which constraint each joint is, and the fixed frames between
/// them. Made by buildRigidBodyWorld (rigid_body_world.hpp) or inferModelFromWorld
/// (world_inference.hpp), or by hand with the constructor below; not changed afterwards. Objects
/// that point at a map (a Plugin) need it to stay where it is: hold it by unique_ptr.
class RigidBodyMap {
 public:
  /// Makes a map of `model` onto bodies and constraints of `world`, and claims the bodies.
  /// @param[in] bodies the body of each link (nlinks); nullptr for a massless link that has no
  ///   body (the middle link of a universal joint, or of any chain of joints between two bodies)
  /// @param[in] X_LB Bullet's COM principal frame B of each link in the link frame L (nlinks;
  ///   ignored where the body is nullptr)
  /// @param[in] constraints the constraint of each joint (nlinks): nullptr for a Free root and for
  ///   a root that is itself a static body (a fixed base); one constraint may serve several
  ///   joints (a universal joint is two revolute joints)
  /// @param[in] parent_is_a per joint: whether the parent link's body (or the world) is the
  ///   constraint's body A (nlinks; ignored where the constraint is nullptr)
  /// @throws WorldError if a size is wrong, a body or constraint is not in `world`, a body is
  ///   already claimed by another map, or a body's state is not finite.
  RigidBodyMap(const Model& model, btDynamicsWorld* world, std::vector<btRigidBody*> bodies,
               std::vector<Transform> X_LB, std::vector<btTypedConstraint*> constraints,
               std::vector<bool> parent_is_a);
  ~RigidBodyMap();
  RigidBodyMap(RigidBodyMap&& other) noexcept;
  RigidBodyMap& operator=(RigidBodyMap&& other) noexcept;
  RigidBodyMap(const RigidBodyMap&) = delete;
  RigidBodyMap& operator=(const RigidBodyMap&) = delete;

  /// The world the bodies live in.
  btDynamicsWorld* world() const { return world_; }
  /// Number of links (= model.numLinks()).
  int numLinks() const { return static_cast<int>(bodies_.size()); }
  /// The body of link k (nullptr: a massless link without a body).
  btRigidBody* body(int k) const { return bodies_[k]; }
  /// Bullet's body frame B of link k in its link frame L.
  const Transform& X_LB(int k) const { return X_LB_[k]; }
  /// Its inverse: the link frame L in Bullet's body frame B.
  const Transform& X_BL(int k) const { return X_BL_[k]; }
  /// Whether link k's body axes are its link axes (X_LB a pure translation: a diagonal inertia).
  bool bodyAxesAreLinkAxes(int k) const { return body_axes_are_link_axes_[k] != 0; }
  /// The constraint of joint k (nullptr: a Free root, or a root that is a static body).
  btTypedConstraint* constraint(int k) const { return constraints_[k]; }
  /// Whether the parent of joint k is its constraint's body A.
  bool parentIsA(int k) const { return parent_is_a_[k]; }
  /// The link whose body is `object`, or -1 if it is none of this map's bodies.
  int linkOf(const btCollisionObject* object) const;
  /// Bullet's inverse mass of each link's body when the map was made (0 for static bodies).
  double inverseMassAtMap(int k) const { return inverse_masses_[k]; }

  /// Checks that `model` is the model the map was made for (its name and link count always; with
  /// MapCheck::Everything or ModelAndWorld also its tree, joint types and link masses), that the
  /// world still matches the map (every body and constraint still in the world, O(1) per
  /// object; every constraint enabled; every body's inverse mass unchanged) and, with
  /// MapCheck::Everything, that every body's pose and velocity are finite.
  /// @throws WorldError naming the link, joint, body or constraint that is wrong.
  void validate(const Model& model, const char* function,
                MapCheck check = MapCheck::Everything) const;

 private:
  void release();

  btDynamicsWorld* world_ = nullptr;
  /// The list a btDiscreteDynamicsWorld (or a subclass) keeps its added constraints in, which
  /// validate reads directly (getConstraint is a virtual call per constraint; a subclass's
  /// override of it is bypassed); nullptr for worlds of other kinds.
  const btAlignedObjectArray<btTypedConstraint*>* constraint_list_ = nullptr;
  std::vector<btRigidBody*> bodies_;
  std::vector<Transform> X_LB_;
  std::vector<Transform> X_BL_;
  std::vector<char> body_axes_are_link_axes_;
  std::vector<btTypedConstraint*> constraints_;
  std::vector<bool> parent_is_a_;
  std::vector<double> inverse_masses_;
  /// Where each constraint was last found in the world's list (a hint: the list reorders when
  /// constraints are removed).
  mutable std::vector<int> constraint_index_;
  /// The model the map was made for: its name, and per link the parent, the joint type and the
  /// mass (validate compares them: a fixed- and a floating-base model of one robot share a name
  /// and a link count).
  std::string model_name_;
  std::vector<int> model_parents_;
  std::vector<JointType> model_joint_types_;
  std::vector<double> model_masses_;
};

/// One joint's constraint error, measured from the two bodies' poses (not from Bullet's angle
/// getters, which can be a step stale).
struct JointError {
  /// Distance between where the joint puts the child frame's origin and where it is, minus the
  /// motion the joint allows (revolute, ball, fixed: the pivot separation; prismatic: the offset
  /// off the axis) [m].
  double position_error = 0.0;
  /// Rotation the joint does not allow [rad]: revolute, the angle between the axis in the parent
  /// and in the child; prismatic and fixed, the whole relative rotation; ball and free: 0.
  double rotation_error = 0.0;
};

struct BridgeInternals;

/// The workspace of every conversion: built once per model and map, reused every call. The sparse
/// conversions and the force conversions do not allocate; the pseudo-inverse and mass-weighted
/// velocity methods (dense factorizations) do.
struct BridgeData {
  explicit BridgeData(const Model& model);

  /// The model the workspace was made for: its name and sizes (checkBridgeData compares them).
  std::string model_name;
  int num_links = 0;
  int nq = 0;
  int nv = 0;
  /// The dynamics workspace: forward kinematics of the model at q_previous, when
  /// kinematics_current says so (updateKinematics in state_conversion.hpp).
  Data dynamics;
  /// Whether `dynamics` holds the forward kinematics at q_previous (writeState and the
  /// stacked-Jacobian methods leave it so; readPositions does not run it, to stay cheap).
  bool kinematics_current = false;
  /// The last q read or written, the reference for unwrapping revolute angles and keeping ball
  /// quaternions on one side (nq).
  Eigen::VectorXd q_previous;
  /// Whether q_previous holds a configuration (false until the first read or write; set it to
  /// false to restart unwrapping from [-pi, pi]).
  bool has_previous = false;

  /// Pose of each link frame L in the world, from Bullet (nlinks; bodiless links from the model).
  /// A read swaps in new storage for it and the two below: hold no pointer into them.
  std::vector<Transform> X_WL;
  /// Each body's angular velocity and COM velocity in W, from Bullet (nlinks; 0 for bodiless).
  std::vector<Vector3> omega_WB_W;
  std::vector<Vector3> v_WBcm_W;

  /// Per link: || J_k v - V_k || of the last velocity read, with V_k = (v_Bcm [m/s],
  /// omega [rad/s]) Bullet's COM velocity and angular velocity (Liu & Jain, eq. 60-61). Zero when
  /// the velocities are consistent with the joints (nlinks).
  Eigen::VectorXd velocity_residual;
  /// Per joint: the constraint error of the last computeJointErrors call (nlinks).
  std::vector<JointError> joint_errors;

  /// Per link: force at the COM and moment about the COM, world axes, that the last
  /// jointForcesToBodyWrenches or applyJointImpulses put on the body [N, N m] (nlinks).
  std::vector<Vector3> force_W;
  std::vector<Vector3> torque_W;
  /// Per link: what addJointForces has added to the body's accumulators since the last
  /// removeJointForces or forgetJointForces (force at the COM, torque), world axes (nlinks).
  std::vector<Vector3> applied_force_W;
  std::vector<Vector3> applied_torque_W;


 private:
  friend struct BridgeInternals;
  /// What the conversions precompute per joint and the scratch they work in (the bridge's own,
  /// reached through BridgeInternals).
  struct Internals {
    /// An angle readPositions reads in its last pass: q[q_index] = atan2(sine, cosine).
    struct StagedAngle {
      int q_index;
      double sine;
      double cosine;
    };
    /// A rotation readPositions writes as a quaternion in its last pass, at q[q_index..+3].
    struct StagedRotation {
      int q_index;
      Matrix3 R_JC;
    };
    /// Per joint with an axis (revolute, prismatic, planar), the axis in the parent frame
    /// R_PJ a, and per revolute joint the two matrices the angle read-out weighs
    /// R_WP^T R_WC's entries with: R_PJ [a]x for the sine and R_PJ - (R_PJ a) a^T for the
    /// cosine (nlinks; unused for other joints).
    std::vector<Vector3> joint_axis_P;
    std::vector<Matrix3> revolute_axis_cross_P;
    std::vector<Matrix3> revolute_cosine_P;
    /// Per link: whether a joint force can push its body, not only turn it: its own joint or a
    /// child's is not a pure torque (prismatic, planar, free). The others' forces stay zero,
    /// and adding and removing the forces skip them (nlinks). A bodiless link, whose joints'
    /// wrenches go to the bodies beyond it, is a universal joint's middle between two revolutes
    /// (the map's rule), so those wrenches are torques.
    std::vector<char> takes_force;
    /// Whether addJointForces sums every body's wrench before it applies any, rather than
    /// applying each joint's as it is formed: when a joint's wrench can throw (an exp-map or
    /// Euler-angle ball), so that a throw applies nothing, and with single-precision Bullet,
    /// where each application rounds to float and a body's joint torques, large and nearly
    /// cancelling, are better summed in double first.
    bool sum_wrenches_first = false;
    /// readPositions' angles and rotations left to its last passes (capacities nlinks: no
    /// allocation).
    std::vector<StagedAngle> staged_angles;
    std::vector<StagedRotation> staged_rotations;
    /// The bodies' poses and velocities as a read finds them, swapped into X_WL, omega_WB_W
    /// and v_WBcm_W once every value is finite: a refused read leaves those as they were
    /// (nlinks).
    std::vector<Transform> X_WL_read;
    std::vector<Vector3> omega_WB_W_read;
    std::vector<Vector3> v_WBcm_W_read;
    /// Scratch (nq, nv).
    Eigen::VectorXd q_scratch;
    Eigen::VectorXd v_scratch;
    /// Scratch of the stacked-Jacobian methods (6 nlinks x nv, 6 nlinks, nv x nv).
    Eigen::MatrixXd J_stacked;
    Eigen::VectorXd V_stacked;
    Eigen::MatrixXd normal_matrix;
  };
  Internals internals_;
};

/// Checks that `bdata` was made for `model` (its name and sizes): every conversion calls it
/// first, since a workspace of another model would be read and written beyond its ends.
/// @throws InvalidArgumentError naming both models.
void checkBridgeData(const Model& model, const BridgeData& bdata, const char* function);

GCBRIDGE_BULLET_NAMESPACE_END
