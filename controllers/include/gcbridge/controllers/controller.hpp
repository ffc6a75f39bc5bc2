#pragma once
/// @file
/// The common interface of the controllers, and the joint-space reference source (a trajectory or
/// a fixed set-point) the joint controllers share.
///
/// Every controller takes the current time t [s], configuration q (size nq) and velocity v (size
/// nv) and returns joint forces tau (size nv) [N m or N] by reference to its own buffer, valid
/// until the next call. compute() allocates nothing: each controller owns its workspace (a
/// dynamics Data and its buffers), made once in the constructor. A controller keeps a reference to
/// its model, which must outlive it. Configuration errors are taken on the manifold:
/// e = q_ref (-) q = difference(q, q_ref) (configuration.hpp), never component-wise on quaternions.
///
/// Bad input (wrong sizes, NaN/Inf in t, q or v, a bad quaternion) throws InvalidArgumentError
/// naming the argument before anything changes: the returned torque, the saturation report and
/// every reported quantity stay as they were.

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>

#include "gcbridge/controllers/torque_limits.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// A feedback law tau = f(t, q, v), with optional torque limits applied to its output.
class Controller {
 public:
  virtual ~Controller();

  /// Joint forces at time t [s] and state (q, v): @param q (nq) @param v (nv).
  /// @return tau (nv) [N m or N], after the torque limits if any; valid until the next call.
  /// @throws InvalidArgumentError on bad input (nothing changed).
  virtual const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v) = 0;

  /// Saturate every output from now on. @throws InvalidArgumentError if sized for another model.
  void setTorqueLimits(const TorqueLimits& limits);
  /// No saturation from now on (the default).
  void clearTorqueLimits() { limits_.reset(); }
  bool hasTorqueLimits() const { return limits_.has_value(); }
  /// The limits and their report of the last compute(). @pre hasTorqueLimits().
  const TorqueLimits& torqueLimits() const { return *limits_; }
  /// How many dofs saturated at the last compute() (0 without limits).
  int numSaturated() const { return limits_ ? limits_->numSaturated() : 0; }

  /// The last output (nv), after saturation.
  const Eigen::VectorXd& torque() const { return tau_; }
  /// The last output before saturation (nv).
  const Eigen::VectorXd& unsaturatedTorque() const { return tau_unsaturated_; }
  const Model& model() const { return *model_; }
  /// What the last compute() could not do and what it returned instead (a fallback); empty when
  /// the output is what the control law asks for.
  virtual const std::string& message() const;
  /// The accelerations the last compute() aimed at (nv) [rad/s^2, m/s^2], for actuators that
  /// realize accelerations rather than torques (the plugin's Actuation::JointMotors); nullptr for
  /// a law that has none (PD and stable PD: their torques are the law).
  virtual const Eigen::VectorXd* targetAcceleration() const { return nullptr; }

 protected:
  explicit Controller(const Model& model);
  /// tau_ = tau_unsaturated_, then saturated if limits are set. @return tau_.
  const Eigen::VectorXd& finishTorque();
  /// @throws InvalidArgumentError naming t, q or v.
  void checkState(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) const;

  const Model* model_;
  Eigen::VectorXd tau_unsaturated_;  ///< (nv)
  Eigen::VectorXd tau_;              ///< (nv)
  std::optional<TorqueLimits> limits_;
};

/// The controller as an integrator callback (integrators.hpp): tau = controller.compute(t, q, v).
/// The controller must outlive the returned function. Calling it allocates nothing.
TorqueFunction asTorqueFunction(Controller& controller);

/// A controller that tracks a joint-space reference: a Trajectory, or a fixed reference (by
/// default the neutral configuration at rest).
class JointController : public Controller {
 public:
  /// Track the fixed configuration q_ref (nq) at rest (v_ref = a_ref = 0).
  /// @throws InvalidArgumentError naming q_ref (nothing changed).
  void setSetPoint(const Eigen::VectorXd& q_ref);
  /// Track a fixed reference (q, v, a). @throws InvalidArgumentError (nothing changed).
  void setReference(const JointReference& reference);
  /// Track trajectory->evaluate(t) from now on. @throws InvalidArgumentError if null or made for
  /// a model of other sizes.
  void setTrajectory(std::shared_ptr<const Trajectory> trajectory);

  /// The reference used at the last compute() (or the fixed one before any).
  const JointReference& reference() const { return reference_; }
  /// e = q_ref (-) q at the last compute() (nv): the tangent vector with q (+) e = q_ref.
  const Eigen::VectorXd& positionError() const { return e_q_; }
  /// e_dot = v_ref - v at the last compute() (nv).
  const Eigen::VectorXd& velocityError() const { return e_v_; }

 protected:
  explicit JointController(const Model& model);
  /// Checks (t, q, v), evaluates the reference at t and fills positionError() and
  /// velocityError(). @throws InvalidArgumentError before changing anything.
  void updateErrors(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  /// The trajectory's reference at t into reference_ (none: the set-point stays), checked first.
  /// @throws InvalidArgumentError, reference_ unchanged, for a reference q that is not a
  ///   configuration of the model or a v or a of the wrong size or not finite.
  void referenceAt(double t);

  Data data_;
  JointReference reference_;
  JointReference next_reference_;  ///< referenceAt's scratch: the trajectory's, before checking
  std::shared_ptr<const Trajectory> trajectory_;
  Eigen::VectorXd e_q_, e_v_;  ///< (nv) each
};

}  // namespace gcbridge
