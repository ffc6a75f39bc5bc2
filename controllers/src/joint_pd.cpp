#include "gcbridge/controllers/joint_pd.hpp"

#include <cmath>

#include "checks.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {

Eigen::VectorXd criticallyDampedKd(const Model& model, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& Kp) {
  detail::checkConfiguration(model, q, "q");
  detail::checkVector(Kp, model.nv, "Kp", true);
  Data data(model);
  const Eigen::MatrixXd& M = crba(model, data, q);
  return 2.0 * (Kp.array() * M.diagonal().array()).sqrt().matrix();
}

JointPD::JointPD(const Model& model, const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd,
                 bool gravity_compensation)
    : JointController(model), gravity_compensation_(gravity_compensation) {
  setGains(Kp, Kd);
}

void JointPD::setGains(const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd) {
  detail::checkVector(Kp, model_->nv, "Kp", true);
  detail::checkVector(Kd, model_->nv, "Kd", true);
  Kp_ = Kp;
  Kd_ = Kd;
}

const Eigen::VectorXd& JointPD::compute(double t, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v) {
  updateErrors(t, q, v);
  // tau = Kp e + Kd e_dot [+ g(q)].
  tau_unsaturated_ = Kp_.cwiseProduct(e_q_) + Kd_.cwiseProduct(e_v_);
  if (gravity_compensation_) tau_unsaturated_ += computeGeneralizedGravity(*model_, data_, q);
  return finishTorque();
}

}  // namespace gcbridge
