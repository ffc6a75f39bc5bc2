#include <limits>
#include <memory>

#include "backend.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/joint_motors.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/plugin/plugin.hpp"

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
    data_ = std::make_unique<Data>(model);
    max_effort_ =
        torque_limits.size() == model.nv
            ? torque_limits
            : Eigen::VectorXd::Constant(model.nv, std::numeric_limits<double>::infinity());
    v_target_.resize(model.nv);
    tau_forces_.resize(model.nv);
  }

  void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) override {
    readState(model, map_, bdata_, q, v);
    if (motors_) {
      q_read_ = q;
      v_read_ = v;
    }
  }
  void apply(const Model& model, const Eigen::VectorXd& tau, const Eigen::VectorXd& tau_unlimited,
             const Eigen::VectorXd* qdd_target, double h) override {
    if (!motors_) {
      addJointForces(model, map_, bdata_, tau);
      return;
    }
    // The accelerations the controller aims at, else those its torques give the model, as the
    // motors' velocity targets (the limits bound the motors' efforts: a clamped torque would aim
    // elsewhere through the coupling in M); the other dofs' torques as forces.
    const Eigen::VectorXd& qdd =
        qdd_target != nullptr ? *qdd_target : aba(model, *data_, q_read_, v_read_, tau_unlimited);
    v_target_ = v_read_ + h * qdd;
    tau_forces_ = tau;
    for (int i = 0; i < model.nv; ++i) {
      if (motors_->driven()[i]) tau_forces_(i) = 0.0;
    }
    motors_->drive(v_target_, max_effort_, h);
    try {
      addJointForces(model, map_, bdata_, tau_forces_);
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
  /// Actuation::JointMotors: the motors, ABA's workspace, the state read this substep, the
  /// motors' max efforts and targets, and the torques applied as forces (nv each).
  std::unique_ptr<JointMotors> motors_;
  std::unique_ptr<Data> data_;
  Eigen::VectorXd q_read_, v_read_, max_effort_, v_target_, tau_forces_;
};

}  // namespace

std::unique_ptr<Backend> makeRigidBodyBackend(const Model& model, const RigidBodyMap& map,
                                              Actuation actuation,
                                              const Eigen::VectorXd& torque_limits) {
  return std::make_unique<RigidBodyBackend>(model, map, actuation, torque_limits);
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
