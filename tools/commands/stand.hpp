#pragma once
// `gcbridge stand`: what it is asked (StandRequest), what a run measures (StandResult), the
// pose on the ground and one run (stand_run.cpp), and the push sweep (stand_sweep.cpp).

#include <Eigen/Core>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/model_options.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/viewer/recorder.hpp"

namespace gcbridge::commands {

/// How the joints are driven.
enum class StandActuation { Motors, Forces, Hold };

/// What `gcbridge stand` was asked to do.
struct StandRequest : cli::ModelRequest {
  std::vector<std::pair<std::string, double>> pose;
  Vector3 root_rpy = Vector3::Zero();
  std::vector<std::string> soles;
  double seconds = 10.0;
  double dt = 1.0 / 240.0;
  int iterations = 10;
  double push = 0.0;
  StandActuation actuation = StandActuation::Motors;
  std::optional<double> contact_damping;  ///< FloatingBaseGains::contact_damping if given
  bool self_collision = true;             ///< RigidBodyOptions::self_collision
  std::string html;
  bool push_sweep = false;
};

/// A shove of the root at time t [s] that changes the whole body's COM velocity by `speed`
/// [m/s] along the horizontal direction `direction` [rad from +x, toward +y].
struct Push {
  double t = 0.0;
  double speed = 0.0;
  double direction = 0.0;
};

/// What a run measured.
struct StandResult {
  double mass = 0.0;
  double start_height = 0.0;  ///< the root's height at the start [m]
  double lowest = 0.0;        ///< largest drop below it [m]
  double highest = 0.0;       ///< largest rise above it [m]
  double tilt = 0.0;          ///< largest angle of the root's start up from the vertical [rad]
  Vector3 up_B = Vector3::UnitZ();  ///< the world's up in the root's frame at the start
  double root_force = 0.0;          ///< largest generalized force applied to the root
  std::optional<double> fell_at;
  std::string fall;
  std::vector<std::string> pose_notes;  ///< the pose check's findings
  long fallbacks = 0;                   ///< substeps with a controller fallback
  // At the start: the COM and the support polygon's corners seen from above (world x, y,
  // counter-clockwise) [m].
  Vector3 com = Vector3::Zero();
  std::vector<Eigen::Vector2d> support;
};

/// The request's pose on the ground: the neutral configuration with the pose's joints and the
/// root's orientation set, lowered until its lowest collision shape touches z = 0.
/// @throws InvalidArgumentError naming a joint the model lacks or one of several dofs, or for a
///   model without collision shapes.
Eigen::VectorXd standingPose(const Model& model, const StandRequest& request);

/// One run from q0 for `seconds` with `pushes`: a fresh world, the pose checked, the actuation
/// the request names; frames into `recorder` if not null (its track 0).
/// @throws InvalidArgumentError for a pose with no contact or a bad --soles link.
StandResult standOnce(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request,
                      const std::vector<Push>& pushes, double seconds,
                      viewer::Recorder* recorder = nullptr);

/// --push-sweep: the largest push survived in 8 directions against the capture-point bound,
/// printed as a table (or JSON).
void runPushSweep(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request);

}  // namespace gcbridge::commands
