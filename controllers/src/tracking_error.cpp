#include "gcbridge/controllers/tracking_error.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {

TrackingError::TrackingError(const Model& model)
    : TrackingError(model, Eigen::Array<bool, Eigen::Dynamic, 1>::Constant(model.nv, true)) {}

TrackingError::TrackingError(const Model& model, const Eigen::Array<bool, Eigen::Dynamic, 1>& dofs)
    : model_(&model), counted_(dofs), sum_squares_(Eigen::VectorXd::Zero(model.nv)), e_(model.nv) {
  if (dofs.size() != model.nv) {
    throw InvalidArgumentError("TrackingError: the dof mask has " + std::to_string(dofs.size()) +
                               " entries, the model has nv = " + std::to_string(model.nv));
  }
}

void TrackingError::add(const Eigen::VectorXd& q, const Eigen::VectorXd& q_ref) {
  difference(*model_, q, q_ref, e_);
  addError(e_);
}

void TrackingError::add(const JointController& controller) { addError(controller.positionError()); }

void TrackingError::addError(const Eigen::VectorXd& e) {
  if (e.size() != model_->nv) {
    throw InvalidArgumentError("TrackingError: the error has " + std::to_string(e.size()) +
                               " entries, the model has nv = " + std::to_string(model_->nv));
  }
  if (!e.allFinite()) throw InvalidArgumentError("TrackingError: the error is not finite");
  for (int i = 0; i < model_->nv; ++i) {
    if (!counted_(i)) continue;
    sum_squares_(i) += e(i) * e(i);
    max_ = std::max(max_, std::abs(e(i)));
  }
  ++samples_;
}

double TrackingError::rms() const {
  const long counted = counted_.count();
  if (samples_ == 0 || counted == 0) return 0.0;
  return std::sqrt(sum_squares_.sum() / (static_cast<double>(samples_) * counted));
}

Eigen::VectorXd TrackingError::rmsPerDof() const {
  if (samples_ == 0) return Eigen::VectorXd::Zero(model_->nv);
  return (sum_squares_ / static_cast<double>(samples_)).cwiseSqrt();
}

void TrackingError::reset() {
  sum_squares_.setZero();
  samples_ = 0;
  max_ = 0.0;
}

}  // namespace gcbridge
