#include "tracking.hpp"

#include <cmath>
#include <memory>

#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::demo {

namespace {

/// Closed-loop natural frequency of the joint controllers [rad/s]: K = w^2, D = 2 w.
constexpr double kOmega = 20.0;

}  // namespace

Eigen::VectorXd trackingCenter(const Model& iiwa) {
  Eigen::VectorXd q = neutralConfiguration(iiwa);
  if (iiwa.nq == 7 && iiwa.nv == 7) q << 0.2, 0.6, -0.3, -1.2, 0.4, 0.8, 0.0;
  return q;
}

namespace {

/// The reference: 0.3 rad sinusoids at 0.5 - 1.1 Hz about trackingCenter, a phase per joint.
std::shared_ptr<Sinusoid> trackingReference(const Model& iiwa) {
  const int nv = iiwa.nv;
  const Eigen::VectorXd amplitude = Eigen::VectorXd::Constant(nv, 0.3);
  Eigen::VectorXd frequency(nv), phase(nv);
  for (int i = 0; i < nv; ++i) {
    frequency(i) = 2.0 * M_PI * (0.5 + 0.1 * i);
    phase(i) = 0.7 * i;
  }
  return std::make_shared<Sinusoid>(iiwa, trackingCenter(iiwa), amplitude, frequency, phase);
}

}  // namespace

TrackingResult runTracking(const Model& iiwa, JointControlMode which, double h, int steps,
                           std::FILE* csv, const ProgressCallback& progress,
                           RunFrames* frames) {
  const int nv = iiwa.nv;
  const auto trajectory = trackingReference(iiwa);
  JointReference start(iiwa);
  trajectory->evaluate(0.0, start);

  // The controller, aiming at the closed-loop natural frequency kOmega (PD gains scaled by
  // diag M at the centre).
  std::unique_ptr<JointController> controller =
      makeJointController(iiwa, which, kOmega, trackingCenter(iiwa), h);
  controller->setTrajectory(trajectory);

  // The world, on the reference at t = 0, and the plugin.
  RigidBodyOptions world_options;
  world_options.substep = h;
  auto world = buildRigidBodyWorld(iiwa, world_options, start.q, start.v);
  TrackingResult result;
  double sum_squares = 0.0;
  long samples = 0;
  JointReference ref(iiwa);
  PluginOptions options;
  options.diagnostics = true;
  options.log = [&](const SubstepRecord& r) {
    if (!r.error.empty() || !r.q.allFinite()) {
      result.diverged = true;
      return;
    }
    trajectory->evaluate(r.t, ref);
    const Eigen::VectorXd e = difference(iiwa, r.q, ref.q);
    sum_squares += e.squaredNorm();
    samples += nv;
    result.max_error = std::max(result.max_error, e.cwiseAbs().maxCoeff());
    result.max_joint_error = std::max(result.max_joint_error, r.joint_error);
    if (result.max_error > 1.0) result.diverged = true;
    if (csv != nullptr) {
      std::fprintf(csv, "%s,%.6g,%.6f", toString(which), 1.0 / h, r.t);
      for (int i = 0; i < nv; ++i) std::fprintf(csv, ",%.9g", e(i));
      std::fprintf(csv, ",%.9g\n", r.joint_error);
    }
  };
  auto plugin = attach(
      *world->world, iiwa, *world->map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        tau = controller->compute(t, q, v);
      },
      options);
  // The viewer's frames: the bodies where Bullet has them, and the reference.
  if (frames != nullptr) frames->model = iiwa;
  const auto record = [&](double t) {
    if (frames != nullptr && !result.diverged) frames->record(t, *world->map, trajectory.get());
  };
  record(0.0);
  for (int step = 0; step < steps && !result.diverged; ++step) {
    reportProgress(progress, step, steps);
    world->step();
    record((step + 1) * h);
  }
  result.errors = plugin->errorCount();
  result.rms_error = samples > 0 ? std::sqrt(sum_squares / samples) : 0.0;
  return result;
}

}  // namespace gcbridge::demo
