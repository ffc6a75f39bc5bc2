#include "gcbridge/controllers/stable_pd.hpp"

#include <cmath>
#include <string>

#include "checks.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {

StablePD::StablePD(const Model& model, const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd,
                   double time_step)
    : JointController(model),
      h_(0.0),
      q_pred_(model.nq),
      e_pred_(Eigen::VectorXd::Zero(model.nv)),
      qdd_(Eigen::VectorXd::Zero(model.nv)) {
  setGains(Kp, Kd);
  setTimeStep(time_step);
}

void StablePD::setGains(const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd) {
  detail::checkVector(Kp, model_->nv, "Kp", true);
  detail::checkVector(Kd, model_->nv, "Kd", true);
  Kp_ = Kp;
  Kd_ = Kd;
}

void StablePD::setTimeStep(double time_step) {
  if (!(time_step > 0.0) || !std::isfinite(time_step)) {
    throw InvalidArgumentError("stable PD time_step must be finite and > 0, got " +
                               std::to_string(time_step));
  }
  h_ = time_step;
}

const Eigen::VectorXd& StablePD::compute(double t, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v) {
  updateErrors(t, q, v);
  // Predicted position error q_ref (-) (q (+) h v).
  integrate(*model_, q, v, h_, q_pred_);
  difference(*model_, q_pred_, reference_.q, e_pred_);
  // PD terms at the end of the step: p = Kp e_pred, d = Kd (v_ref - v); tau_unsaturated_ holds
  // p + d from here on.
  tau_unsaturated_ = Kp_.cwiseProduct(e_pred_) + Kd_.cwiseProduct(e_v_);
  // (M + h Kd) qdd = p + d - h_bias, by the tree-sparse factor of M + h diag(Kd).
  const Eigen::VectorXd& bias = nonLinearEffects(*model_, data_, q, v);
  qdd_ = tau_unsaturated_ - bias;
  crba(*model_, data_, q);
  data_.M.diagonal() += h_ * Kd_;
  factorizeMassMatrix(*model_, data_);
  solveMassMatrix(*model_, data_, qdd_);
  // tau = p + d - h Kd qdd.
  tau_unsaturated_ -= h_ * Kd_.cwiseProduct(qdd_);
  return finishTorque();
}

}  // namespace gcbridge
