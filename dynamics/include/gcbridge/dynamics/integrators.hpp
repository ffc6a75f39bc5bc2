#pragma once
/// @file
/// Time integration in generalized coordinates (ArtiSynth notes sec. 0.9): semi-implicit
/// (symplectic) Euler, classical Runge-Kutta 4 and implicit Euler solved with Newton's method.
/// Every scheme steps on the configuration manifold (quaternions stay unit) and takes an optional
/// torque callback tau(t, q, v); forward dynamics is the ABA.
///
/// RK4 runs in the tangent coordinates delta at the step's start, q = q0 (+) delta, with
/// d(delta)/dt = T(delta) v the exact tangent map of each joint (for a quaternion,
/// d(delta)/dt = J_r(delta)^-1 omega), so it keeps fourth order on SO(3) (Munthe-Kaas).

#include <Eigen/Core>
#include <Eigen/LU>
#include <functional>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Joint forces as a function of time [s], positions and velocities: writes tau (size nv).
using TorqueFunction = std::function<void(
    double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::Ref<Eigen::VectorXd> tau)>;

/// The derivatives of a torque function at (t, q, v): d tau / dq (in the tangent space, as
/// derivatives.hpp) and d tau / dv, each nv x nv.
using TorqueJacobianFunction =
    std::function<void(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       Eigen::Ref<Eigen::MatrixXd> dtau_dq, Eigen::Ref<Eigen::MatrixXd> dtau_dv)>;

/// Buffers of the integrators, made once per model; no step allocates.
struct IntegratorWorkspace {
  explicit IntegratorWorkspace(const Model& model);
  /// dynamics workspace (implicit Euler leaves d tau / dq, d tau / dv less the torque
  /// function's in data.dtau_dq, data.dtau_dv)
  Data data;
  Eigen::VectorXd tau;                      ///< (nv)
  Eigen::VectorXd q_stage;                  ///< (nq)
  Eigen::VectorXd v_stage;                  ///< (nv)
  Eigen::VectorXd delta;                    ///< tangent coordinates (nv)
  Eigen::MatrixXd k_delta, k_v;             ///< RK4 slopes (nv x 4)
  Eigen::VectorXd residual;                 ///< implicit Euler (nv)
  Eigen::VectorXd v_next;                   ///< implicit Euler (nv)
  Eigen::VectorXd q_probe;                  ///< implicit Euler: the torque's differences (nq)
  Eigen::VectorXd tau_probe;                ///< (nv)
  Eigen::MatrixXd dtau_dq, dtau_dv;         ///< implicit Euler: the torque's derivatives (nv x nv)
  Eigen::MatrixXd dq_dv;                    ///< d(q0 (+) h v1)/dv1 (nv x nv)
  /// implicit Euler's Newton matrix K, then its tree factor when K has M's pattern (nv x nv)
  Eigen::MatrixXd jacobian;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;  ///< K's dense factorization when it has not
  double newton_h = 0.0;                    ///< the step K was made for; 0: none yet
  /// The backward differences of the last implicit steps' (v1 - v0) / h: column k the k-th, at
  /// the newest step (nv x 16)
  Eigen::MatrixXd implicit_differences;
  /// how many of those columns hold differences of steps of newton_h (0 to 16)
  int implicit_history = 0;
  /// the degree of the polynomial the next first guess extrapolates (below implicit_history, or 0)
  int implicit_degree = 0;
  Eigen::MatrixXd newton_step;  ///< K^-1 M, the Newton step per residual (nv x nv)
};

/// How a Newton solve of the implicit scheme ended.
struct ImplicitStepReport {
  int iterations = 0;       ///< Newton iterations used
  int newton_matrices = 0;  ///< Newton matrices made (and factorized) in this step
  /// max-norm of the final residual [rad/s or m/s]; when residual_estimated, its prediction
  /// from the contraction (see implicitEulerStep)
  double residual = 0.0;
  bool residual_estimated = false;  ///< the last iterate was accepted on the prediction
};

/// v1 = v0 + h a(t, q0, v0); q1 = q0 (+) h v1. First order, symplectic.
/// @param[in,out] q, v state at t on entry, at t + h on exit.
void semiImplicitEulerStep(const Model& model, IntegratorWorkspace& ws, double t,
                           Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v, double h,
                           const TorqueFunction& tau = nullptr);

/// Classical fourth-order Runge-Kutta on the manifold (see the file comment).
void rungeKutta4Step(const Model& model, IntegratorWorkspace& ws, double t,
                     Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v, double h,
                     const TorqueFunction& tau = nullptr);

/// Implicit (backward) Euler: v1 = v0 + h a(t + h, q0 (+) h v1, v1), q1 = q0 (+) h v1, solved for
/// v1 by Newton's method until the max-norm of the residual r = v1 - v0 - h a is below
/// `tolerance`. First order, dissipative.
///
/// The Newton matrix dr/dv1 = M^-1 K, K = M + h (d tau_rnea/dv - d tau/dv) + h (d tau_rnea/dq -
/// d tau/dq) d(q0 (+) h v1)/dv1, is analytic (derivatives.hpp's rneaDerivatives at the ABA's
/// acceleration, and integrateVelocityJacobian). The step matrix K^-1 M is kept in `ws` across
/// iterations and steps, and made afresh when an iteration shrinks the residual less than
/// 30-fold (or h changes), so an iteration mostly costs one ABA and one matrix-vector product.
/// The first guess extrapolates the workspace's last accelerations of the same h by a polynomial
/// through the latest of them (Newton's backward-difference form, of degree at most 15), the degree
/// being the one that would have guessed the last step best (a higher one only when it missed by
/// less than half; one more when the best was the highest the history could test). It starts
/// afresh when h changes or v is not the one the workspace's last step ended with. An iterate is
/// accepted without evaluating its residual when the largest contraction theta = |r_k| / |r_k-1| of
/// this step's iterations with the same matrix predicts that residual, theta |r_k|, below a tenth
/// of the tolerance (reported as residual_estimated). The torque function's own derivatives come
/// from `tau_jacobian` when given, else from forward differences of `tau` (2 nv calls per new
/// matrix). What the workspace keeps (the matrix, the past accelerations) changes the iterations,
/// not the step's result beyond the tolerance.
/// @throws InvalidArgumentError for a workspace made for another model, h not positive and
///   finite, a tolerance not finite and >= 0, max_iterations < 0; Error if Newton does not
///   converge in `max_iterations` or its matrix is singular (q and v are left unchanged either
///   way).
ImplicitStepReport implicitEulerStep(const Model& model, IntegratorWorkspace& ws, double t,
                                     Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v,
                                     double h, const TorqueFunction& tau = nullptr,
                                     double tolerance = 1e-12, int max_iterations = 20,
                                     const TorqueJacobianFunction& tau_jacobian = nullptr);

}  // namespace gcbridge
