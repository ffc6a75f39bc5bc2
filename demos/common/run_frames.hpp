#pragma once
/// @file
/// A demo's run as the viewer shows it (--html): frame k at the first substep at or after
/// k / rate_hz (so that runs with different substeps stay within a substep of each other), each
/// the links where Bullet's bodies are (readPositions' BridgeData::X_WL), the q the bridge
/// read from them and, when the run follows a joint-space trajectory, the reference. The run's
/// program turns frames into a page (run_viewer.hpp).

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::demo {

struct RunFrames {
  double rate_hz = 60.0;
  Model model;                                 ///< the run's model
  std::vector<double> times;                   ///< [s]
  std::vector<std::vector<Transform>> bodies;  ///< X_WL per link
  std::vector<Eigen::VectorXd> q;              ///< read from the bodies (nq)
  std::vector<Eigen::VectorXd> reference;      ///< q_ref (nq); empty without a trajectory

  /// Appends a frame at t when one is due (at or after the next k / rate_hz): reads the bodies of
  /// `map` (a world of `model`) and evaluates `trajectory` if given.
  void record(double t, const RigidBodyMap& map, const Trajectory* trajectory = nullptr) {
    if (t < static_cast<double>(times.size()) / rate_hz - 1e-9) return;
    if (!bdata_) bdata_.emplace(model);
    Eigen::VectorXd q_read;
    readPositions(model, map, *bdata_, q_read);
    times.push_back(t);
    bodies.push_back(bdata_->X_WL);
    q.push_back(q_read);
    if (trajectory != nullptr) {
      JointReference ref(model);
      trajectory->evaluate(t, ref);
      reference.push_back(ref.q);
    }
  }

 private:
  std::optional<BridgeData> bdata_;
};

}  // namespace gcbridge::demo
