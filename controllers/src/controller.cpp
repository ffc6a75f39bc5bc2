#include "gcbridge/controllers/controller.hpp"

#include <string>

#include "checks.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"

namespace gcbridge {

Controller::Controller(const Model& model)
    : model_(&model),
      tau_unsaturated_(Eigen::VectorXd::Zero(model.nv)),
      tau_(Eigen::VectorXd::Zero(model.nv)) {}

Controller::~Controller() = default;

const std::string& Controller::message() const {
  static const std::string none;
  return none;
}

void Controller::setTorqueLimits(const TorqueLimits& limits) {
  if (limits.maxAbsTorque().size() != model_->nv) {
    throw InvalidArgumentError("torque limits have size " +
                               std::to_string(limits.maxAbsTorque().size()) +
                               ", the controller's model needs nv = " + std::to_string(model_->nv));
  }
  limits_ = limits;
}

const Eigen::VectorXd& Controller::finishTorque() {
  tau_ = tau_unsaturated_;
  if (limits_) limits_->apply(tau_);
  return tau_;
}

void Controller::checkState(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) const {
  detail::checkFinite(t, "controller time t");
  validateConfiguration(*model_, q);
  validateVelocity(*model_, v, "v");
}

TorqueFunction asTorqueFunction(Controller& controller) {
  return [&controller](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       Eigen::Ref<Eigen::VectorXd> tau) { tau = controller.compute(t, q, v); };
}

JointController::JointController(const Model& model)
    : Controller(model),
      data_(model),
      reference_(model),
      next_reference_(model),
      e_q_(Eigen::VectorXd::Zero(model.nv)),
      e_v_(Eigen::VectorXd::Zero(model.nv)) {}

void JointController::setSetPoint(const Eigen::VectorXd& q_ref) {
  detail::checkConfiguration(*model_, q_ref, "set-point q_ref");
  reference_.q = q_ref;
  reference_.v.setZero();
  reference_.a.setZero();
  trajectory_.reset();
}

void JointController::setReference(const JointReference& reference) {
  detail::checkConfiguration(*model_, reference.q, "reference q");
  detail::checkVector(reference.v, model_->nv, "reference v");
  detail::checkVector(reference.a, model_->nv, "reference a");
  reference_ = reference;
  trajectory_.reset();
}

void JointController::setTrajectory(std::shared_ptr<const Trajectory> trajectory) {
  if (!trajectory) throw InvalidArgumentError("trajectory is null");
  if (trajectory->model().nq != model_->nq || trajectory->model().nv != model_->nv) {
    throw InvalidArgumentError(
        "trajectory made for a model with nq = " + std::to_string(trajectory->model().nq) +
        ", nv = " + std::to_string(trajectory->model().nv) + "; the controller's has " +
        std::to_string(model_->nq) + ", " + std::to_string(model_->nv));
  }
  trajectory_ = std::move(trajectory);
}

void JointController::updateErrors(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  checkState(t, q, v);
  // Reference at t, then e = q_ref (-) q and e_dot = v_ref - v.
  referenceAt(t);
  detail::differenceUnchecked(*model_, q, reference_.q, e_q_);
  e_v_ = reference_.v - v;
}

void JointController::referenceAt(double t) {
  if (!trajectory_) return;
  trajectory_->evaluate(t, next_reference_);
  detail::checkConfiguration(*model_, next_reference_.q, "trajectory reference q");
  detail::checkVector(next_reference_.v, model_->nv, "trajectory reference v");
  detail::checkVector(next_reference_.a, model_->nv, "trajectory reference a");
  reference_ = next_reference_;
}

}  // namespace gcbridge
