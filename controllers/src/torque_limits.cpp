#include "gcbridge/controllers/torque_limits.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {

TorqueLimits::TorqueLimits(const Model& model)
    : max_abs_tau_(model.nv), saturated_(model.nv, false) {
  for (const Joint& j : model.joints) {
    for (int i = 0; i < j.nv; ++i) max_abs_tau_[j.idx_v + i] = j.limits.effort;
  }
}

TorqueLimits::TorqueLimits(const Model& model, const Eigen::VectorXd& max_abs_tau)
    : saturated_(model.nv, false) {
  if (max_abs_tau.size() != model.nv) {
    throw InvalidArgumentError("torque limits max_abs_tau has size " +
                               std::to_string(max_abs_tau.size()) +
                               ", needs nv = " + std::to_string(model.nv));
  }
  for (int i = 0; i < model.nv; ++i) {
    if (!(max_abs_tau[i] > 0.0)) {
      throw InvalidArgumentError("torque limits max_abs_tau[" + std::to_string(i) +
                                 "] = " + std::to_string(max_abs_tau[i]) + " must be > 0");
    }
  }
  max_abs_tau_ = max_abs_tau;
}

int TorqueLimits::apply(Eigen::Ref<Eigen::VectorXd> tau) {
  if (tau.size() != max_abs_tau_.size()) {
    throw InvalidArgumentError("torque limits: tau has size " + std::to_string(tau.size()) +
                               ", needs nv = " + std::to_string(max_abs_tau_.size()));
  }
  num_saturated_ = 0;
  for (Eigen::Index i = 0; i < tau.size(); ++i) {
    const double limit = max_abs_tau_[i];
    const bool clamp = std::abs(tau[i]) > limit;
    saturated_[i] = clamp;
    if (clamp) {
      tau[i] = std::copysign(limit, tau[i]);
      ++num_saturated_;
    }
  }
  return num_saturated_;
}

}  // namespace gcbridge
