#include "pendulum.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::demo {

Model makePendulum(const PendulumParameters& p) {
  ModelBuilder builder("pendulum");
  // The bob: centre of mass at (0, 0, -l) in the link frame, a solid sphere's inertia about it.
  LinkDescription bob;
  bob.name = "bob";
  bob.mass = p.mass;
  bob.p_LoLcm_L = Vector3(0.0, 0.0, -p.length);
  bob.I_Lcm_L = p.inertiaAboutCom() * Matrix3::Identity();
  // What the viewer draws: the sphere, and a thin rod up to the joint.
  GeometryInstance sphere, rod;
  sphere.X_LG = Transform(Matrix3::Identity(), bob.p_LoLcm_L);
  sphere.geometry.type = Geometry::Type::Sphere;
  sphere.geometry.radius = p.radius;
  sphere.rgba = Eigen::Vector4d(0.8, 0.25, 0.2, 1.0);
  rod.X_LG = Transform(Matrix3::Identity(), 0.5 * bob.p_LoLcm_L);
  rod.geometry.type = Geometry::Type::Cylinder;
  rod.geometry.radius = 0.1 * p.radius;
  rod.geometry.length = p.length;
  bob.visuals = {sphere, rod};
  builder.addLink(bob);
  // The joint at the world origin, about x: the centre of mass is at (0, l sin q, -l cos q).
  builder.addRevolute("pivot", "world", "bob", Transform::Identity(), Vector3::UnitX());
  ModelOptions options;
  options.gravity_W = Vector3(0.0, 0.0, -p.gravity);
  return builder.build(options);
}

double analyticTorque(const PendulumParameters& p, double q, double qdd) {
  const double m = p.mass, l = p.length;
  return (m * l * l + p.inertiaAboutCom()) * qdd + m * p.gravity * l * std::sin(q);
}

PendulumResult runPendulum(const PendulumParameters& p, double h, int steps, std::FILE* csv,
                           const ProgressCallback& progress, RunFrames* frames) {
  const Model model = makePendulum(p);
  auto trajectory = std::make_shared<Sinusoid>(
      model, Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, kPendulumAmplitude),
      Eigen::VectorXd::Constant(1, kPendulumFrequency), Eigen::VectorXd::Zero(1));
  JointReference start(model), ref(model);
  trajectory->evaluate(0.0, start);

  // Computed torque with a 20 rad/s closed loop, critically damped.
  ComputedTorque controller(model, Eigen::VectorXd::Constant(1, 400.0),
                            Eigen::VectorXd::Constant(1, 40.0));
  controller.setTrajectory(trajectory);

  RigidBodyOptions world_options;
  world_options.substep = h;
  auto world = buildRigidBodyWorld(model, world_options, start.q, start.v);

  PendulumResult result;
  double sum_squares = 0.0;
  long samples = 0;
  PluginOptions options;
  options.diagnostics = true;
  options.log = [&](const SubstepRecord& r) {
    if (!r.error.empty() || !r.q.allFinite()) {
      result.diverged = true;
      return;
    }
    trajectory->evaluate(r.t, ref);
    const double e = ref.q(0) - r.q(0);
    sum_squares += e * e;
    ++samples;
    result.max_error = std::max(result.max_error, std::abs(e));
    result.max_joint_error = std::max(result.max_joint_error, r.joint_error);
    if (result.max_error > 1.0) result.diverged = true;
  };
  // The controller, and the analytic formula evaluated at the same q and the same qdd* (the
  // acceleration the controller asked for).
  auto plugin = attach(
      *world->world, model, *world->map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        tau = controller.compute(t, q, v);
        const double qdd_star = controller.desiredAcceleration()(0);
        const double tau_analytic = analyticTorque(p, q(0), qdd_star);
        const double tau_seed = tau_analytic - p.inertiaAboutCom() * qdd_star;
        result.max_torque_difference =
            std::max(result.max_torque_difference, std::abs(tau(0) - tau_analytic));
        result.max_difference_without_Ic =
            std::max(result.max_difference_without_Ic, std::abs(tau(0) - tau_seed));
        result.max_torque = std::max(result.max_torque, std::abs(tau_analytic));
        if (csv != nullptr) {
          std::fprintf(csv, "%.6g,%.6f,%.9g,%.9g,%.12g,%.12g\n", 1.0 / h, t,
                       controller.reference().q(0), q(0), tau(0), tau_analytic);
        }
      },
      options);
  if (frames != nullptr) {
    frames->model = model;
    frames->record(0.0, *world->map, trajectory.get());
  }
  for (int step = 0; step < steps && !result.diverged; ++step) {
    reportProgress(progress, step, steps);
    world->step();
    if (frames != nullptr && !result.diverged) {
      frames->record((step + 1) * h, *world->map, trajectory.get());
    }
  }
  result.errors = plugin->errorCount();
  result.rms_error = samples > 0 ? std::sqrt(sum_squares / samples) : 0.0;
  return result;
}

}  // namespace gcbridge::demo
