#include "gcbridge/controllers/trajectory.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>

#include "checks.hpp"
#include "gcbridge/dynamics/configuration.hpp"

namespace gcbridge {
namespace {

/// The model of a held reference; a null one is refused.
const Model& heldModel(const std::shared_ptr<const Trajectory>& held) {
  if (!held) throw InvalidArgumentError("first-order hold: the held reference is null");
  return held->model();
}

/// Solves a tridiagonal system for every column of rhs in O(rows): row k reads
/// lower_k x_{k-1} + diagonal_k x_k + upper_k x_{k+1} = rhs_k (Thomas' elimination without
/// pivoting, stable for the diagonally dominant systems of cubic splines).
Eigen::MatrixXd solveTridiagonal(const Eigen::VectorXd& lower, const Eigen::VectorXd& diagonal,
                                 const Eigen::VectorXd& upper, Eigen::MatrixXd rhs) {
  const Eigen::Index n = diagonal.size();
  Eigen::VectorXd pivot(n);
  pivot(0) = diagonal(0);
  for (Eigen::Index k = 1; k < n; ++k) {
    const double factor = lower(k) / pivot(k - 1);
    pivot(k) = diagonal(k) - factor * upper(k - 1);
    rhs.row(k) -= factor * rhs.row(k - 1);
  }
  rhs.row(n - 1) /= pivot(n - 1);
  for (Eigen::Index k = n - 2; k >= 0; --k) {
    rhs.row(k) = (rhs.row(k) - upper(k) * rhs.row(k + 1)) / pivot(k);
  }
  return rhs;
}

}  // namespace

JointReference::JointReference(const Model& model)
    : q(neutralConfiguration(model)),
      v(Eigen::VectorXd::Zero(model.nv)),
      a(Eigen::VectorXd::Zero(model.nv)) {}

Trajectory::~Trajectory() = default;

void Trajectory::checkEvaluateArguments(double t, const JointReference& ref) const {
  detail::checkFinite(t, "trajectory time t");
  if (ref.q.size() != model_->nq || ref.v.size() != model_->nv || ref.a.size() != model_->nv) {
    throw InvalidArgumentError("trajectory reference has sizes (q " + std::to_string(ref.q.size()) +
                               ", v " + std::to_string(ref.v.size()) + ", a " +
                               std::to_string(ref.a.size()) + "), needs (" +
                               std::to_string(model_->nq) + ", " + std::to_string(model_->nv) +
                               ", " + std::to_string(model_->nv) + "): use JointReference(model)");
  }
}

// ---------------------------------------------------------------------------------------------
// Sinusoid

Sinusoid::Sinusoid(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& amplitude,
                   const Eigen::VectorXd& angular_frequency, const Eigen::VectorXd& phase)
    : Trajectory(model) {
  detail::checkConfiguration(model, q0, "sinusoid centre q0");
  detail::checkVector(amplitude, model.nv, "sinusoid amplitude");
  detail::checkVector(angular_frequency, model.nv, "sinusoid angular_frequency");
  detail::checkVector(phase, model.nv, "sinusoid phase");
  q0_ = q0;
  amplitude_ = amplitude;
  frequency_ = angular_frequency;
  phase_ = phase;
  delta_.resize(model.nv);
  delta_dot_.resize(model.nv);
  delta_ddot_.resize(model.nv);
}

void Sinusoid::evaluate(double t, JointReference& ref) const {
  checkEvaluateArguments(t, ref);
  // delta = A sin(w t + phi) and its two derivatives, per dof.
  for (int i = 0; i < model_->nv; ++i) {
    const double arg = frequency_[i] * t + phase_[i];
    const double w = frequency_[i], A = amplitude_[i];
    delta_[i] = A * std::sin(arg);
    delta_dot_[i] = A * w * std::cos(arg);
    delta_ddot_[i] = -A * w * w * std::sin(arg);
  }
  // q = q0 (+) delta; v, a from the tangent curve.
  integrate(*model_, q0_, delta_, 1.0, ref.q);
  tangentCurveVelocity(*model_, delta_, delta_dot_, delta_ddot_, ref.v, ref.a);
}

// ---------------------------------------------------------------------------------------------
// QuinticPointToPoint

QuinticPointToPoint::QuinticPointToPoint(const Model& model, const Eigen::VectorXd& q0,
                                         const Eigen::VectorXd& q1, double duration, double t_start)
    : Trajectory(model), duration_(duration), t_start_(t_start) {
  detail::checkConfiguration(model, q0, "quintic start q0");
  detail::checkConfiguration(model, q1, "quintic goal q1");
  if (!(duration > 0.0) || !std::isfinite(duration)) {
    throw InvalidArgumentError("quintic duration must be finite and > 0, got " +
                               std::to_string(duration));
  }
  detail::checkFinite(t_start, "quintic t_start");
  q0_ = q0;
  q1_ = q1;
  d_ = difference(model, q0, q1);
  delta_.resize(model.nv);
  delta_dot_.resize(model.nv);
  delta_ddot_.resize(model.nv);
}

void QuinticPointToPoint::evaluate(double t, JointReference& ref) const {
  checkEvaluateArguments(t, ref);
  // Outside the move: at rest at an end.
  if (t <= t_start_ || t >= t_start_ + duration_) {
    ref.q = t <= t_start_ ? q0_ : q1_;
    ref.v.setZero();
    ref.a.setZero();
    return;
  }
  // s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5 and its time derivatives.
  const double T = duration_, tau = (t - t_start_) / T;
  const double tau2 = tau * tau, tau3 = tau2 * tau;
  const double s = tau3 * (10.0 - 15.0 * tau + 6.0 * tau2);
  const double s_dot = 30.0 * tau2 * (1.0 - 2.0 * tau + tau2) / T;
  const double s_ddot = 60.0 * tau * (1.0 - 3.0 * tau + 2.0 * tau2) / (T * T);
  delta_ = s * d_;
  delta_dot_ = s_dot * d_;
  delta_ddot_ = s_ddot * d_;
  integrate(*model_, q0_, delta_, 1.0, ref.q);
  tangentCurveVelocity(*model_, delta_, delta_dot_, delta_ddot_, ref.v, ref.a);
}

// ---------------------------------------------------------------------------------------------
// CubicSpline

CubicSpline::CubicSpline(const Model& model, const std::vector<double>& times,
                         const std::vector<Eigen::VectorXd>& waypoints, SplineBoundary boundary)
    : Trajectory(model) {
  const int n = static_cast<int>(times.size());
  if (n < 2) throw InvalidArgumentError("cubic spline needs at least 2 times");
  if (waypoints.size() != times.size()) {
    throw InvalidArgumentError("cubic spline: " + std::to_string(waypoints.size()) +
                               " waypoints for " + std::to_string(n) + " times");
  }
  for (int k = 0; k < n; ++k) {
    detail::checkFinite(times[k], "cubic spline times[k]");
    if (k > 0 && !(times[k] > times[k - 1])) {
      throw InvalidArgumentError("cubic spline times must increase strictly: times[" +
                                 std::to_string(k) + "] = " + std::to_string(times[k]));
    }
    const std::string what = "cubic spline waypoints[" + std::to_string(k) + "]";
    detail::checkConfiguration(model, waypoints[k], what.c_str());
  }
  times_ = times;
  q_first_ = waypoints.front();
  q_last_ = waypoints.back();
  // Waypoints in the tangent space of the first one.
  y_.resize(n, model.nv);
  for (int k = 0; k < n; ++k) y_.row(k) = difference(model, q_first_, waypoints[k]).transpose();
  // Second derivatives y''_k from the tridiagonal system (all dofs at once):
  // h_{k-1} y''_{k-1} + 2 (h_{k-1} + h_k) y''_k + h_k y''_{k+1}
  //   = 6 ((y_{k+1} - y_k)/h_k - (y_k - y_{k-1})/h_{k-1}),
  // with y''_0 = y''_m = 0 (natural) or y'_0 = y'_m = 0 (clamped). Row k is
  // lower_k y''_{k-1} + diagonal_k y''_k + upper_k y''_{k+1} = rhs_k.
  Eigen::VectorXd lower = Eigen::VectorXd::Zero(n), diagonal = Eigen::VectorXd::Ones(n),
                  upper = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(n, model.nv);
  for (int k = 1; k < n - 1; ++k) {
    const double h0 = times[k] - times[k - 1], h1 = times[k + 1] - times[k];
    lower(k) = h0;
    diagonal(k) = 2.0 * (h0 + h1);
    upper(k) = h1;
    rhs.row(k) = 6.0 * ((y_.row(k + 1) - y_.row(k)) / h1 - (y_.row(k) - y_.row(k - 1)) / h0);
  }
  const int m = n - 1;
  if (boundary == SplineBoundary::Clamped) {
    // y'(t_0) = 0: 2 h_0 y''_0 + h_0 y''_1 = 6 (y_1 - y_0)/h_0; likewise at the end.
    const double h0 = times[1] - times[0], hm = times[m] - times[m - 1];
    diagonal(0) = 2.0 * h0;
    upper(0) = h0;
    rhs.row(0) = 6.0 * (y_.row(1) - y_.row(0)) / h0;
    lower(m) = hm;
    diagonal(m) = 2.0 * hm;
    rhs.row(m) = -6.0 * (y_.row(m) - y_.row(m - 1)) / hm;
  }
  y_dd_ = solveTridiagonal(lower, diagonal, upper, rhs);
  delta_.resize(model.nv);
  delta_dot_.resize(model.nv);
  delta_ddot_.resize(model.nv);
}

void CubicSpline::evaluate(double t, JointReference& ref) const {
  checkEvaluateArguments(t, ref);
  // Outside the knots: at rest at an end.
  if (t < times_.front() || t > times_.back()) {
    ref.q = t < times_.front() ? q_first_ : q_last_;
    ref.v.setZero();
    ref.a.setZero();
    return;
  }
  // Segment k with t_k <= t < t_{k+1} (the last one up to and including t_m).
  const int last = static_cast<int>(times_.size()) - 2;
  const int k = std::min(
      last,
      static_cast<int>(std::upper_bound(times_.begin(), times_.end(), t) - times_.begin()) - 1);
  const double h = times_[k + 1] - times_[k];
  const double A = times_[k + 1] - t, B = t - times_[k];
  // The cubic between knots k and k+1 from the values y and second derivatives M:
  // y = M_k A^3/(6h) + M_{k+1} B^3/(6h) + (y_k/h - M_k h/6) A + (y_{k+1}/h - M_{k+1} h/6) B.
  for (int i = 0; i < model_->nv; ++i) {
    const double yk = y_(k, i), yk1 = y_(k + 1, i), Mk = y_dd_(k, i), Mk1 = y_dd_(k + 1, i);
    const double ck = yk / h - Mk * h / 6.0, ck1 = yk1 / h - Mk1 * h / 6.0;
    delta_[i] = (Mk * A * A * A + Mk1 * B * B * B) / (6.0 * h) + ck * A + ck1 * B;
    delta_dot_[i] = (-Mk * A * A + Mk1 * B * B) / (2.0 * h) - ck + ck1;
    delta_ddot_[i] = (Mk * A + Mk1 * B) / h;
  }
  integrate(*model_, q_first_, delta_, 1.0, ref.q);
  tangentCurveVelocity(*model_, delta_, delta_dot_, delta_ddot_, ref.v, ref.a);
}

// ---------------------------------------------------------------------------------------------
// SampledTrajectory

SampledTrajectory::SampledTrajectory(const Model& model,
                                     const std::vector<Eigen::VectorXd>& samples, double dt,
                                     double t_start, FiniteDifference scheme)
    : Trajectory(model), dt_(dt), t_start_(t_start) {
  const int N = static_cast<int>(samples.size());
  if (N < 3) throw InvalidArgumentError("sampled trajectory needs at least 3 samples");
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    throw InvalidArgumentError("sampled trajectory dt must be finite and > 0, got " +
                               std::to_string(dt));
  }
  detail::checkFinite(t_start, "sampled trajectory t_start");
  for (int k = 0; k < N; ++k) {
    const std::string what = "sampled trajectory samples[" + std::to_string(k) + "]";
    detail::checkConfiguration(model, samples[k], what.c_str());
  }
  q_.resize(model.nq, N);
  for (int k = 0; k < N; ++k) q_.col(k) = samples[k];
  v_.resize(model.nv, N);
  a_.resize(model.nv, N);
  if (scheme == FiniteDifference::Backward) {
    // Lin: v_k = (q_k - q_{k-1})/dt, a_k = (v_k - v_{k-1})/dt, on the manifold.
    for (int k = 1; k < N; ++k) v_.col(k) = difference(model, q_.col(k - 1), q_.col(k)) / dt;
    v_.col(0) = v_.col(1);
    for (int k = 2; k < N; ++k) a_.col(k) = (v_.col(k) - v_.col(k - 1)) / dt;
    a_.col(0) = a_.col(2);
    a_.col(1) = a_.col(2);
  } else {
    // Central differences in the tangent space of q_k; one-sided at the ends.
    for (int k = 1; k < N - 1; ++k) {
      v_.col(k) = (difference(model, q_.col(k), q_.col(k + 1)) -
                   difference(model, q_.col(k), q_.col(k - 1))) /
                  (2.0 * dt);
    }
    v_.col(0) = difference(model, q_.col(0), q_.col(1)) / dt;
    v_.col(N - 1) = difference(model, q_.col(N - 2), q_.col(N - 1)) / dt;
    for (int k = 1; k < N - 1; ++k) a_.col(k) = (v_.col(k + 1) - v_.col(k - 1)) / (2.0 * dt);
    a_.col(0) = (v_.col(1) - v_.col(0)) / dt;
    a_.col(N - 1) = (v_.col(N - 1) - v_.col(N - 2)) / dt;
  }
  delta_.resize(model.nv);
}

void SampledTrajectory::evaluate(double t, JointReference& ref) const {
  checkEvaluateArguments(t, ref);
  const int N = numSamples();
  const double s_total = (t - t_start_) / dt_;
  // Outside the samples: at rest at an end.
  if (s_total <= 0.0 || s_total >= N - 1) {
    ref.q = s_total <= 0.0 ? q_.col(0) : q_.col(N - 1);
    ref.v.setZero();
    ref.a.setZero();
    return;
  }
  // Between samples k and k+1: q along the manifold, v and a linearly.
  const int k = std::min(static_cast<int>(std::floor(s_total)), N - 2);
  const double s = s_total - k;
  difference(*model_, q_.col(k), q_.col(k + 1), delta_);
  delta_ *= s;
  integrate(*model_, q_.col(k), delta_, 1.0, ref.q);
  ref.v = (1.0 - s) * v_.col(k) + s * v_.col(k + 1);
  ref.a = (1.0 - s) * a_.col(k) + s * a_.col(k + 1);
}

FirstOrderHold::FirstOrderHold(std::shared_ptr<const Trajectory> held, double period, double t0)
    : Trajectory(heldModel(held)),
      held_(std::move(held)),
      period_(period),
      t0_(t0),
      sample_(*model_),
      previous_(*model_) {
  if (!(period > 0.0) || !std::isfinite(period)) {
    throw InvalidArgumentError("first-order hold: the period must be finite and > 0, got " +
                               std::to_string(period));
  }
  detail::checkFinite(t0, "first-order hold t0");
}

void FirstOrderHold::evaluate(double t, JointReference& ref) const {
  checkEvaluateArguments(t, ref);
  // The tick t_i <= t, and the held samples of it and of the one before, taken mid-way.
  const double t_i = t0_ + std::floor((t - t0_) / period_) * period_;
  held_->evaluate(t_i + 0.5 * period_, sample_);
  held_->evaluate(t_i - 0.5 * period_, previous_);
  // The line through them, extrapolated from q_i.
  difference(*model_, previous_.q, sample_.q, ref.v);
  ref.v /= period_;
  integrate(*model_, sample_.q, ref.v, t - t_i, ref.q);
  ref.a.setZero();
}

}  // namespace gcbridge
