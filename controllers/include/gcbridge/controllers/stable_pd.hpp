#pragma once
/// @file
/// Stable PD (Tan, Liu and Turk, "Stable Proportional-Derivative Controllers", IEEE CG&A 2011), as
/// pybullet's STABLE_PD_CONTROL (pd_controller_stable.py) does it: the PD forces are computed from
/// the state at the END of the next time step h, predicted with the accelerations they cause.
///
/// Explicit PD, tau = Kp (q_ref - q) + Kd (v_ref - v), integrated by semi-implicit Euler is stable
/// for a single joint of inertia m only if h Kd/m < 2 and h^2 Kp/m < 4 - 2 h Kd/m (the
/// eigenvalues of the one-step map, whose determinant is 1 - h Kd/m). Stable PD instead writes
///   tau = Kp (q_ref - (q + h v)) + Kd (v_ref - (v + h qdd)),
/// with qdd = M^-1 (tau - h_bias) the acceleration tau itself produces (h_bias = C v + g, the
/// RNEA bias). Substituting tau and solving for qdd:
///   (M + h Kd) qdd = -h_bias + Kp (q_ref - (q + h v)) + Kd (v_ref - v),
///   tau = Kp (q_ref - (q + h v)) + Kd (v_ref - v) - h Kd qdd.
/// M + h Kd is symmetric positive definite (Kd >= 0), and adding a diagonal keeps the tree
/// sparsity of M, so its L^T D L factor (crba.hpp) is used. The position term uses q + h v with
/// the current v, as Tan et al. and pybullet do (not the h^2 qdd term of the semi-implicit
/// update). On the manifold: q_ref - (q + h v) is q_ref (-) (q (+) h v).
///
/// The gains are in torque units as in JointPD (Lin's unnormalized form). The time step h is
/// the simulator's step; the stability holds for the step it was computed for.

#include <Eigen/Core>

#include "gcbridge/controllers/controller.hpp"

namespace gcbridge {

/// Stable PD (see the file comment).
class StablePD : public JointController {
 public:
  /// @param Kp (nv, >= 0) [N m/rad or N/m] @param Kd (nv, >= 0) [N m s/rad or N s/m]
  /// @param time_step h [s] > 0, the simulation step. @throws InvalidArgumentError.
  StablePD(const Model& model, const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd,
           double time_step);
  const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v) override;

  /// @throws InvalidArgumentError naming the argument (gains unchanged).
  void setGains(const Eigen::VectorXd& Kp, const Eigen::VectorXd& Kd);
  /// @throws InvalidArgumentError unless finite and > 0.
  void setTimeStep(double time_step);
  const Eigen::VectorXd& Kp() const { return Kp_; }
  const Eigen::VectorXd& Kd() const { return Kd_; }
  double timeStep() const { return h_; }
  /// The qdd solved at the last compute() (nv): the acceleration the returned (unsaturated) tau
  /// produces at (q, v).
  const Eigen::VectorXd& predictedAcceleration() const { return qdd_; }

 private:
  Eigen::VectorXd Kp_, Kd_;
  double h_;
  Eigen::VectorXd q_pred_, e_pred_, qdd_;  ///< q (+) h v (nq), q_ref (-) q_pred (nv), qdd (nv)
};

}  // namespace gcbridge
