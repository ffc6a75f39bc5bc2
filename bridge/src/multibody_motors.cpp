#include "gcbridge/bridge/multibody_motors.hpp"

#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodySphericalJointMotor.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "motor_checks.hpp"
#include "motor_colliders.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace {

/// Bullet's "no limit" in place of an unbounded impulse.
double boundedImpulse(double effort, double h) {
  return std::min(effort * h, static_cast<double>(0.1 * BT_LARGE_FLOAT));
}

/// Whether `world` holds `body`.
bool holds(btMultiBodyDynamicsWorld& world, const btMultiBody& body) {
  for (int i = 0; i < world.getNumMultibodies(); ++i) {
    if (world.getMultiBody(i) == &body) return true;
  }
  return false;
}

}  // namespace

MultiBodyMotors::MultiBodyMotors(const Model& model, const MultiBodyLayout& layout,
                                 btMultiBody& body, btMultiBodyDynamicsWorld& world)
    : body_(body), world_(world), driven_(model.nv, false) {
  // The body and layout must be the model's, the body in the world (before anything is added).
  Eigen::VectorXd q, v;
  getMultiBodyState(model, layout, body, q, v);
  if (!holds(world, body)) {
    throw WorldError("MultiBodyMotors: the btMultiBody of model '" + model.name +
                     "' is not in the given world");
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int link = layout.bulletLink(k);
    const bool one_dof = joint.type == JointType::Revolute || joint.type == JointType::Prismatic;
    const bool ball =
        joint.type == JointType::Ball && joint.ball == BallParametrization::Quaternion;
    if (link < 0 || !(one_dof || ball)) continue;
    std::unique_ptr<btMultiBodyConstraint> constraint;
    if (ball) {
      constraint = std::make_unique<btMultiBodySphericalJointMotor>(&body, link, btScalar(0));
    } else {
      constraint = std::make_unique<btMultiBodyJointMotor>(&body, link, btScalar(0), btScalar(0));
    }
    motors_.push_back(Motor{std::move(constraint), link, joint.idx_v, ball,
                            ball ? layout.Q_LB[k] : Quaternion::Identity()});
    for (int i = 0; i < joint.nv; ++i) driven_[joint.idx_v + i] = true;
    has_ball_ = has_ball_ || ball;
  }
  // Everything allocated: the colliders, then the motors, into the world.
  collider_links_.reserve(motors_.size());
  try {
    for (const Motor& m : motors_) {
      if (detail::shareMotorCollider(world_, body_, m.link)) collider_links_.push_back(m.link);
    }
  } catch (...) {
    for (int link : collider_links_) detail::releaseMotorCollider(body_, link);
    throw;
  }
  for (Motor& m : motors_) world_.addMultiBodyConstraint(m.constraint.get());
}

MultiBodyMotors::~MultiBodyMotors() {
  for (Motor& m : motors_) world_.removeMultiBodyConstraint(m.constraint.get());
  for (int link : collider_links_) detail::releaseMotorCollider(body_, link);
}

void MultiBodyMotors::drive(const Eigen::VectorXd& v_target, const Eigen::VectorXd& max_effort,
                            double h) {
  detail::checkMotorTargets("MultiBodyMotors::drive", driven_, v_target, max_effort, h);
  if (has_ball_ && !(world_.getSolverInfo().m_erp > 0)) {
    throw InvalidArgumentError(
        "MultiBodyMotors::drive: the world's solver erp is " +
        std::to_string(world_.getSolverInfo().m_erp) +
        "; the ball joints' position targets need it positive (their gain is 1 / erp)");
  }
  const double kp = 1.0 / world_.getSolverInfo().m_erp;
  for (const Motor& m : motors_) {
    if (m.ball) {
      driveBall(m, v_target, max_effort.segment<3>(m.dof).minCoeff(), h, kp);
      continue;
    }
    auto* motor = static_cast<btMultiBodyJointMotor*>(m.constraint.get());
    motor->setVelocityTarget(btScalar(v_target(m.dof)));
    motor->setMaxAppliedImpulse(btScalar(boundedImpulse(max_effort(m.dof), h)));
  }
}

void MultiBodyMotors::driveBall(const Motor& m, const Eigen::VectorXd& v_target, double max_effort,
                                double h, double kp) {
  // The target: Bullet's quaternion now turned by h omega_B, omega_B = R_LB^T omega_C.
  const btScalar* Q_now_bullet = body_.getJointPosMultiDof(m.link);
  const Quaternion Q_now(Q_now_bullet[3], Q_now_bullet[0], Q_now_bullet[1], Q_now_bullet[2]);
  const Vector3 turn_B = m.Q_LB.conjugate() * (h * v_target.segment<3>(m.dof));
  const double angle = turn_B.norm();
  const Quaternion turn =
      angle > 0.0 ? Quaternion(Eigen::AngleAxisd(angle, turn_B / angle)) : Quaternion::Identity();
  const Quaternion Q_target = (Q_now * turn).normalized();
  auto* motor = static_cast<btMultiBodySphericalJointMotor*>(m.constraint.get());
  motor->setPositionTarget(btQuaternion(btScalar(Q_target.x()), btScalar(Q_target.y()),
                                        btScalar(Q_target.z()), btScalar(Q_target.w())),
                           btScalar(kp));
  const btScalar impulse(boundedImpulse(max_effort, h));
  motor->setMaxAppliedImpulse(impulse);
  motor->setMaxAppliedImpulseMultiDof(btVector3(impulse, impulse, impulse));
}

void MultiBodyMotors::stop() {
  for (Motor& m : motors_) {
    m.constraint->setMaxAppliedImpulse(btScalar(0));
    if (m.ball) {
      static_cast<btMultiBodySphericalJointMotor*>(m.constraint.get())
          ->setMaxAppliedImpulseMultiDof(btVector3(0, 0, 0));
    }
  }
}

GCBRIDGE_BULLET_NAMESPACE_END
