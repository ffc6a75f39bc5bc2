#pragma once
// The task-space experiment of demos/task_space, shared by the demo and
// tests/task_space_demo_test.cpp: the KUKA iiwa built as Bullet rigid bodies and hinges, a tool
// point on its last link drawing a circle with the TaskSpaceController (operational-space
// control) while the null space holds a posture, attached with the plugin.

#include <Eigen/Core>
#include <cmath>
#include <cstdio>

#include "common/progress.hpp"
#include "common/run_frames.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::demo {

/// The circle: radius 0.1 m in the vertical y-z plane at 0.5 Hz, starting where the tool point is
/// at taskSpaceStart(); the tool's orientation is held at its start orientation.
constexpr double kCircleRadius = 0.1;                  // [m]
constexpr double kCircleFrequency = 2.0 * M_PI * 0.5;  // [rad/s]

/// The tool point F: 0.1 m along the last link's z axis (lbr_iiwa_link_7).
Transform toolFrame();

/// The start configuration (and the null-space posture) [rad] (nq).
Eigen::VectorXd taskSpaceStart(const Model& iiwa);

/// What one run measured.
struct TaskSpaceResult {
  double rms_position_error = 0.0;     ///< RMS over substeps of |p_ref - p| [m]
  double max_position_error = 0.0;     ///< max |p_ref - p| [m]
  double rms_orientation_error = 0.0;  ///< RMS of |log(R_ref R^T)| [rad]
  double max_orientation_error = 0.0;  ///< max |log(R_ref R^T)| [rad]
  double max_posture_drift = 0.0;      ///< max |q_posture (-) q| over joints [rad]
  double max_joint_error = 0.0;        ///< largest pivot separation of any hinge [m]
  long errors = 0;                     ///< substeps the plugin applied nothing
  bool diverged = false;               ///< NaN or a position error above 0.1 m
};

/// Runs `steps` substeps of length h with the controller attached to a rigid-body world of the
/// iiwa that starts on the circle (pose, and the minimum-norm joint velocity giving the circle's
/// start velocity). CSV rows if given: rate_hz, t, p_ref (3), p (3) [m], orientation error [rad].
/// The run's frames go to `frames` if given (no reference: the circle is in task space).
TaskSpaceResult runTaskSpace(const Model& iiwa, double h, int steps, std::FILE* csv = nullptr,
                             const ProgressCallback& progress = {}, RunFrames* frames = nullptr);

}  // namespace gcbridge::demo
