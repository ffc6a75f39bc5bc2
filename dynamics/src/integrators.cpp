#include "gcbridge/dynamics/integrators.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

// qdd = ABA(q, v, tau(t, q, v)) into ws.data.qdd.
const Eigen::VectorXd& acceleration(const Model& model, IntegratorWorkspace& ws, double t,
                                    const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                    const TorqueFunction& tau) {
  if (tau) {
    tau(t, q, v, ws.tau);
  } else {
    ws.tau.setZero();
  }
  return aba(model, ws.data, q, v, ws.tau);
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
      jacobian(model.nv, model.nv),
      lu(model.nv) {}

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
                                     int max_iterations) {
  validateConfiguration(model, q);
  validateVelocity(model, v);
  // Residual r(v1) = v1 - v0 - h a(t + h, q0 (+) h v1, v1).
  auto residual = [&](const Eigen::VectorXd& v1, Eigen::Ref<Eigen::VectorXd> r) {
    integrate(model, q, v1, h, ws.q_stage);
    r = v1 - v - h * acceleration(model, ws, t + h, ws.q_stage, v1, tau);
  };
  ImplicitStepReport report;
  ws.v_next = v;  // initial guess: the current velocity
  residual(ws.v_next, ws.residual);
  while (ws.residual.lpNorm<Eigen::Infinity>() > tolerance) {
    if (report.iterations == max_iterations) {
      throw Error("implicitEulerStep: Newton did not converge in " +
                  std::to_string(max_iterations) + " iterations (residual " +
                  std::to_string(ws.residual.lpNorm<Eigen::Infinity>()) + "); reduce h");
    }
    // Forward-difference Jacobian dr/dv1, one column per dof.
    for (int i = 0; i < model.nv; ++i) {
      const double step = 1e-7 * std::max(1.0, std::abs(ws.v_next[i]));
      ws.v_stage = ws.v_next;
      ws.v_stage[i] += step;
      residual(ws.v_stage, ws.jacobian.col(i));
      ws.jacobian.col(i) = (ws.jacobian.col(i) - ws.residual) / step;
    }
    ws.lu.compute(ws.jacobian);
    ws.v_stage = ws.lu.solve(ws.residual);
    ws.v_next -= ws.v_stage;
    residual(ws.v_next, ws.residual);
    ++report.iterations;
  }
  report.residual = ws.residual.lpNorm<Eigen::Infinity>();
  v = ws.v_next;
  integrate(model, q, v, h, q);
  return report;
}

}  // namespace gcbridge
