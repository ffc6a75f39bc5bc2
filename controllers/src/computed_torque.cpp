#include "gcbridge/controllers/computed_torque.hpp"

#include <cmath>
#include <string>

#include "checks.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/finite.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
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
  if (step_aim_ > 0.0) {
    // One semi-implicit Euler step of h onto the reference at t + h.
    checkState(t, q, v);
    referenceAt(t + step_aim_);
    detail::differenceUnchecked(*model_, q, reference_.q, e_q_);
    e_v_ = reference_.v - v;
    qdd_star_ = e_q_ / (step_aim_ * step_aim_) - v / step_aim_;
  } else {
    updateErrors(t, q, v);
    // qdd* = qdd_ref + D e_dot + K e (Lin), then tau = M qdd* + h by RNEA.
    qdd_star_ = reference_.a + D_.cwiseProduct(e_v_) + K_.cwiseProduct(e_q_);
  }
  // q, v and the reference are checked; qdd* is left, which the gains can still overflow.
  if (!detail::allFinite(qdd_star_)) validateVelocity(*model_, qdd_star_, "qdd*");
  if (linear_damping_.size() == 0) {
    tau_unsaturated_ = detail::rneaUnchecked(*model_, data_, q, v, qdd_star_);
  } else {
    // The damping acts on the links as external forces: RNEA's tau then overcomes it too.
    computeDampingForces(q, v);
    tau_unsaturated_ = rnea(*model_, data_, q, v, qdd_star_,
                            ExternalForces{damping_forces_, ReferenceFrame::Local});
  }
  return finishTorque();
}

void ComputedTorque::aimAtStepEnd(double h) {
  detail::checkNonNegativeFinite(h, "ComputedTorque::aimAtStepEnd: the step h");
  step_aim_ = h;
}

void ComputedTorque::setLinkDamping(const Eigen::VectorXd& linear_rate,
                                    const Eigen::VectorXd& angular_rate) {
  if (linear_rate.size() == 0 && angular_rate.size() == 0) {
    linear_damping_.resize(0);
    angular_damping_.resize(0);
    return;
  }
  detail::checkVector(linear_rate, model_->numLinks(), "linear_rate", true);
  detail::checkVector(angular_rate, model_->numLinks(), "angular_rate", true);
  linear_damping_ = linear_rate;
  angular_damping_ = angular_rate;
  damping_forces_.assign(model_->numLinks(), Force::Zero());
}

void ComputedTorque::computeDampingForces(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  forwardKinematics(*model_, data_, q, v);
  for (int k = 0; k < model_->numLinks(); ++k) {
    const Inertia& inertia = model_->inertias[k];
    const Vector3& c_B = inertia.com();
    const Vector3 omega_B = data_.V_WB_B[k].angular();
    const Vector3 v_c_B = data_.V_WB_B[k].linear() + omega_B.cross(c_B);
    // The damping's force at the COM, and its moment moved to the link origin.
    const Vector3 f_B = -linear_damping_(k) * inertia.mass() * v_c_B;
    const Vector3 n_c = -angular_damping_(k) * (inertia.inertiaAboutCom() * omega_B);
    damping_forces_[k] = Force(n_c + c_B.cross(f_B), f_B);
  }
}

}  // namespace gcbridge
