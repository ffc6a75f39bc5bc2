#include "gcbridge/viewer/recorder.hpp"

#include <cmath>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

namespace gcbridge::viewer {

Recorder::Recorder(const Model& model, double rate_hz)
    : model_(&model), rate_hz_(rate_hz), data_(model) {
  if (!(rate_hz > 0.0) || !std::isfinite(rate_hz)) {
    throw InvalidArgumentError("Recorder: the frame rate must be positive and finite, got " +
                               std::to_string(rate_hz) + " Hz");
  }
}

int Recorder::addTrack(const std::string& name, TrackStyle style) {
  if (!times_.empty()) {
    throw InvalidArgumentError("Recorder: track '" + name + "' added after the first frame");
  }
  if (name.empty()) throw InvalidArgumentError("Recorder: a track needs a name");
  tracks_.push_back(Track{name, style, {}});
  return static_cast<int>(tracks_.size()) - 1;
}

bool Recorder::due(double t) const {
  return times_.empty() || t >= times_.back() + 1.0 / rate_hz_ - 1e-9;
}

void Recorder::beginFrame(double t) {
  if (!std::isfinite(t) || (!times_.empty() && !(t > times_.back()))) {
    throw InvalidArgumentError("Recorder: frame time " + std::to_string(t) +
                               " s is not finite or not after the last frame's");
  }
  if (times_.empty()) {
    forwardKinematics(*model_, data_, neutralConfiguration(*model_));
    for (Track& track : tracks_) track.frames.push_back(data_.X_WB);
  } else {
    for (Track& track : tracks_) track.frames.push_back(track.frames.back());
  }
  times_.push_back(t);
}

Track& Recorder::currentTrack(int track, const char* what) {
  if (track < 0 || track >= static_cast<int>(tracks_.size())) {
    throw InvalidArgumentError(std::string("Recorder::") + what + ": no track " +
                               std::to_string(track));
  }
  if (times_.empty()) {
    throw InvalidArgumentError(std::string("Recorder::") + what + ": no frame begun (beginFrame)");
  }
  return tracks_[track];
}

void Recorder::setConfiguration(int track, const Eigen::VectorXd& q) {
  Track& target = currentTrack(track, "setConfiguration");
  validateConfiguration(*model_, q);
  forwardKinematics(*model_, data_, q);
  target.frames.back() = data_.X_WB;
}

void Recorder::setLinkPoses(int track, const std::vector<Transform>& X_WL) {
  Track& target = currentTrack(track, "setLinkPoses");
  if (static_cast<int>(X_WL.size()) != model_->numLinks()) {
    throw InvalidArgumentError("Recorder::setLinkPoses: " + std::to_string(X_WL.size()) +
                               " poses for " + std::to_string(model_->numLinks()) + " links");
  }
  for (const Transform& X : X_WL) {
    if (!X.rotation().allFinite() || !X.translation().allFinite()) {
      throw InvalidArgumentError("Recorder::setLinkPoses: a pose is not finite");
    }
  }
  target.frames.back() = X_WL;
}

}  // namespace gcbridge::viewer
