#include "backend.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/plugin/plugin.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace plugin_detail {
namespace {

class RigidBodyBackend : public Backend {
 public:
  RigidBodyBackend(const Model& model, const RigidBodyMap& map)
      : map_(map), bdata_(model), v_(Eigen::VectorXd::Zero(model.nv)) {}

  void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) override {
    readState(model, map_, bdata_, q, v);
  }
  void apply(const Model& model, const Eigen::VectorXd& tau) override {
    addJointForces(model, map_, bdata_, tau);
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
};

}  // namespace

std::unique_ptr<Backend> makeRigidBodyBackend(const Model& model, const RigidBodyMap& map) {
  return std::make_unique<RigidBodyBackend>(model, map);
}

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
