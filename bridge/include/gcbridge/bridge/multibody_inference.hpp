#pragma once
/// @file
/// Reading a model out of a btMultiBody the application made (by hand with setupRevolute and its
/// siblings, with Bullet's URDF importer, or loaded from a .bullet file): its links become a
/// Model, and a MultiBodyLayout maps the body's coordinates onto the model's, so that
/// getMultiBodyState, setMultiBodyJointTorques and attachMultiBody work on the application's own
/// body without the URDF it may have come from.
///
/// | btMultiBody                                     | model                                  |
/// |-------------------------------------------------|----------------------------------------|
/// | base, floating                                  | link 0 on a Free joint                 |
/// | base, fixed (hasFixedBase)                      | link 0 on a Fixed joint at its pose    |
/// | base, fixed, no mass, inertia, collider or name | none: its links hang from the world    |
/// | eRevolute, ePrismatic                           | Revolute, Prismatic (unit axis)        |
/// | eSpherical                                      | Ball (Bullet's quaternion is the q)    |
/// | ePlanar                                         | Planar                                 |
/// | eFixed                                          | Fixed (merged into the parent: option) |
/// | btMultiBodyJointLimitConstraint on a link       | the joint's position limits            |
///
/// Frames. Bullet keeps each link (and the base) in its centre-of-mass frame B, with the axes of
/// its principal inertia. A link's model frame L has B's axes and its origin at the joint's pivot
/// (the base's and a planar link's L is B): X_LB = (I, d), d the link's pivot-to-COM vector
/// (btMultibodyLink::m_dVector). The joint frame in the parent's L is (R(R0)^T, d_p + e): R0 the
/// link's rotation from parent to link coordinates at q = 0 (m_zeroRotParentToThis), e the vector
/// from the parent's COM to the pivot (m_eVector, parent axes; for a planar link, to this COM),
/// d_p the parent's d (0 for the base). Joint axes are the link's (m_axes, in its own axes).
/// With these frames Bullet's joint positions and velocities are the model's q and v for
/// revolute, prismatic and spherical joints; a floating base's q is the pose of its COM frame.
///
/// Names. Links take the body's names where the application set them (getBaseName(),
/// m_linkName, m_jointName); otherwise the base is "base", Bullet link i is "link<i>" and a joint
/// is "<child link>_joint". The base's joint is "root_joint" (Bullet names no joint there).
///
/// What Bullet applies that the model leaves out is reported (MultiBodySettings, warnings):
/// btMultiBody's damping and velocity clamp, joint motors (pybullet adds a velocity motor to every
/// joint, which acts like friction against the plugin's torques), spherical joint limits.
/// The damping, friction, maximum force and velocity a URDF importer stores in the links
/// (m_jointDamping, ...; Bullet itself does not apply them) go into the joints' limits, as a
/// URDF's; the position limits come from the limit constraints only (the links' m_jointLowerLimit
/// and m_jointUpperLimit are 0 when unset, indistinguishable from a locked joint).

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// How inferModelFromMultiBody reads a body.
struct MultiBodyInferenceOptions {
  /// The world holding the body: its gravity, its joint limits (btMultiBodyJointLimitConstraint)
  /// and its other multibody constraints (a loop is refused, a motor reported). nullptr: gravity
  /// is `gravity_W`, and the body's constraints are not read.
  btMultiBodyDynamicsWorld* world = nullptr;
  /// Gravity [m/s^2] when no world is given.
  Vector3 gravity_W = Vector3(0.0, 0.0, -9.81);
  /// Merge links on fixed joints into their parents, as URDF loading does
  /// (ModelOptions::merge_fixed_joints): the model has fewer links than the body, the same
  /// dynamics.
  bool merge_fixed_joints = true;
  /// Model name ("" : the base's name, or "multibody").
  std::string name;
  /// Where the body came from, the description's source (a .bullet file's path, say).
  std::string source = "<btMultiBody>";
};

/// btMultiBody's own settings, which change the motion on top of the rigid-body dynamics.
struct MultiBodySettings {
  /// Forces -m (k + k |v|) v and torques -I (k + k |w|) w on every link, each step (Bullet's
  /// default 0.04).
  double linear_damping = 0.0;
  double angular_damping = 0.0;
  /// Every generalized velocity is clamped to +-this after each step (Bullet's default 100).
  double max_coordinate_velocity = 0.0;
  bool gyro_term = true;  ///< omega x I omega in the dynamics (on by default)
  bool can_sleep = false;
};

/// A model and the layout of its coordinates in the body, read from the body.
struct InferredMultiBody {
  Model model;
  MultiBodyLayout layout;
  /// The body's state when read, in the model's coordinates (getMultiBodyState).
  Eigen::VectorXd q, v;
  MultiBodySettings settings;
  /// What the model leaves out that changes the motion: the body's damping, a velocity clamp
  /// below 1e6, the gyroscopic term off; motors and spherical limits, each naming its link.
  std::vector<std::string> warnings;
};

/// Reads `body`'s model and layout (file comment). Nothing in the body or world is changed.
/// @throws WorldError for a body whose dof count is not its links' (a link set up twice), and
///   naming the link (its name and Bullet index) for: a joint type gcbridge does
///   not model (eInvalid), a parent numbered after its link, a static or kinematic link or a
///   kinematic base, a link that moves (or a floating base) with a mass that is not positive and
///   finite, an inertia that is negative or not finite, a revolute, prismatic or planar axis that
///   is not a unit vector, a planar joint whose axis btMultiBody would scale (neither along nor
///   perpendicular to the link's x axis), a multibody constraint that closes a loop
///   (point-to-point, fixed, slider, gear); ModelError (buildModel's) for links that make no
///   model, e.g. two links of one name.
InferredMultiBody inferModelFromMultiBody(btMultiBody& body,
                                          const MultiBodyInferenceOptions& options = {});

GCBRIDGE_BULLET_NAMESPACE_END
