#include <memory>

#include "backend.hpp"
#include "gcbridge/bridge/detail/unchecked.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/joint_motors.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/plugin/plugin.hpp"
#include "motor_targets.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {
namespace {

class RigidBodyBackend : public Backend {
 public:
  RigidBodyBackend(const Model& model, const RigidBodyMap& map, Actuation actuation,
                   const Eigen::VectorXd& torque_limits)
      : map_(map), bdata_(model), v_(Eigen::VectorXd::Zero(model.nv)) {
    if (actuation != Actuation::JointMotors) return;
    motors_ = std::make_unique<JointMotors>(model, map);
    targets_ = std::make_unique<MotorTargets>(model, torque_limits);
  }

  void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) override {
    readState(model, map_, bdata_, q, v);
    if (targets_) targets_->remember(q, v);
  }
  // The forces skip addJointForces' world check: read checked the world this substep, and only
  // the controller ran since (a world it changes is caught at the next substep's read).
  void apply(const Model& model, const Eigen::VectorXd& tau, const Eigen::VectorXd& tau_unlimited,
             const Eigen::VectorXd* qdd_target, double h) override {
    if (!motors_) {
      detail::addJointForcesUnchecked(model, map_, bdata_, tau);
      return;
    }
    // The accelerations the controller aims at as the motors' velocity targets; the other dofs'
    // torques as forces.
    targets_->compute(model, tau, tau_unlimited, qdd_target, h, motors_->driven());
    motors_->drive(targets_->velocities(), targets_->maxEfforts(), h);
    try {
      detail::addJointForcesUnchecked(model, map_, bdata_, targets_->forces());
    } catch (...) {
      motors_->stop();
      throw;
    }
  }
  void release() override {
    if (motors_) motors_->stop();
  }
  void remove(const Model& model) override {
    try {
      removeJointForces(model, map_, bdata_);
    } catch (...) {
      forgetJointForces(bdata_);
      throw;
    }
  }
  void forget() override { forgetJointForces(bdata_); }
  void diagnose(const Model& model, SubstepRecord& record) override {
    record.joint_error = computeJointErrors(model, map_, bdata_);
    readVelocities(model, map_, bdata_, v_, VelocityMethod::Sparse, /*residual=*/true);
    record.velocity_residual = bdata_.velocity_residual.maxCoeff();
  }
  void project(const Model& model) override { projectOntoJoints(model, map_, bdata_, q_, v_); }
  const RigidBodyMap* map() const override { return &map_; }

 private:
  const RigidBodyMap& map_;
  BridgeData bdata_;
  /// The state diagnose and project read (nq, nv).
  Eigen::VectorXd q_, v_;
  /// Actuation::JointMotors: the motors and their targets.
  std::unique_ptr<JointMotors> motors_;
  std::unique_ptr<MotorTargets> targets_;
};

}  // namespace

std::unique_ptr<Backend> makeRigidBodyBackend(const Model& model, const RigidBodyMap& map,
                                              Actuation actuation,
                                              const Eigen::VectorXd& torque_limits) {
  return std::make_unique<RigidBodyBackend>(model, map, actuation, torque_limits);
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
