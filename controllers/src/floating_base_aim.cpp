// FloatingBaseController::aimAtStepEnd: the planned motion held by Bullet's joint motors.

#include "checks.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/configuration.hpp"

namespace gcbridge {

void FloatingBaseController::aimAtStepEnd(double h, double max_lag) {
  detail::checkNonNegativeFinite(h, "FloatingBaseController::aimAtStepEnd: the step h");
  detail::checkNonNegativeFinite(max_lag, "FloatingBaseController::aimAtStepEnd: max_lag");
  step_aim_ = h;
  max_lag_ = max_lag;
  plan_started_ = false;
}

void FloatingBaseController::aimMotors(double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& v) {
  if (step_aim_ == 0.0) {
    plan_lag_.setZero();
    return;
  }
  const double h = step_aim_;
  if (!plan_started_ || !(t > plan_t_)) q_plan_ = q;
  plan_started_ = true;
  plan_t_ = t;
  // One substep on: the measured velocity plus the planned acceleration.
  q_plan_ = integrate(*model_, q_plan_, v + h * a_, h);
  plan_lag_ = difference(*model_, q, q_plan_);
  // The root has no motor: its plan is where it is. A joint lags by max_lag at most.
  const Eigen::Index root_dofs = model_->joints[0].nv;
  plan_lag_.head(root_dofs).setZero();
  plan_lag_ = plan_lag_.cwiseMax(-max_lag_).cwiseMin(max_lag_);
  q_plan_ = integrate(*model_, q, plan_lag_, 1.0);
  target_acceleration_.head(root_dofs) = a_.head(root_dofs);
  target_acceleration_.tail(model_->nv - root_dofs) =
      (plan_lag_ / (h * h) - v / h).tail(model_->nv - root_dofs);
}

}  // namespace gcbridge
