#pragma once
/// @file
/// Joint-space references q_ref(t), qdot_ref(t), qdd_ref(t) for the controllers: sinusoids, a
/// quintic point-to-point move, a cubic spline through waypoints, and a sampled trajectory
/// differentiated numerically as in Lin's lecture.
///
/// Every trajectory lives on the configuration manifold: it is a curve q(t) = q0 (+) delta(t) in
/// the tangent space of a base configuration q0 (integrate() of configuration.hpp), and its v and a
/// are the exact derivatives of that curve in gcbridge's velocity convention (configuration.hpp:
/// angular velocity in the child frame for quaternion ball joints, body-frame spatial velocity for
/// free joints), so that a = dv/dt component by component, as aba() defines it. Ball and free
/// joints are therefore never interpolated component-wise on their quaternions.
///
/// evaluate() allocates nothing. It uses scratch buffers of the trajectory object, so one object
/// must not be evaluated from two threads at once. A trajectory keeps a pointer to its model,
/// which must outlive it.

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// A joint-space reference at one instant.
struct JointReference {
  JointReference() = default;
  /// Sized for `model`: q neutral, v and a zero.
  explicit JointReference(const Model& model);
  Eigen::VectorXd q;  ///< reference configuration (nq)
  Eigen::VectorXd v;  ///< reference velocity (nv) [rad/s, m/s]
  Eigen::VectorXd a;  ///< reference acceleration, dv/dt (nv) [rad/s^2, m/s^2]
};

/// A joint-space reference as a function of time.
class Trajectory {
 public:
  explicit Trajectory(const Model& model) : model_(&model) {}
  virtual ~Trajectory();
  /// The reference at time t [s], written into ref without allocation.
  /// @param[out] ref sized for the model (JointReference(model)).
  /// @throws InvalidArgumentError if t is not finite or ref has the wrong sizes (ref unchanged).
  virtual void evaluate(double t, JointReference& ref) const = 0;
  const Model& model() const { return *model_; }

 protected:
  /// @throws InvalidArgumentError if t is not finite or ref is not sized for the model.
  void checkEvaluateArguments(double t, const JointReference& ref) const;
  const Model* model_;
};

/// q(t) = q0 (+) delta(t), delta_i(t) = A_i sin(w_i t + phi_i) for every dof i: a sinusoid about a
/// centre configuration q0. For a quaternion ball or free joint delta is a rotation vector (and a
/// translation in q0's axes) in the tangent space of q0, and v, a follow exactly
/// (configuration.hpp).
class Sinusoid : public Trajectory {
 public:
  /// @param q0 centre configuration (nq) @param amplitude A (nv) [rad, m]
  /// @param angular_frequency w (nv) [rad/s] @param phase phi (nv) [rad]
  /// @throws InvalidArgumentError naming the argument on a wrong size or non-finite entry.
  Sinusoid(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& amplitude,
           const Eigen::VectorXd& angular_frequency, const Eigen::VectorXd& phase);
  void evaluate(double t, JointReference& ref) const override;

 private:
  Eigen::VectorXd q0_, amplitude_, frequency_, phase_;
  mutable Eigen::VectorXd delta_, delta_dot_, delta_ddot_;  // scratch (nv)
};

/// A rest-to-rest move q0 -> q1 in `duration` seconds starting at t_start, on the manifold:
/// q(t) = q0 (+) s(tau) d with d = q1 (-) q0 (difference(q0, q1): the shorter rotation for ball
/// joints) and the quintic s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5, tau = (t - t_start)/duration,
/// which has zero velocity and acceleration at both ends. Before t_start the reference is q0 at
/// rest, after the end q1 at rest.
class QuinticPointToPoint : public Trajectory {
 public:
  /// @param q0, q1 start and goal (nq) @param duration [s] > 0 @param t_start [s]
  /// @throws InvalidArgumentError naming the argument.
  QuinticPointToPoint(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                      double duration, double t_start = 0.0);
  void evaluate(double t, JointReference& ref) const override;

 private:
  Eigen::VectorXd q0_, q1_, d_;
  double duration_, t_start_;
  mutable Eigen::VectorXd delta_, delta_dot_, delta_ddot_;  // scratch (nv)
};

/// End conditions of a cubic spline.
enum class SplineBoundary {
  /// Zero second derivative of delta at both ends (the end velocities are free). That is zero
  /// acceleration for joints whose v is a coordinate rate; for quaternion ball and free joints
  /// the end acceleration is the velocity-product term (configuration.hpp), zero only at rest.
  Natural,
  Clamped,  ///< zero velocity at both ends (rest to rest)
};

/// A C2 cubic spline through waypoints q_0 .. q_m at times t_0 < .. < t_m, interpolated per dof in
/// the tangent space of the first waypoint: delta_k = q_k (-) q_0, delta(t) the cubic spline of
/// the delta_k, q(t) = q_0 (+) delta(t). The spline passes through every waypoint exactly; its
/// velocity and acceleration are continuous. For a ball joint this is exact only while every
/// waypoint is within a rotation of pi of the first one (log is single-valued there). On
/// [t_0, t_m] the reference is the spline (at t_0 and t_m too, with the spline's velocity there);
/// before t_0 and after t_m it is the end waypoint at rest.
class CubicSpline : public Trajectory {
 public:
  /// @param times strictly increasing, finite [s] (at least 2)
  /// @param waypoints one configuration per time (nq each)
  /// @throws InvalidArgumentError naming the argument.
  CubicSpline(const Model& model, const std::vector<double>& times,
              const std::vector<Eigen::VectorXd>& waypoints,
              SplineBoundary boundary = SplineBoundary::Natural);
  void evaluate(double t, JointReference& ref) const override;

 private:
  std::vector<double> times_;
  Eigen::VectorXd q_first_, q_last_;
  Eigen::MatrixXd y_;     // delta_k, one row per waypoint (m+1 x nv)
  Eigen::MatrixXd y_dd_;  // second derivatives at the waypoints (m+1 x nv)
  mutable Eigen::VectorXd delta_, delta_dot_, delta_ddot_;  // scratch (nv)
};

/// How SampledTrajectory differentiates its samples.
enum class FiniteDifference {
  /// Lin's: v_k = (q_k (-) q_{k-1})/dt, a_k = (v_k - v_{k-1})/dt. First order, and late by
  /// about dt/2 (v) and dt (a).
  Backward,
  /// v_k = (q_{k+1} (-) q_k - (q_{k-1} (-) q_k))/(2 dt) (tangent at q_k), a_k = (v_{k+1} -
  /// v_{k-1})/(2 dt). Second order.
  Central,
};

/// A reference given only as samples q_0 .. q_{N-1} at spacing dt (e.g. from a planner or motion
/// capture), with v and a by finite differences as in Lin's lecture. Between samples q is
/// interpolated linearly on the manifold (q_k (+) s (q_{k+1} (-) q_k)) and v, a linearly; before
/// t_start the first sample at rest, after the last the last sample at rest. Where a stencil would
/// need a sample beyond the ends, the nearest available value is repeated.
///
/// Lin's warning: numerically differentiated references are not consistent with the motion
/// they came from (O(dt) errors, noise amplified by 1/dt and 1/dt^2), so feeding qdd_ref forward
/// alone lets errors accumulate. Use them with feedback (K, D > 0 in ComputedTorque).
class SampledTrajectory : public Trajectory {
 public:
  /// @param samples N >= 3 configurations (nq each) @param dt sample spacing [s] > 0
  /// @param t_start time of the first sample [s]
  /// @throws InvalidArgumentError naming the argument.
  SampledTrajectory(const Model& model, const std::vector<Eigen::VectorXd>& samples, double dt,
                    double t_start = 0.0, FiniteDifference scheme = FiniteDifference::Backward);
  void evaluate(double t, JointReference& ref) const override;
  int numSamples() const { return static_cast<int>(q_.cols()); }
  /// Sample k's configuration (nq), velocity and acceleration (nv).
  Eigen::MatrixXd::ConstColXpr sampleConfiguration(int k) const { return q_.col(k); }
  Eigen::MatrixXd::ConstColXpr sampleVelocity(int k) const { return v_.col(k); }
  Eigen::MatrixXd::ConstColXpr sampleAcceleration(int k) const { return a_.col(k); }

 private:
  Eigen::MatrixXd q_, v_, a_;  // samples (nq x N), their velocities and accelerations (nv x N)
  double dt_, t_start_;
  mutable Eigen::VectorXd delta_;  // scratch (nv)
};

/// A reference that changes only at a clock's ticks, every `period` from t0 (targets computed
/// from a clock in whole milliseconds, as Bullet's MotorDemo does; a planner that updates at
/// 100 Hz), seen as the motion it samples: the first-order hold (Franklin, Powell & Workman), the
/// line through its last two samples extrapolated until the next tick. With q_i the held
/// reference's sample of the tick t_i <= t < t_i + period and d_i = q_i (-) q_{i-1}:
///   q(t) = q_i (+) ((t - t_i) / period) d_i,   v(t) = d_i / period,   a(t) = 0.
/// A held reference asks a controller aimed at the end of a substep (ComputedTorque::aimAtStepEnd)
/// to make each tick's jump within one substep, and for several ticks' in one substep when the
/// ticks are slightly faster than the substeps (1 kHz ticks at 960 Hz): this one asks for the
/// sampled motion, which a body can follow. It follows a motion with |q''| <= c to c period^2.
/// The held reference is evaluated mid-way between ticks (at t_i + period/2 and
/// t_i - period/2), so a tick's rounding does not matter; before t0 + period the sample before
/// t0 is the held reference's at t0 - period/2.
class FirstOrderHold : public Trajectory {
 public:
  /// @param held the reference held between ticks (not null) @param period [s] > 0
  /// @param t0 a tick [s]
  /// @throws InvalidArgumentError naming the argument.
  FirstOrderHold(std::shared_ptr<const Trajectory> held, double period, double t0 = 0.0);
  void evaluate(double t, JointReference& ref) const override;

 private:
  std::shared_ptr<const Trajectory> held_;
  double period_, t0_;
  mutable JointReference sample_, previous_;  // the held reference's last two samples (scratch)
};

}  // namespace gcbridge
