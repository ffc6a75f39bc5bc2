#pragma once
/// @file
/// Bullet's own joint motors as an actuator. A motor is a velocity constraint the solver enforces
/// together with the joints, contacts and limits, up to a maximum effort: each substep Bullet
/// finds the impulse, within +-(max effort x h), that brings the joint's velocity to the target
/// at the end of the substep. Bullet's example apps drive joints this way (a hinge's
/// enableAngularMotor with the target velocity (angle* - angle) / h); the plugin's
/// Actuation::JointMotors realizes a controller's accelerations through them (v + h qdd* as the
/// target).
///
/// Driven here: btHingeConstraint (enableAngularMotor: max impulse per substep) and
/// btSliderConstraint (its powered linear motor: max force), the constraints buildRigidBodyWorld
/// makes for revolute and prismatic joints and most applications use. Targets are in the model's
/// coordinates: the sign between a joint's velocity and Bullet's motor velocity (which side of the
/// constraint is the parent, a hinge's useReferenceFrameA, a slider's useLinearReferenceFrameA) is
/// taken care of here, measured in
/// tests/bridge/force_conversion_test.cpp. Not driven: a btGeneric6DofSpring2Constraint's axis
/// motor (pybullet's maximal-coordinate joints), which reached 0.51 rad/s of a 0.7 rad/s target in
/// one unbounded substep (Bullet 3.24), so it would not realize the target.
///
/// Bullet need not keep to the max effort of a hinge that holds one body (its other side Bullet's
/// fixed body, as buildRigidBodyWorld makes a first joint hanging from the world): measured, it
/// exceeded it 19 times over (docs/bullet-notes.md).

#include <Eigen/Core>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// The motors of a map's 1-dof joints.
class JointMotors {
 public:
  /// The motors of the revolute and prismatic joints whose constraints have one (file comment);
  /// the model's other dofs have none. Nothing in the world changes until drive().
  JointMotors(const Model& model, const RigidBodyMap& map);

  /// Per dof (nv): whether a motor drives it.
  const std::vector<bool>& driven() const { return driven_; }
  /// The number of dofs a motor drives.
  int numDriven() const;

  /// Switches on every motor and sets its target: the joint velocity v_target(i) [rad/s or m/s]
  /// at the end of a substep of h [s], reached with at most |effort| <= max_effort(i) [N m or N]
  /// (infinite: as much as it takes). Entries of dofs without a motor are ignored.
  /// @throws InvalidArgumentError for sizes other than nv, h <= 0, a target that is not finite or
  ///   a negative or NaN max effort (nothing changed).
  void drive(const Eigen::VectorXd& v_target, const Eigen::VectorXd& max_effort, double h);

  /// Switches every motor off (those of constraints still in the map's world). Never throws.
  void stop();

 private:
  /// One motor: the constraint, which of Bullet's kinds (hinge, slider), the dof it drives and
  /// the sign from the model's velocity to Bullet's motor velocity.
  struct Motor {
    btTypedConstraint* constraint;
    int kind;
    int dof;
    double sign;
  };
  btDynamicsWorld* world_;
  std::vector<Motor> motors_;
  std::vector<bool> driven_;
};

GCBRIDGE_BULLET_NAMESPACE_END
