#pragma once
// Private to the bridge: how world inference recognises a Bullet constraint as a joint, one reader
// per constraint class (constraint_readers.cpp holds the table).

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <limits>
#include <string>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/joint.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

/// One constraint of the tree to read: the tree body whose joint it is, its parent body (a tree
/// body or the static body the root hangs from), and which of the two is the constraint's body A.
struct ReadSite {
  btTypedConstraint* constraint;
  const btRigidBody* body;
  const btRigidBody* parent_body;
  bool parent_is_a;
  /// "constraint 3 (btHingeConstraint) between 'a' and 'b'", for messages.
  std::string what;
  /// Whether an enabled motor is read past (inference switches it off) rather than refused.
  bool motors_allowed = false;
};

/// What one constraint becomes. Bp is the parent body's COM frame, Bc the child's.
struct JointReading {
  /// The joint's type; Revolute with `universal` set is two revolute joints.
  JointType type = JointType::Fixed;
  bool universal = false;
  /// The constraint's two frames: Fp on the parent body and Fc on the child. Bullet pulls Fc onto
  /// Fp (origins together, axes as the joint allows); the joint is at q = 0 (the identity
  /// rotation) where the two coincide, and its q says how Fc sits on Fp.
  Transform X_BpFp;
  Transform X_BcFc;
  /// In F: the revolute and prismatic axis, the planar joint's normal, the cone's axis, the
  /// universal's child-fixed axis.
  Vector3 axis_F = Vector3::UnitZ();
  /// The universal's parent-fixed axis, in F.
  Vector3 axis_parent_F = Vector3::UnitZ();
  JointLimits limits;
  double swing1 = std::numeric_limits<double>::infinity();
  double swing2 = std::numeric_limits<double>::infinity();
  double twist = std::numeric_limits<double>::infinity();
};

/// The most derived constraint class Bullet ships that `c` is (getConstraintType() cannot tell
/// fixed, universal and hinge2 from their 6-DOF base classes).
const char* constraintClassName(const btTypedConstraint* c);

/// Whether `c` is of a class that never is a tree joint (gears, hinge2 wheels), which usually
/// comes with other constraints on the same bodies.
bool hasNoTreeJoint(const btTypedConstraint* c);

/// The joint the site's constraint is, by the reader of its class.
/// @throws WorldError naming the constraint for what no joint is: an angular-only hinge or
///   cone-twist, a slider free to turn, a motor enabled (unless site.motors_allowed), a spring
///   enabled, a 6-DOF pattern of locked axes that is no joint, a planar pattern with limits, a
///   constraint class with no reader.
JointReading readConstraint(const ReadSite& site);

/// Throws the WorldError "inferModelFromWorld: <what>".
[[noreturn]] void fail(const std::string& what);

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
