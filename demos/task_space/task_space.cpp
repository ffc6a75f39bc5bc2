#include "task_space.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <memory>

#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/controllers/task_space_controller.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::demo {

Transform toolFrame() { return Transform(Matrix3::Identity(), Vector3(0.0, 0.0, 0.1)); }

Eigen::VectorXd taskSpaceStart(const Model& iiwa) {
  Eigen::VectorXd q = neutralConfiguration(iiwa);
  q << 0.0, 0.5, 0.0, -1.4, 0.0, 1.2, 0.0;
  return q;
}

namespace {

/// The circle starting at the tool's pose at q0: centre = p0 - r u, so p(0) = p0.
std::shared_ptr<CircleTrajectory> startingCircle(const Model& iiwa, int tool_link,
                                                 const Eigen::VectorXd& q0) {
  Data data(iiwa);
  forwardKinematics(iiwa, data, q0);
  const Transform X_WF0 = framePose(iiwa, data, tool_link, toolFrame());
  const Vector3 u = Vector3::UnitY(), w = Vector3::UnitZ();
  return std::make_shared<CircleTrajectory>(X_WF0.translation() - kCircleRadius * u, kCircleRadius,
                                            u, w, kCircleFrequency, X_WF0.rotation());
}

/// Starting on the circle: the minimum-norm joint velocity v0 with J v0 = the circle's start
/// velocity (J from one call of the controller at rest).
Eigen::VectorXd startVelocity(TaskSpaceController& controller, const CircleTrajectory& circle,
                              const Eigen::VectorXd& q0) {
  TaskReference ref0;
  circle.evaluate(0.0, ref0);
  controller.compute(0.0, q0, Eigen::VectorXd::Zero(controller.model().nv));
  const Eigen::MatrixXd J = controller.jacobian();
  return J.completeOrthogonalDecomposition().solve(ref0.V_WF);
}

}  // namespace

TaskSpaceResult runTaskSpace(const Model& iiwa, double h, int steps, std::FILE* csv,
                             const ProgressCallback& progress, RunFrames* frames) {
  const int tool_link = iiwa.linkIndex("lbr_iiwa_link_7");
  const Eigen::VectorXd q0 = taskSpaceStart(iiwa);

  const auto circle = startingCircle(iiwa, tool_link, q0);

  // Task: 20 rad/s, critically damped, on all six axes. Null space: a joint PD toward q0 (torque
  // units; small enough for the light wrist at 240 Hz) plus h, so the self-motion is
  // gravity-compensated.
  TaskSpaceGains gains;
  gains.Kp = Vector6::Constant(400.0);
  gains.Kd = Vector6::Constant(40.0);
  gains.Kp_posture = Eigen::VectorXd::Constant(iiwa.nv, 10.0);
  gains.Kd_posture = Eigen::VectorXd::Constant(iiwa.nv, 1.0);
  TaskSpaceController controller(iiwa, tool_link, toolFrame(), gains);
  controller.setTrajectory(circle);
  controller.setPosture(q0);

  RigidBodyOptions world_options;
  world_options.substep = h;
  auto world = buildRigidBodyWorld(iiwa, world_options, q0, startVelocity(controller, *circle, q0));

  TaskSpaceResult result;
  double sum_p = 0.0, sum_r = 0.0;
  long samples = 0;
  PluginOptions options;
  options.diagnostics = true;
  options.log = [&](const SubstepRecord& r) {
    if (!r.error.empty() || !r.q.allFinite()) result.diverged = true;
    result.max_joint_error = std::max(result.max_joint_error, r.joint_error);
  };
  // The task error e = (log(R_ref R^T), p_ref - p) is the controller's own report, at the state
  // the plugin read at the start of each substep.
  auto plugin = attach(
      *world->world, iiwa, *world->map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        tau = controller.compute(t, q, v);
        const Vector6& e = controller.taskError();
        const double ep = e.tail<3>().norm(), er = e.head<3>().norm();
        sum_p += ep * ep;
        sum_r += er * er;
        ++samples;
        result.max_position_error = std::max(result.max_position_error, ep);
        result.max_orientation_error = std::max(result.max_orientation_error, er);
        result.max_posture_drift =
            std::max(result.max_posture_drift, difference(iiwa, q, q0).cwiseAbs().maxCoeff());
        if (ep > 0.1) result.diverged = true;
        if (csv != nullptr) {
          const Vector3& p_ref = controller.reference().X_WF.translation();
          const Vector3& p = controller.framePose().translation();
          std::fprintf(csv, "%.6g,%.6f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", 1.0 / h, t, p_ref.x(),
                       p_ref.y(), p_ref.z(), p.x(), p.y(), p.z(), er);
        }
      },
      options);
  if (frames != nullptr) {
    frames->model = iiwa;
    frames->record(0.0, *world->map);
  }
  for (int step = 0; step < steps && !result.diverged; ++step) {
    reportProgress(progress, step, steps);
    world->step();
    if (frames != nullptr && !result.diverged) frames->record((step + 1) * h, *world->map);
  }
  result.errors = plugin->errorCount();
  if (samples > 0) {
    result.rms_position_error = std::sqrt(sum_p / samples);
    result.rms_orientation_error = std::sqrt(sum_r / samples);
  }
  return result;
}

}  // namespace gcbridge::demo
