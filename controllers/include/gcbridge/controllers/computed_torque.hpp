#pragma once
/// @file
/// Computed torque (inverse-dynamics control, Lin, "Inverse Dynamic Control"):
///   qdd* = qdd_ref + D (qdot_ref - qdot) + K (q_ref (-) q),   tau = M(q) qdd* + h(q, qdot),
/// evaluated as one RNEA, tau = rnea(q, qdot, qdd*). With a perfect model the closed loop is
/// qdd = qdd*, so every dof's error e = q_ref (-) q obeys e'' + D e' + K e = 0 exactly. For a
/// ball or free joint that holds exactly while the joint's rotation error and angular velocity
/// error stay parallel (e.g. a set-point approached from rest about one axis, with equal gains on
/// the joint's three rotation dofs); otherwise to first order in the error.
///
/// Gains are per dof and act on accelerations: K [1/s^2], D [1/s]. This is the normalized form of
/// Lin's M e'' + D e' + K e = 0 (its gains in torque units, critical damping D = 2 sqrt(K M));
/// here M has been factored out, so critical damping is D = 2 sqrt(K), the default, and
/// sqrt(K) is the natural frequency [rad/s].

#include <Eigen/Core>
#include <vector>

#include "gcbridge/controllers/controller.hpp"

namespace gcbridge {

/// tau = rnea(q, v, qdd_ref + D (v_ref - v) + K (q_ref (-) q)), or aimed at the end of a
/// simulator's step (aimAtStepEnd).
class ComputedTorque : public JointController {
 public:
  /// @param K stiffness per dof (nv, >= 0) [1/s^2]
  /// @param D damping per dof (nv, >= 0) [1/s]; empty: critical damping D = 2 sqrt(K).
  /// @throws InvalidArgumentError naming the argument.
  ComputedTorque(const Model& model, const Eigen::VectorXd& K,
                 const Eigen::VectorXd& D = Eigen::VectorXd());
  const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v) override;

  /// D empty: 2 sqrt(K). @throws InvalidArgumentError naming the argument (gains unchanged).
  void setGains(const Eigen::VectorXd& K, const Eigen::VectorXd& D = Eigen::VectorXd());
  const Eigen::VectorXd& K() const { return K_; }
  const Eigen::VectorXd& D() const { return D_; }
  /// qdd* of the last compute() (nv) [rad/s^2, m/s^2].
  const Eigen::VectorXd& desiredAcceleration() const { return qdd_star_; }
  /// qdd*, as Controller::targetAcceleration.
  const Eigen::VectorXd* targetAcceleration() const override { return &qdd_star_; }

  /// Discrete time: aims at the end of a substep of h [s] instead of using the gains,
  /// qdd* = (q_ref(t + h) (-) q) / h^2 - v / h, the acceleration that puts one semi-implicit
  /// Euler step (Bullet's: v+ = v + h qdd, q+ = q (+) h v+) exactly on the reference at t + h
  /// (positionError() is then to that reference). For a simulator stepping with h, the plugin's
  /// substep; its torques are large when the state is far off: give torque limits, or let Bullet's
  /// joint motors bound them (Actuation::JointMotors). A reference that changes only at a
  /// clock's ticks asks for each tick's jump within one substep: give it through FirstOrderHold
  /// (trajectory.hpp), which asks for the motion the ticks sample. h = 0: the gains again.
  /// @throws InvalidArgumentError for h negative or not finite (nothing changed).
  void aimAtStepEnd(double h);
  /// The substep aimed at (0: the gains).
  double stepAim() const { return step_aim_; }

  /// Velocity damping the simulator applies to the links on top of the rigid-body dynamics,
  /// which compute() then adds back: per link, the rates [1/s] at which the COM velocity and the
  /// angular velocity decay (dv/dt = -rate v; Bullet's btRigidBody::setDamping(c) is
  /// rate = -ln(1 - c), BodySettings of an inferred model). tau gains the generalized force of
  /// the wrenches (rate_ang I_c omega, rate_lin m v_c) on every link. Empty vectors: none.
  /// @throws InvalidArgumentError for a size other than the model's link count or a negative or
  ///   non-finite rate (the damping unchanged).
  void setLinkDamping(const Eigen::VectorXd& linear_rate, const Eigen::VectorXd& angular_rate);

 private:
  /// The damping's wrench on each link at (q, v), in link axes about the link origin, into
  /// damping_forces_.
  void computeDampingForces(const Eigen::VectorXd& q, const Eigen::VectorXd& v);

  double step_aim_ = 0.0;  ///< [s]; 0: the gains
  Eigen::VectorXd K_, D_, qdd_star_;
  Eigen::VectorXd linear_damping_, angular_damping_;
  std::vector<Force> damping_forces_;
};

}  // namespace gcbridge
