#pragma once
/// @file
/// Recording a run for the viewer: frames at a fixed rate (60 per second by default, whatever
/// the substep), each holding every track's link poses. A track is the model posed at a q (the
/// bridge's reading, a reference, an integrator's state) or the links where a simulator has them
/// (Bullet's bodies, which may have come apart at the joints).
///
///   gcbridge::viewer::Recorder recorder(model);
///   const int bodies = recorder.addTrack("Bullet bodies", TrackStyle::Solid);
///   const int model_q = recorder.addTrack("model at q", TrackStyle::Ghost);
///   ... every substep:
///   if (recorder.due(t)) {
///     recorder.beginFrame(t);
///     recorder.setLinkPoses(bodies, X_WL);  // e.g. gcbridge::linkPosesOfBodies(model, map)
///     recorder.setConfiguration(model_q, q);
///   }
///   gcbridge::viewer::writeViewer("run.html", recorder);

#include <Eigen/Core>
#include <string>
#include <vector>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::viewer {

/// How a track is drawn: solid bodies, or a translucent ghost of the model.
enum class TrackStyle { Solid, Ghost };

/// One track: its link poses X_WL per frame (model.numLinks() each).
struct Track {
  std::string name;
  TrackStyle style = TrackStyle::Solid;
  std::vector<std::vector<Transform>> frames;
};

class Recorder {
 public:
  /// Frames of `model` at `rate_hz` (> 0). The model must outlive the recorder.
  /// @throws InvalidArgumentError for a rate that is not positive and finite.
  explicit Recorder(const Model& model, double rate_hz = 60.0);

  /// Adds a track, before the first frame. @return its index.
  /// @throws InvalidArgumentError after the first frame, or for an empty name.
  int addTrack(const std::string& name, TrackStyle style);

  /// Whether a frame is due at time t [s]: the first time, then once 1/rate has passed since the
  /// last frame's time (to 1e-9 s, so a substep that divides the period is not skipped by
  /// round-off).
  bool due(double t) const;
  /// Starts a frame at t; each track starts it at its last frame's poses (the model's neutral
  /// configuration in the first frame) until set. Costs nothing but a copy of the poses.
  /// @throws InvalidArgumentError for a t that is not finite or not after the last frame's.
  void beginFrame(double t);
  /// The current frame's poses of `track`: the model posed at q (forward kinematics).
  /// @throws InvalidArgumentError for a bad track, no frame begun, or a bad q (nothing changed).
  void setConfiguration(int track, const Eigen::VectorXd& q);
  /// The current frame's poses of `track`: the links' world poses X_WL as given (numLinks()).
  /// @throws InvalidArgumentError for a bad track, no frame begun, a wrong size or a non-finite
  ///   pose (nothing changed).
  void setLinkPoses(int track, const std::vector<Transform>& X_WL);

  const Model& model() const { return *model_; }
  double rate() const { return rate_hz_; }
  /// The frames' times [s].
  const std::vector<double>& times() const { return times_; }
  const std::vector<Track>& tracks() const { return tracks_; }

 private:
  /// @throws InvalidArgumentError naming `what` for a bad track or no frame begun.
  Track& currentTrack(int track, const char* what);

  const Model* model_;
  double rate_hz_;
  std::vector<double> times_;
  std::vector<Track> tracks_;
  Data data_;
};

}  // namespace gcbridge::viewer
