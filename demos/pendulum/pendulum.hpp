#pragma once
// The pendulum experiment of demos/pendulum, shared by the demo and tests/pendulum_demo_test.cpp:
// Lin's pendulum (tau = m l^2 qdd + m g l sin q) built with gcbridge::ModelBuilder, simulated
// by Bullet as one btRigidBody on a btHingeConstraint, and driven by computed torque through the
// plugin. Every substep the controller's torque is compared with the analytic formula.

#include <Eigen/Core>
#include <cmath>
#include <cstdio>

#include "common/progress.hpp"
#include "common/run_frames.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::demo {

/// The pendulum: a small solid sphere of mass m and radius r whose centre is at distance l below
/// a revolute joint about the world x axis; q = 0 hangs straight down.
///
/// The bob is a small sphere, not a point mass: Bullet cannot move a body with a zero principal
/// moment (the bridge rejects it; Bullet would read 1/0 as a locked axis), so the bob has
/// I_c = 2/5 m r^2 about its centre, and Lin's formula gains that term:
///   tau = (m l^2 + I_c) qdd + m g l sin q.
struct PendulumParameters {
  double mass = 1.0;      ///< m [kg]
  double length = 0.5;    ///< l, joint to centre of mass [m]
  double radius = 0.05;   ///< r, radius of the bob [m]
  double gravity = 9.81;  ///< g [m/s^2]
  /// I_c = 2/5 m r^2, the bob's moment of inertia about its centre [kg m^2].
  double inertiaAboutCom() const { return 0.4 * mass * radius * radius; }
};

/// The pendulum as a gcbridge model (ModelBuilder: one link, one revolute joint).
Model makePendulum(const PendulumParameters& p);

/// tau = (m l^2 + I_c) qdd + m g l sin q (Lin's plus the bob's own inertia) [N m].
double analyticTorque(const PendulumParameters& p, double q, double qdd);

/// What one run measured.
struct PendulumResult {
  double max_torque_difference = 0.0;  ///< max |tau_controller - tau_analytic| [N m]
  double max_torque = 0.0;             ///< max |tau_analytic| [N m]
  /// The same difference against Lin's formula without I_c (how much that term matters).
  double max_difference_without_Ic = 0.0;
  double rms_error = 0.0;        ///< RMS of q_ref - q over substeps [rad]
  double max_error = 0.0;        ///< max |q_ref - q| [rad]
  double max_joint_error = 0.0;  ///< largest pivot separation of the hinge [m]
  long errors = 0;               ///< substeps the plugin applied nothing
  bool diverged = false;         ///< NaN, or |q_ref - q| > 1 rad
};

/// The reference: q_ref(t) = A sin(w t), A = 1 rad, w = pi rad/s (0.5 Hz).
constexpr double kPendulumAmplitude = 1.0;
constexpr double kPendulumFrequency = M_PI;

/// Runs `steps` substeps of length h: computed torque (K = 400 1/s^2, D = 40 1/s) attached with
/// the plugin to a Bullet world of the pendulum that starts on the reference. Writes one CSV row
/// per substep to csv if given: rate_hz, t, q_ref, q, tau_controller, tau_analytic; the run's
/// frames to `frames` if given.
PendulumResult runPendulum(const PendulumParameters& p, double h, int steps,
                           std::FILE* csv = nullptr, const ProgressCallback& progress = {},
                           RunFrames* frames = nullptr);

}  // namespace gcbridge::demo
