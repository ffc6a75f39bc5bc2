#pragma once
// Private to gcbridge::plugin: where a plugin reads its state and applies its forces, rigid
// bodies through their map or a btMultiBody, behind one interface (one virtual call per step of
// a substep, none per joint).

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

#include <Eigen/Core>
#include <memory>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

struct SubstepRecord;
enum class Actuation;

namespace plugin_detail {

class Backend {
 public:
  virtual ~Backend() = default;
  /// q and v now. @throws gcbridge::Error when the world no longer matches, or holds a NaN.
  virtual void read(const Model& model, Eigen::VectorXd& q, Eigen::VectorXd& v) = 0;
  /// Adds tau's forces for this substep of h [s] (its state as read() read it); tau_unlimited is
  /// the controller's torque before the torque limits, qdd_target the accelerations it aims at
  /// or null (what joint motors aim at: qdd_target, else ABA of tau_unlimited, bounded by the
  /// limits themselves). @throws gcbridge::Error, having added nothing.
  virtual void apply(const Model& model, const Eigen::VectorXd& tau,
                     const Eigen::VectorXd& tau_unlimited, const Eigen::VectorXd* qdd_target,
                     double h) = 0;
  /// Takes exactly the forces `apply` added out again. @throws gcbridge::Error, after which the
  /// record of them is dropped.
  virtual void remove(const Model& model) = 0;
  /// Drops the record of the forces `apply` added (the world cleared its forces).
  virtual void forget() = 0;
  /// The joint errors and velocity residual of this substep into the record (rigid bodies only).
  virtual void diagnose(const Model& model, SubstepRecord& record) = 0;
  /// Projects the bodies onto the joints (rigid bodies only). @throws gcbridge::Error, having
  /// written nothing.
  virtual void project(const Model& model) = 0;
  /// The bodies the plugin keeps awake: the map's, or the btMultiBody.
  virtual const RigidBodyMap* map() const { return nullptr; }
  virtual btMultiBody* multiBody() const { return nullptr; }
  /// Undoes what stays in the world between substeps (the joint motors: off until the next
  /// apply); never throws.
  virtual void release() {}
};

/// Rigid bodies through `map`: readState, addJointForces, removeJointForces (with
/// Actuation::JointMotors, the motors' targets set first, from the controller's accelerations or
/// ABA, and the forces of the dofs without one); diagnostics from computeJointErrors and the sparse
/// velocities' residual. `torque_limits`: the plugin's (empty: none), the motors' max efforts.
std::unique_ptr<Backend> makeRigidBodyBackend(const Model& model, const RigidBodyMap& map,
                                              Actuation actuation,
                                              const Eigen::VectorXd& torque_limits);

/// A btMultiBody: getMultiBodyState, and setMultiBodyJointTorques added to the application's
/// joint torques (and the free root's wrench to the base's), remembered to be taken out exactly
/// (with Actuation::JointMotors, the MultiBodyMotors' targets set first, as the rigid-body
/// backend's, and the torques of the dofs without one).
std::unique_ptr<Backend> makeMultiBodyBackend(const Model& model, const MultiBodyLayout& layout,
                                              btMultiBody& body, btMultiBodyDynamicsWorld& world,
                                              Actuation actuation,
                                              const Eigen::VectorXd& torque_limits);

}  // namespace plugin_detail
GCBRIDGE_BULLET_NAMESPACE_END
