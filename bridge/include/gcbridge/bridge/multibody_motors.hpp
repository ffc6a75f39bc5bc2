#pragma once
/// @file
/// Bullet's own joint motors on a btMultiBody as an actuator, the counterpart of JointMotors
/// (joint_motors.hpp) for btMultiBody: each substep the solver finds the impulse, within
/// +-(max effort x h), that brings each driven joint to its target at the end of the substep,
/// together with the contacts and limits. pybullet's POSITION_CONTROL and VELOCITY_CONTROL are
/// these motors.
///
/// Driven here, on a btMultiBody that buildMultiBody made (or that matches its layout):
/// - revolute and prismatic joints: a btMultiBodyJointMotor with the velocity target v_target(i)
///   (Bullet's joint velocity is the model's for these, multibody_builder.hpp);
/// - quaternion ball joints: a btMultiBodySphericalJointMotor. In Bullet 3.24 it takes no velocity
///   target, only a position one (docs/bullet-notes.md), so the velocity target omega becomes the
///   position target Q exp(h omega) (Q the joint's quaternion now, omega in the child's axes) with
///   the gain kp = 1 / erp (the world's solver erp). The motor's velocity target is then the XYZ
///   Euler angles of that turn over h: omega with an error of O(h |omega|^2) (the Euler angles
///   are the rotation vector only to first order).
/// Not driven: a free root, planar and fixed joints.
///
/// Bullet solves a multibody constraint only on a link with a collider (bullet-notes.md): a driven
/// link without one gets a 1 cm sphere that collides with nothing, shared by every set of motors
/// on the link and removed with the last of them. While it is there, the application's own
/// multibody constraints on that link are solved too (without it Bullet skips them), and a world
/// serialized then holds the sphere (inferModelFromMultiBody reads it as collision geometry).
/// Like Bullet's world, the motors are for one thread at a time.

#include <BulletDynamics/Featherstone/btMultiBodyConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// The motors of a btMultiBody's revolute, prismatic and ball joints.
class MultiBodyMotors {
 public:
  /// Adds a motor per driven joint (file comment) to `world`, off (no effort) until drive().
  /// `body` and `world` must outlive the motors.
  /// @throws InvalidArgumentError for a body or layout that does not match the model, WorldError
  ///   for a body that is not in `world` (nothing added).
  MultiBodyMotors(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                  btMultiBodyDynamicsWorld& world);
  /// Removes the motors (and the colliders no other motors share) from the world.
  ~MultiBodyMotors();
  MultiBodyMotors(const MultiBodyMotors&) = delete;
  MultiBodyMotors& operator=(const MultiBodyMotors&) = delete;

  /// Per dof (nv): whether a motor drives it.
  const std::vector<bool>& driven() const { return driven_; }

  /// Sets every motor's target for the next substep of h [s]: the joint velocity v_target(i)
  /// [rad/s, m/s; a ball's angular velocity in the child's axes], reached with at most
  /// |effort| <= max_effort(i) [N m, N] (infinite: as much as it takes; a ball's three rows each
  /// bounded by the smallest of its three). Call it before each substep: a ball's position target
  /// is taken from the joint's position now. Entries of dofs without a motor are ignored.
  /// @throws InvalidArgumentError for sizes other than nv, h <= 0, a target that is not finite, a
  ///   negative or NaN max effort, or, with a ball joint, a world whose solver erp is not positive
  ///   (nothing changed).
  void drive(const Eigen::VectorXd& v_target, const Eigen::VectorXd& max_effort, double h);

  /// Switches every motor off (no effort) until the next drive(). Never throws.
  void stop();

 private:
  /// One motor: the constraint, its Bullet link, the model joint's first dof, and for a ball's
  /// (else a 1-dof joint's) R_LB of its link.
  struct Motor {
    std::unique_ptr<btMultiBodyConstraint> constraint;
    int link;
    int dof;
    bool ball;
    Quaternion Q_LB;
  };
  void driveBall(const Motor& m, const Eigen::VectorXd& v_target, double max_effort, double h,
                 double kp);

  btMultiBody& body_;
  btMultiBodyDynamicsWorld& world_;
  std::vector<Motor> motors_;
  std::vector<bool> driven_;
  bool has_ball_ = false;
  std::vector<int> collider_links_;  ///< the links whose shared motor collider these hold
};

GCBRIDGE_BULLET_NAMESPACE_END
