#include "gcbridge/controllers/computed_torque.hpp"

#include "checks.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {

ComputedTorque::ComputedTorque(const Model& model, const Eigen::VectorXd& K,
                               const Eigen::VectorXd& D)
    : JointController(model), qdd_star_(Eigen::VectorXd::Zero(model.nv)) {
  setGains(K, D);
}

void ComputedTorque::setGains(const Eigen::VectorXd& K, const Eigen::VectorXd& D) {
  detail::checkVector(K, model_->nv, "K", true);
  if (D.size() != 0) detail::checkVector(D, model_->nv, "D", true);
  K_ = K;
  // Critical damping of e'' + D e' + K e = 0 by default.
  D_ = D.size() != 0 ? D : Eigen::VectorXd(2.0 * K.array().sqrt());
}

const Eigen::VectorXd& ComputedTorque::compute(double t, const Eigen::VectorXd& q,
                                               const Eigen::VectorXd& v) {
  updateErrors(t, q, v);
  // qdd* = qdd_ref + D e_dot + K e (Lin), then tau = M qdd* + h by RNEA.
  qdd_star_ = reference_.a + D_.cwiseProduct(e_v_) + K_.cwiseProduct(e_q_);
  tau_unsaturated_ = rnea(*model_, data_, q, v, qdd_star_);
  return finishTorque();
}

}  // namespace gcbridge
