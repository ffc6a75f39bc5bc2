#include <vector>

#include "backend.hpp"
#include "gcbridge/plugin/plugin.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {
namespace {

class MultiBodyBackend : public Backend {
 public:
  MultiBodyBackend(const MultiBodyLayout& layout, btMultiBody& body)
      : layout_(layout),
        body_(body),
        app_torques_(body.getNumDofs(), btScalar(0)),
        torques_(body.getNumDofs(), btScalar(0)) {}

  void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) override {
    getMultiBodyState(model, layout_, body_, q, v);
  }
  /// setMultiBodyJointTorques sets the joint torques: the application's are kept aside (and
  /// cleared, so a dof it does not write adds nothing), the plugin's set, then the two added;
  /// the plugin's are remembered.
  void apply(const Model& model, const Eigen::VectorXd& tau,
             const Eigen::VectorXd& /*tau_unlimited*/, const Eigen::VectorXd* /*qdd_target*/,
             double /*h*/) override {
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
};

}  // namespace

std::unique_ptr<Backend> makeMultiBodyBackend(const MultiBodyLayout& layout, btMultiBody& body) {
  return std::make_unique<MultiBodyBackend>(layout, body);
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
