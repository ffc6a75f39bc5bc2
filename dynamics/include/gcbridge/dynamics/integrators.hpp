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
  Data data;                                ///< dynamics workspace
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
  Eigen::MatrixXd jacobian;                 ///< implicit Euler Newton matrix K (nv x nv)
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;  ///< K's factorization, kept between steps
  double newton_h = 0.0;                    ///< the step K was made for; 0: none yet
  Eigen::VectorXd implicit_acceleration;    ///< the last implicit step's (v1 - v0) / h (nv)
  Eigen::VectorXd implicit_acceleration_before;  ///< the one before (nv)
  Eigen::MatrixXd newton_step;                   ///< K^-1 M, the Newton step per residual (nv x nv)
};

/// How a Newton solve of the implicit scheme ended.
struct ImplicitStepReport {
  int iterations = 0;     ///< Newton iterations used
  int newton_matrices = 0;  ///< Newton matrices made (and factorized) in this step
  double residual = 0.0;  ///< max-norm of the final residual [rad/s or m/s]
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
/// iterations and steps, and made afresh when an iteration does not shrink the residual 100-fold
/// (or h changes), so an iteration mostly costs one ABA and one matrix-vector product. The first
/// guess extrapolates the workspace's last two accelerations. The torque function's own
/// derivatives come from `tau_jacobian` when given, else from forward differences of `tau` (2 nv
/// calls per new matrix).
/// @throws Error if Newton does not converge in `max_iterations` (q and v are left unchanged).
ImplicitStepReport implicitEulerStep(const Model& model, IntegratorWorkspace& ws, double t,
                                     Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v,
                                     double h, const TorqueFunction& tau = nullptr,
                                     double tolerance = 1e-12, int max_iterations = 20,
                                     const TorqueJacobianFunction& tau_jacobian = nullptr);

}  // namespace gcbridge
