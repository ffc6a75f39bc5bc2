#pragma once
// Private to gcbridge::plugin: what Actuation::JointMotors hands a backend's joint motors each
// substep, the same for rigid bodies and a btMultiBody.

#include <Eigen/Core>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {

/// The motors' velocity targets v + h qdd* and max efforts, and the torques left to the dofs
/// without a motor.
class MotorTargets {
 public:
  /// `torque_limits`: the plugin's (empty: none), the motors' max efforts.
  MotorTargets(const Model& model, const Eigen::VectorXd& torque_limits);

  /// The state the backend read this substep.
  void remember(const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  /// This substep's targets from the accelerations the controller aims at (`qdd_target`), else
  /// those its torques before the limits give the model (ABA); `tau` without the dofs `driven`.
  void compute(const Model& model, const Eigen::VectorXd& tau, const Eigen::VectorXd& tau_unlimited,
               const Eigen::VectorXd* qdd_target, double h, const std::vector<bool>& driven);

  const Eigen::VectorXd& velocities() const { return v_target_; }
  const Eigen::VectorXd& maxEfforts() const { return max_effort_; }
  const Eigen::VectorXd& forces() const { return tau_forces_; }

 private:
  Data data_;
  Eigen::VectorXd q_read_, v_read_;                     // the state read this substep (nq, nv)
  Eigen::VectorXd max_effort_, v_target_, tau_forces_;  // nv each
};

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
