#pragma once
// The iiwa tracking experiment of demos/iiwa_tracking, as a function the demo and the end-to-end
// test (tests/tracking_test.cpp) share: the KUKA iiwa built as Bullet rigid bodies and hinges,
// a joint-space sinusoid tracked by one of three controllers attached with the plugin.

#include <Eigen/Core>
#include <cstdio>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "common/run_frames.hpp"
#include "gcbridge/controllers/joint_control_mode.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::demo {

/// What one run measured.
struct TrackingResult {
  double rms_error = 0.0;        ///< RMS over substeps and joints of q_ref (-) q [rad]
  double max_error = 0.0;        ///< largest |q_ref (-) q| of any joint [rad]
  double max_joint_error = 0.0;  ///< largest pivot separation of any hinge [m]
  long errors = 0;               ///< substeps the plugin applied nothing (e.g. a NaN state)
  bool diverged = false;         ///< the state left the reference by more than 1 rad, or NaN
};

/// The reference: q_ref(t) = q_c (+) A sin(w t + phi) per joint (2 s covers every joint's
/// period at least once). q_c: a pose of the iiwa away from its singularities for a robot of
/// seven one-coordinate joints, the neutral configuration for any other.
Eigen::VectorXd trackingCenter(const Model& iiwa);

/// Runs `steps` substeps of length h with the controller attached to a rigid-body world of the
/// iiwa that starts on the reference. Writes one CSV row per substep to csv if given
/// (controller, rate_hz, t, the joint errors e_1..e_n [rad], pivot separation [m]), and the
/// run's frames to `frames` if given (until it diverges).
TrackingResult runTracking(const Model& iiwa, JointControlMode controller, double h, int steps,
                           std::FILE* csv = nullptr, const ProgressCallback& progress = {},
                           RunFrames* frames = nullptr);

}  // namespace gcbridge::demo
