#include "gcbridge/dynamics/integrators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "tree_lu.hpp"

namespace gcbridge {
namespace {

// tau(t, q, v), or zero without a torque function, into ws.tau.
const Eigen::VectorXd& torque(IntegratorWorkspace& ws, double t, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& v, const TorqueFunction& tau) {
  if (tau) {
    tau(t, q, v, ws.tau);
  } else {
    ws.tau.setZero();
  }
  return ws.tau;
}

// qdd = ABA(q, v, tau(t, q, v)) into ws.data.qdd.
const Eigen::VectorXd& acceleration(const Model& model, IntegratorWorkspace& ws, double t,
                                    const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                    const TorqueFunction& tau) {
  return aba(model, ws.data, q, v, torque(ws, t, q, v, tau));
}

// A kept Newton matrix is made afresh when an iteration shrinks the residual by less than this.
constexpr double kRefreshContraction = 1.0 / 30.0;
// An iterate is accepted without evaluating its residual when the contraction predicts that
// residual below this fraction of the tolerance (a prediction: the margin covers its error).
constexpr double kPredictionMargin = 0.1;
// The highest degree of the polynomial through the past accelerations that the first guess
// extrapolates.
constexpr int kGuessDegreeMax = 15;
// A higher degree is taken for the guess only when its squared miss is below this fraction of the
// lower's, its miss below half (differences of similar size are round-off, not a better fit).
constexpr double kHigherDegreeSquaredMiss = 0.25;
// The Newton matrix's tree factor gives way to a dense LU at a pivot this small against K's
// largest diagonal entry.
constexpr double kTreePivotFloor = 1e-12;

// @throws InvalidArgumentError for a step that is not positive and finite, a tolerance that is
// not finite and non-negative, or a negative iteration budget.
void checkImplicitSettings(double h, double tolerance, int max_iterations) {
  const bool h_ok = h > 0.0 && std::isfinite(h);
  const bool tolerance_ok = tolerance >= 0.0 && std::isfinite(tolerance);
  if (h_ok && tolerance_ok && max_iterations >= 0) return;
  std::ostringstream message;
  if (!h_ok) {
    message << "implicitEulerStep: step h = " << h << " s must be positive and finite";
  } else if (!tolerance_ok) {
    message << "implicitEulerStep: tolerance " << tolerance << " must be finite and >= 0";
  } else {
    message << "implicitEulerStep: max_iterations " << max_iterations << " must be >= 0";
  }
  throw InvalidArgumentError(message.str());
}

// v1's first guess into ws.v_next: the accelerations of this workspace's last steps (of this h)
// extrapolated by the polynomial of degree p = ws.implicit_degree through the latest p + 1 of
// them, in Newton's backward-difference form v1 = v0 + h sum_{k <= p} D_k (Hairer, Nørsett and
// Wanner sec. III.1).
void initialGuess(IntegratorWorkspace& ws, const ConstVectorRef& v, double h) {
  ws.v_next = v;
  if (ws.implicit_history == 0) return;
  const Eigen::Index nv = v.size();
  double* sum = ws.v_stage.data();
  const double* D_0 = ws.implicit_differences.col(0).data();
  for (Eigen::Index i = 0; i < nv; ++i) sum[i] = D_0[i];
  for (int k = 1; k <= ws.implicit_degree; ++k) {
    const double* D_k = ws.implicit_differences.col(k).data();
    for (Eigen::Index i = 0; i < nv; ++i) sum[i] += D_k[i];
  }
  ws.v_next += h * ws.v_stage;
}

// Adds the step's a = (v1 - v0) / h to the backward differences, newest first (D_0 = a, D_k =
// D_{k-1} - D_{k-1}(old)), and picks the next guess's degree from their sizes, as variable-order
// multistep codes pick their order (Hairer, Nørsett and Wanner sec. III.7): the degree-p guess of
// this step missed v1 by h |D_{p+1}|, since a - sum_{k <= p} D_k(old) = D_{p+1}. The closest
// wins, a higher degree only by kHigherDegreeSquaredMiss; when the closest is the highest the
// history can test, the next guess takes one more, so the degree climbs by one a step while
// higher degrees do better.
void rememberAcceleration(IntegratorWorkspace& ws, const ConstVectorRef& v0, double h) {
  const Eigen::Index nv = v0.size();
  const int columns = std::min(ws.implicit_history + 1, kGuessDegreeMax + 1);
  // next_difference holds D_k(new) on entering column k and D_{k+1}(new) on leaving it (below the
  // cap, the last column read is past the history: what it makes is not kept).
  double* next_difference = ws.v_stage.data();
  for (Eigen::Index i = 0; i < nv; ++i) next_difference[i] = (ws.v_next[i] - v0[i]) / h;
  ws.implicit_degree = 0;
  double closest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < columns; ++k) {
    double* D_k = ws.implicit_differences.col(k).data();
    double squared_miss = 0.0;
    for (Eigen::Index i = 0; i < nv; ++i) {
      const double older = D_k[i];
      D_k[i] = next_difference[i];
      squared_miss += next_difference[i] * next_difference[i];
      next_difference[i] -= older;
    }
    // |D_k|^2 is the squared miss of the degree-(k - 1) guess, over h^2.
    if (k > 0 && squared_miss < kHigherDegreeSquaredMiss * closest) {
      closest = squared_miss;
      ws.implicit_degree = k == columns - 1 ? k : k - 1;
    }
  }
  ws.implicit_history = columns;
}

// r(v1) = v1 - v0 - h ABA(q1, v1, tau(t, q1, v1)) with q1 = q0 (+) h v1 and v1 = ws.v_next, into
// ws.residual (q1 in ws.q_stage, tau in ws.tau, the acceleration in ws.data.qdd). q1 is made
// from the checked q0 and a finite v1, so only the torque function's output is checked.
// @return its max-norm.
double velocityResidual(const Model& model, IntegratorWorkspace& ws, double t,
                        const ConstVectorRef& q0, const ConstVectorRef& v0, double h,
                        const TorqueFunction& tau) {
  detail::integrateUnchecked(model, q0, ws.v_next, h, ws.q_stage);
  validateVelocity(model, torque(ws, t, ws.q_stage, ws.v_next, tau), "tau");
  const Eigen::VectorXd& a = detail::abaUnchecked(model, ws.data, ws.q_stage, ws.v_next, ws.tau);
  ws.residual = ws.v_next - v0 - h * a;
  return ws.residual.lpNorm<Eigen::Infinity>();
}

[[noreturn]] void throwNotConverged(int iterations, double residual, double tolerance) {
  std::ostringstream message;
  message << "implicitEulerStep: Newton did not converge in " << iterations
          << " iterations (residual " << residual << " rad/s or m/s, tolerance " << tolerance
          << "); reduce h or raise the tolerance";
  throw Error(message.str());
}

// Forward differences of the torque function at (t, q1, v1) = (t, ws.q_stage, ws.v_next) into
// ws.dtau_dq (q moved along its tangent, as derivatives.hpp) and ws.dtau_dv. @pre ws.tau holds
// tau(t, q1, v1).
void torqueDifferences(const Model& model, IntegratorWorkspace& ws, double t,
                       const TorqueFunction& tau) {
  constexpr double kStep = 1e-7;
  for (int j = 0; j < model.nv; ++j) {
    ws.v_stage.setZero();
    ws.v_stage[j] = kStep;
    integrate(model, ws.q_stage, ws.v_stage, 1.0, ws.q_probe);
    tau(t, ws.q_probe, ws.v_next, ws.tau_probe);
    ws.dtau_dq.col(j) = (ws.tau_probe - ws.tau) / kStep;
    ws.v_stage = ws.v_next;
    const double step = kStep * std::max(1.0, std::abs(ws.v_next[j]));
    ws.v_stage[j] += step;
    tau(t, ws.q_stage, ws.v_stage, ws.tau_probe);
    ws.dtau_dv.col(j) = (ws.tau_probe - ws.tau) / step;
  }
}

// K = M + h (d tau_rnea/dv - d tau/dv) + h (d tau_rnea/dq - d tau/dq) d(q0 (+) h v1)/dv1 into
// ws.jacobian, from the derivatives in ws.data and ws.dq_dv. The last factor is block diagonal
// (one block per joint), so its product goes joint by joint.
void assembleNewtonMatrix(const Model& model, IntegratorWorkspace& ws, double h) {
  ws.jacobian = ws.data.M + h * ws.data.dtau_dv;
  for (const Joint& joint : model.joints) {
    if (joint.nv == 0) continue;
    // A product over at most six terms per entry: coefficient by coefficient.
    ws.jacobian.middleCols(joint.idx_v, joint.nv).noalias() +=
        h * ws.data.dtau_dq.middleCols(joint.idx_v, joint.nv)
                .lazyProduct(ws.dq_dv.block(joint.idx_v, joint.idx_v, joint.nv, joint.nv));
  }
}

// The Newton step matrix G = K^-1 M into ws.newton_step, K at the iterate (q1, v1, qdd). K has
// M's tree pattern unless the torque function couples dofs of different branches: then, or on a
// tiny pivot, a dense LU with partial pivoting (ws.lu) stands in for the tree factor.
// @pre velocityResidual ran at ws.v_next: ws.q_stage, ws.tau, ws.data.qdd.
void newtonMatrix(const Model& model, IntegratorWorkspace& ws, double t, double h,
                  const TorqueFunction& tau, const TorqueJacobianFunction& tau_jacobian) {
  rneaDerivatives(model, ws.data, ws.q_stage, ws.v_next, ws.data.qdd);
  if (tau) {
    if (tau_jacobian) {
      tau_jacobian(t, ws.q_stage, ws.v_next, ws.dtau_dq, ws.dtau_dv);
    } else {
      torqueDifferences(model, ws, t, tau);
    }
    ws.data.dtau_dq -= ws.dtau_dq;
    ws.data.dtau_dv -= ws.dtau_dv;
  }
  integrateVelocityJacobian(model, ws.v_next, h, ws.dq_dv);
  assembleNewtonMatrix(model, ws, h);
  const double pivot_floor = kTreePivotFloor * ws.jacobian.diagonal().cwiseAbs().maxCoeff();
  // Without a torque function K is M's pattern by construction (d tau_rnea has it, and
  // d(q0 (+) h v1)/dv1 mixes only the dofs of one joint).
  const bool tree_shaped = !tau || detail::hasTreePattern(model, ws.jacobian);
  if (tree_shaped && detail::factorizeTree(model, ws.jacobian, pivot_floor)) {
    // G^T from M^T = M, then G.
    ws.newton_step = ws.data.M;
    detail::solveTreeTransposed(model, ws.jacobian, ws.newton_step);
    ws.newton_step.transposeInPlace();
  } else {
    // A tree factorization stopped at a small pivot has changed K: K again.
    if (tree_shaped) assembleNewtonMatrix(model, ws, h);
    ws.lu.compute(ws.jacobian);
    ws.newton_step = ws.lu.solve(ws.data.M);
  }
  if (!ws.newton_step.allFinite()) {
    throw Error(
        "implicitEulerStep: the Newton matrix is singular or not finite (check the torque "
        "function's derivatives); reduce h");
  }
}

}  // namespace

IntegratorWorkspace::IntegratorWorkspace(const Model& model)
    : data(model),
      tau(Eigen::VectorXd::Zero(model.nv)),
      q_stage(model.nq),
      v_stage(model.nv),
      delta(model.nv),
      k_delta(model.nv, 4),
      k_v(model.nv, 4),
      residual(model.nv),
      v_next(model.nv),
      q_probe(model.nq),
      tau_probe(model.nv),
      dtau_dq(model.nv, model.nv),
      dtau_dv(model.nv, model.nv),
      dq_dv(model.nv, model.nv),
      jacobian(model.nv, model.nv),
      lu(model.nv),
      implicit_differences(Eigen::MatrixXd::Zero(model.nv, kGuessDegreeMax + 1)),
      newton_step(model.nv, model.nv) {}

void semiImplicitEulerStep(const Model& model, IntegratorWorkspace& ws, double t,
                           Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v, double h,
                           const TorqueFunction& tau) {
  ws.q_stage = q;
  ws.v_stage = v;
  const Eigen::VectorXd& a = acceleration(model, ws, t, ws.q_stage, ws.v_stage, tau);
  v += h * a;
  integrate(model, q, v, h, q);
}

void rungeKutta4Step(const Model& model, IntegratorWorkspace& ws, double t,
                     Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v, double h,
                     const TorqueFunction& tau) {
  validateConfiguration(model, q);
  validateVelocity(model, v);
  // Stage i at (q0 (+) delta_i, v0 + dv_i); slopes k_delta = d(delta)/dt (configuration.hpp),
  // k_v = a.
  static constexpr double kStage[4] = {0.0, 0.5, 0.5, 1.0};
  static constexpr double kWeight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  for (int i = 0; i < 4; ++i) {
    if (i == 0) {
      ws.delta.setZero();
      ws.v_stage = v;
    } else {
      ws.delta = kStage[i] * h * ws.k_delta.col(i - 1);
      ws.v_stage = v + kStage[i] * h * ws.k_v.col(i - 1);
    }
    integrate(model, q, ws.delta, 1.0, ws.q_stage);
    tangentCoordinateRates(model, ws.delta, ws.v_stage, ws.k_delta.col(i));
    ws.k_v.col(i) = acceleration(model, ws, t + kStage[i] * h, ws.q_stage, ws.v_stage, tau);
  }
  const Eigen::Vector4d hw = h * Eigen::Map<const Eigen::Vector4d>(kWeight);
  ws.delta.noalias() = ws.k_delta * hw;
  v.noalias() += ws.k_v * hw;
  integrate(model, q, ws.delta, 1.0, q);
}

ImplicitStepReport implicitEulerStep(const Model& model, IntegratorWorkspace& ws, double t,
                                     Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v,
                                     double h, const TorqueFunction& tau, double tolerance,
                                     int max_iterations,
                                     const TorqueJacobianFunction& tau_jacobian) {
  checkData(model, ws.data, "implicitEulerStep");
  validateConfiguration(model, q);
  validateVelocity(model, v);
  checkImplicitSettings(h, tolerance, max_iterations);
  // The history extrapolates only its own steps: a new h, or a v changed since the last step
  // ended (a reset, an impulse), starts it afresh.
  if (ws.newton_h != h || (ws.implicit_history > 0 && v != ws.v_next)) ws.implicit_history = 0;
  initialGuess(ws, v, h);
  ImplicitStepReport report;
  double latest = velocityResidual(model, ws, t + h, q, v, h, tau);
  double previous = std::numeric_limits<double>::infinity();
  // The largest contraction |r_k| / |r_k-1| the Newton matrix has shown in this step (0: none).
  double slowest = 0.0;
  while (!(latest <= tolerance)) {
    if (report.iterations == max_iterations) {
      throwNotConverged(report.iterations, latest, tolerance);
    }
    // The Newton step (M^-1 K)^-1 r = K^-1 M r with a kept G = K^-1 M while it shrinks the
    // residual fast enough, else one made afresh at this iterate.
    const bool renew = ws.newton_h != h || latest > kRefreshContraction * previous;
    if (renew) {
      ws.newton_h = 0.0;
      newtonMatrix(model, ws, t + h, h, tau, tau_jacobian);
      ws.newton_h = h;
      slowest = 0.0;
      ++report.newton_matrices;
    }
    ws.v_stage.noalias() = ws.newton_step * ws.residual;
    ++report.iterations;
    if (!(ws.v_next - ws.v_stage).allFinite()) {
      // A kept matrix that would throw the iterate out of range is made afresh at the iterate
      // (which stays where its residual was evaluated); one made there failed.
      if (renew) throwNotConverged(report.iterations, latest, tolerance);
      ws.newton_h = 0.0;
      continue;
    }
    ws.v_next -= ws.v_stage;
    // When the same matrix shrank each of this step's residuals by at most theta (at most
    // kRefreshContraction), the new iterate's residual is about theta times this one at most.
    const double predicted = slowest * latest;
    if (!renew && slowest > 0.0 && predicted <= kPredictionMargin * tolerance) {
      latest = predicted;
      report.residual_estimated = true;
      break;
    }
    previous = latest;
    latest = velocityResidual(model, ws, t + h, q, v, h, tau);
    slowest = std::max(slowest, latest / previous);
  }
  report.residual = latest;
  rememberAcceleration(ws, v, h);
  v = ws.v_next;
  // q1 = q0 (+) h v1 is the last residual's when that was evaluated at v1.
  if (report.residual_estimated) {
    integrate(model, q, v, h, q);
  } else {
    q = ws.q_stage;
  }
  return report;
}

}  // namespace gcbridge
