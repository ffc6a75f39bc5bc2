// The KUKA iiwa simulated by Bullet (a btRigidBody per link, a hinge per joint), tracking joint
// sinusoids with gcbridge's computed-torque controller; prints the tracking error.
#include <cstdio>
#include <exception>
#include <gcbridge/bridge/rigid_body_world.hpp>
#include <gcbridge/controllers.hpp>
#include <gcbridge/dynamics.hpp>
#include <gcbridge/plugin/plugin.hpp>
#include <memory>

int main(int argc, char** argv) try {
  if (argc != 2) return std::fprintf(stderr, "usage: quickstart MODEL.urdf\n"), 2;
  const gcbridge::Model robot = gcbridge::loadUrdf(argv[1]);
  const int n = robot.nv;

  // The reference: 0.3 rad sinusoids at 0.5 Hz about the neutral pose; start on it.
  auto wave = std::make_shared<gcbridge::Sinusoid>(
      robot, gcbridge::neutralConfiguration(robot), Eigen::VectorXd::Constant(n, 0.3),
      Eigen::VectorXd::Constant(n, M_PI), Eigen::VectorXd::Zero(n));
  gcbridge::JointReference start(robot);
  wave->evaluate(0.0, start);
  auto bullet = gcbridge::buildRigidBodyWorld(robot, {}, start.q, start.v);  // 1/240 s substeps

  // Computed torque (K = 400, D = 40) runs every substep through the plugin.
  gcbridge::ComputedTorque controller(robot, Eigen::VectorXd::Constant(n, 400.0),
                                      Eigen::VectorXd::Constant(n, 40.0));
  controller.setTrajectory(wave);
  auto plugin = gcbridge::attach(*bullet->world, robot, *bullet->map, controller);

  gcbridge::TrackingError error(robot);
  for (int i = 0; i < 480; ++i) {  // 2 s
    bullet->step();
    error.add(controller);
  }
  std::printf("%s: %d joints, 2 s in Bullet, tracking error RMS %.3f mrad, max %.3f mrad\n",
              robot.name.c_str(), n, 1e3 * error.rms(), 1e3 * error.max());
} catch (const std::exception& e) {  // a file that cannot be read, a model Bullet cannot build
  std::fprintf(stderr, "quickstart: %s\n", e.what());
  return 1;
}
