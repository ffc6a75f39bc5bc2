#pragma once
/// @file
/// Joint-space PD control, optionally with gravity compensation:
///   tau = Kp (q_ref (-) q) + Kd (v_ref - v) [+ g(q)],
/// with per-dof gains in torque units (Kp [N m/rad or N/m], Kd [N m s/rad or N s/m]).
///
/// These are the gains of Lin's unnormalized error equation M e'' + D e' + K e = 0 (with
/// K = Kp, D = Kd): for one joint of inertia M_ii, critical damping is Kd = 2 sqrt(Kp M_ii)
/// (criticallyDampedKd). Compare ComputedTorque, whose gains act on accelerations.

#include <Eigen/Core>

#include "gcbridge/controllers/controller.hpp"

namespace gcbridge {

/// Kd_i = 2 sqrt(Kp_i M_ii(q)) (Lin's D = 2 sqrt(K M) with the diagonal of M(q)): critical
/// damping of each joint when the others are held still. Allocates (a setup helper).
/// @param q configuration (nq) @param Kp (nv, >= 0). @throws InvalidArgumentError.
Eigen::VectorXd criticallyDampedKd(const Model& model, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& Kp);

/// tau = Kp (q_ref (-) q) + Kd (v_ref - v), plus g(q) with gravity compensation. With zero gains
/// and gravity compensation it holds any configuration at rest (tau = g(q)).
class JointPD : public JointController {
 public:
  /// @param Kp stiffness per dof (nv, >= 0) @param Kd damping per dof (nv, >= 0)
  /// @param gravity_compensation add g(q). @throws InvalidArgumentError naming the argument.
  JointPD(const Model& model, const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd,
          bool gravity_compensation = false);
  const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v) override;

  /// @throws InvalidArgumentError naming the argument (gains unchanged).
  void setGains(const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd);
  const Eigen::VectorXd& Kp() const { return Kp_; }
  const Eigen::VectorXd& Kd() const { return Kd_; }
  bool gravityCompensation() const { return gravity_compensation_; }

 private:
  Eigen::VectorXd Kp_, Kd_;
  bool gravity_compensation_;
};

}  // namespace gcbridge
