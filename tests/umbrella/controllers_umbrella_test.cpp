// gcbridge/controllers.hpp alone gives the whole library (and gcbridge/dynamics.hpp, which it
// builds on): this file includes nothing else of gcbridge and calls one function of every public
// header behind it.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <gcbridge/controllers.hpp>
#include <gcbridge/dynamics.hpp>

namespace gcbridge {
namespace {

std::string modelPath(const std::string& relative) {
  return std::string(GCBRIDGE_MODELS_DIR) + "/" + relative;
}

// The joint controllers, references, limits and errors on the KUKA iiwa.
TEST(ControllersUmbrella, JointControllers) {
  const Model model = loadUrdf(modelPath("kuka_iiwa/model.urdf"));
  const Eigen::VectorXd q = randomConfiguration(model, 1);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv);
  const Eigen::VectorXd gains = Eigen::VectorXd::Constant(model.nv, 100.0);
  auto reference = std::make_shared<Sinusoid>(  // trajectory.hpp
      model, q, Eigen::VectorXd::Constant(model.nv, 0.1), Eigen::VectorXd::Constant(model.nv, 1.0),
      Eigen::VectorXd::Zero(model.nv));
  ComputedTorque computed_torque(model, gains);  // computed_torque.hpp, controller.hpp
  computed_torque.setTrajectory(reference);
  EXPECT_TRUE(computed_torque.compute(0.5, q, v).allFinite());
  JointPD pd(model, gains, criticallyDampedKd(model, q, gains), true);  // joint_pd.hpp
  EXPECT_TRUE(pd.compute(0.0, q, v).allFinite());
  StablePD stable_pd(model, gains, gains, 1e-3);  // stable_pd.hpp
  EXPECT_TRUE(stable_pd.compute(0.0, q, v).allFinite());
  const auto by_name = makeJointController(  // joint_control_mode.hpp
      model, jointControlModeFromString("pd_gravity"), 10.0, q, 1e-3);
  EXPECT_TRUE(by_name->compute(0.0, q, v).allFinite());
  TaskSpaceController task(model, model.numLinks() - 1, Transform::Identity(),
                           TaskSpaceGains{});  // task_space_controller.hpp
  EXPECT_TRUE(task.compute(0.0, q, v).allFinite());
  TorqueLimits limits(model, Eigen::VectorXd::Constant(model.nv, 1.0));  // torque_limits.hpp
  Eigen::VectorXd tau = Eigen::VectorXd::Constant(model.nv, 2.0);
  EXPECT_EQ(limits.apply(tau), model.nv);
  TrackingError error(model);  // tracking_error.hpp
  error.add(q, neutralConfiguration(model));
  EXPECT_GT(error.rms(), 0.0);
}

// The QP, the support polygon and the floating-base controller.
TEST(ControllersUmbrella, FloatingBase) {
  QuadraticProgram qp;  // quadratic_program.hpp
  qp.H = Eigen::MatrixXd::Identity(2, 2);
  qp.g = Eigen::VectorXd::Constant(2, -1.0);
  qp.A_eq.resize(0, 2);
  qp.b_eq.resize(0);
  qp.A_in = Eigen::MatrixXd::Identity(2, 2);
  qp.b_in = Eigen::VectorXd::Constant(2, 0.5);
  const QpResult result = QpSolver().solve(qp);
  EXPECT_EQ(result.status, QpStatus::Solved) << result.message;
  SupportPolygon polygon;  // support_polygon.hpp
  polygon.fit({Vector3(0, 0, 0), Vector3(1, 0, 0), Vector3(0, 1, 0)}, Vector3::UnitZ());
  EXPECT_FALSE(polygon.empty());
  ModelOptions floating;
  floating.floating_base = true;
  const Model humanoid = loadUrdf(modelPath("humanoid_deepmimic/humanoid.urdf"), floating);
  FloatingBaseController controller(humanoid, FloatingBaseSolver::Qp);  // floating_base_controller.hpp
  EXPECT_EQ(controller.solver(), FloatingBaseSolver::Qp);
}

}  // namespace
}  // namespace gcbridge
