#include <memory>
#include <vector>

#include "backend.hpp"
#include "gcbridge/bridge/multibody_motors.hpp"
#include "gcbridge/plugin/plugin.hpp"
#include "motor_targets.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {
namespace {

class MultiBodyBackend : public Backend {
 public:
  MultiBodyBackend(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                   btMultiBodyDynamicsWorld& world, Actuation actuation,
                   const Eigen::VectorXd& torque_limits)
      : layout_(layout),
        body_(body),
        app_torques_(body.getNumDofs(), btScalar(0)),
        torques_(body.getNumDofs(), btScalar(0)) {
    if (actuation != Actuation::JointMotors) return;
    motors_ = std::make_unique<MultiBodyMotors>(model, layout, body, world);
    targets_ = std::make_unique<MotorTargets>(model, torque_limits);
  }

  void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) override {
    getMultiBodyState(model, layout_, body_, q, v);
    if (targets_) targets_->remember(q, v);
  }
  /// With motors, their targets first (as the rigid-body backend's: the accelerations the
  /// controller aims at, else those its torques give the model), then the other dofs' torques.
  void apply(const Model& model, const Eigen::VectorXd& tau, const Eigen::VectorXd& tau_unlimited,
             const Eigen::VectorXd* qdd_target, double h) override {
    if (!motors_) {
      addTorques(model, tau);
      return;
    }
    targets_->compute(model, tau, tau_unlimited, qdd_target, h, motors_->driven());
    motors_->drive(targets_->velocities(), targets_->maxEfforts(), h);
    try {
      addTorques(model, targets_->forces());
    } catch (...) {
      motors_->stop();
      throw;
    }
  }
  void release() override {
    if (motors_) motors_->stop();
  }
  /// Exactly the joint torques and free-root wrench `apply` added, leaving the application's.
  void remove(const Model&) override {
    forEachDof([&](btScalar& torque, int j) { torque -= torques_[j]; });
    body_.addBaseForce(-base_force_W_);
    body_.addBaseTorque(-base_torque_W_);
  }
  void forget() override {}
  /// A btMultiBody has no joint error.
  void diagnose(const Model&, SubstepRecord&) override {}
  /// A btMultiBody always satisfies its joints (attachMultiBody refuses the options).
  void project(const Model&) override {}
  btMultiBody* multiBody() const override { return &body_; }

 private:
  /// setMultiBodyJointTorques sets the joint torques: the application's are kept aside (and
  /// cleared, so a dof it does not write adds nothing), the plugin's set, then the two added;
  /// the plugin's are remembered.
  void addTorques(const Model& model, const Eigen::VectorXd& tau) {
    forEachDof([&](btScalar& torque, int j) {
      app_torques_[j] = torque;
      torque = 0;
    });
    setMultiBodyJointTorques(model, layout_, body_, tau, &base_force_W_, &base_torque_W_);
    forEachDof([&](btScalar& torque, int j) {
      torques_[j] = torque;
      torque = app_torques_[j] + torques_[j];
    });
  }

  /// f(torque, j) for each joint torque of the body, j its dof index.
  template <typename F>
  void forEachDof(F&& f) {
    for (int i = 0, j = 0; i < body_.getNumLinks(); ++i) {
      btScalar* torque = body_.getJointTorqueMultiDof(i);
      for (int d = 0; d < body_.getLink(i).m_dofCount; ++d, ++j) f(torque[d], j);
    }
  }

  const MultiBodyLayout& layout_;
  btMultiBody& body_;
  std::vector<btScalar> app_torques_;  ///< the application's, read before adding (dofs)
  std::vector<btScalar> torques_;      ///< the joint torques added this substep (dofs)
  btVector3 base_force_W_{0, 0, 0};    ///< the free root's wrench added this substep
  btVector3 base_torque_W_{0, 0, 0};
  /// Actuation::JointMotors: the motors and their targets.
  std::unique_ptr<MultiBodyMotors> motors_;
  std::unique_ptr<MotorTargets> targets_;
};

}  // namespace

std::unique_ptr<Backend> makeMultiBodyBackend(const Model& model, const MultiBodyLayout& layout,
                                              btMultiBody& body, btMultiBodyDynamicsWorld& world,
                                              Actuation actuation,
                                              const Eigen::VectorXd& torque_limits) {
  return std::make_unique<MultiBodyBackend>(model, layout, body, world, actuation, torque_limits);
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
