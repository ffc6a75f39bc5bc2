#include "motor_targets.hpp"

#include <limits>

#include "gcbridge/dynamics/aba.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {

MotorTargets::MotorTargets(const Model& model, const Eigen::VectorXd& torque_limits)
    : data_(model),
      max_effort_(
          torque_limits.size() == model.nv
              ? torque_limits
              : Eigen::VectorXd::Constant(model.nv, std::numeric_limits<double>::infinity())),
      v_target_(model.nv),
      tau_forces_(model.nv) {}

void MotorTargets::remember(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  q_read_ = q;
  v_read_ = v;
}

void MotorTargets::compute(const Model& model, const Eigen::VectorXd& tau,
                           const Eigen::VectorXd& tau_unlimited, const Eigen::VectorXd* qdd_target,
                           double h, const std::vector<bool>& driven) {
  // The limits bound the motors' efforts: a clamped torque would aim elsewhere through the
  // coupling in M.
  const Eigen::VectorXd& qdd =
      qdd_target != nullptr ? *qdd_target : aba(model, data_, q_read_, v_read_, tau_unlimited);
  v_target_ = v_read_ + h * qdd;
  tau_forces_ = tau;
  for (int i = 0; i < model.nv; ++i) {
    if (driven[i]) tau_forces_(i) = 0.0;
  }
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
