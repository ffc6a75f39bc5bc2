// The per-call path of gcbridge::controllers allocates nothing (counting_malloc.hpp): every
// controller's compute() with every kind of reference and torque limits on, every trajectory's
// evaluate(), TorqueLimits::apply() and the integrator callback.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "counting_malloc.hpp"
#include "gcbridge/controllers.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::allocationsOf;

// One trajectory of each kind on `model`.
std::vector<std::shared_ptr<const Trajectory>> trajectories(const Model& model) {
  const Eigen::VectorXd q0 = randomConfiguration(model, 1), q1 = randomConfiguration(model, 2);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(model.nv);
  std::vector<Eigen::VectorXd> samples;
  for (int k = 0; k < 10; ++k) samples.push_back(integrate(model, q0, 0.1 * k * ones, 1.0));
  auto sinusoid = std::make_shared<Sinusoid>(model, q0, 0.5 * ones, ones, ones);
  return {sinusoid, std::make_shared<FirstOrderHold>(sinusoid, 1e-3),
          std::make_shared<QuinticPointToPoint>(model, q0, q1, 1.0),
          std::make_shared<CubicSpline>(model, std::vector<double>{0.0, 0.5, 1.0},
                                        std::vector<Eigen::VectorXd>{q0, samples[3], samples[6]},
                                        SplineBoundary::Clamped),
          std::make_shared<SampledTrajectory>(model, samples, 0.1, 0.0, FiniteDifference::Central)};
}

TEST(ControllersAllocation, ComputeAndEvaluateAllocateNothing) {
  // Sanity: the counter sees allocations at all.
  EXPECT_GT(allocationsOf([] {
              Eigen::VectorXd tmp(100);
              tmp.setZero();
            }),
            0);
  ModelOptions floating;
  floating.floating_base = true;
  const std::vector<Model> models = {
      loadUrdf(test::modelPath("kuka_iiwa/model.urdf")),
      loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), floating)};
  for (const Model& model : models) {
    const Eigen::VectorXd q = randomConfiguration(model, 3), v = randomVector(model.nv, 4);
    const Eigen::VectorXd gains = Eigen::VectorXd::Constant(model.nv, 50.0);
    const TorqueLimits limits(model, Eigen::VectorXd::Constant(model.nv, 5.0));
    JointReference ref(model);
    // Trajectories, at times inside and outside their spans.
    for (const auto& traj : trajectories(model)) {
      for (double t : {-1.0, 0.05, 0.33, 0.77, 5.0}) {
        EXPECT_EQ(allocationsOf([&] { traj->evaluate(t, ref); }), 0) << model.name << " " << t;
      }
    }
    // Joint controllers, each with each trajectory and with a set-point, limits on.
    std::vector<std::unique_ptr<JointController>> controllers;
    controllers.push_back(std::make_unique<JointPD>(model, gains, gains, true));
    controllers.push_back(std::make_unique<ComputedTorque>(model, gains));
    controllers.push_back(std::make_unique<StablePD>(model, gains, gains, 1.0 / 240.0));
    for (auto& c : controllers) {
      c->setTorqueLimits(limits);
      for (const auto& traj : trajectories(model)) {
        c->setTrajectory(traj);
        c->compute(0.0, q, v);  // first call, as every later one
        EXPECT_EQ(allocationsOf([&] { c->compute(0.4, q, v); }), 0) << model.name;
      }
      c->setSetPoint(randomConfiguration(model, 5));
      EXPECT_EQ(allocationsOf([&] { c->compute(0.4, q, v); }), 0) << model.name;
      EXPECT_GT(c->numSaturated(), 0);  // the saturation path ran
    }
    // Task space, with a circle, posture gains, damping and limits.
    TaskSpaceGains task_gains;
    task_gains.Kp_posture = gains;
    task_gains.Kd_posture = gains;
    task_gains.damping = 1e-3;
    TaskSpaceController task(model, model.numLinks() - 1,
                             Transform(Matrix3::Identity(), Vector3(0, 0, 0.1)), task_gains);
    task.setTrajectory(std::make_shared<CircleTrajectory>(
        Vector3(0.5, 0, 0.5), 0.1, Vector3::UnitX(), Vector3::UnitY(), 1.0, Matrix3::Identity()));
    task.setTorqueLimits(limits);
    task.compute(0.0, q, v);
    EXPECT_EQ(allocationsOf([&] { task.compute(0.3, q, v); }), 0) << model.name;
    // The integrator callback and a limits application on their own.
    const TorqueFunction f = asTorqueFunction(*controllers[1]);
    Eigen::VectorXd tau(model.nv);
    EXPECT_EQ(allocationsOf([&] { f(0.2, q, v, tau); }), 0);
    TorqueLimits own = limits;
    EXPECT_EQ(allocationsOf([&] { own.apply(tau); }), 0);
  }
}

// The floating-base controller with the QP solver on the humanoid standing on its soles' 8
// corners, after one call with as many contacts: status ok (the QP's warm start is its active
// set), torque limited (the QP with the limits, its message), the target moved (one foot's
// corners under a reference that stands on two: its message), and with a frame task.
TEST(ControllersAllocation, FloatingBaseQpAllocatesNothing) {
  const test::StandingHumanoid standing(0.25);
  const Model& model = standing.model;
  const Eigen::VectorXd& q = standing.q;
  const std::vector<ContactPoint>& soles = standing.soles;
  Data data(model);
  const std::vector<ContactPoint> left_sole(soles.begin(), soles.begin() + 4);
  const auto expectNone = [&](FloatingBaseController& c, const std::vector<ContactPoint>& contacts,
                              FloatingBaseStatus status) {
    c.setSetPoint(q);
    c.setContacts(contacts);
    for (int seed = 0; seed < 5; ++seed) {
      const Eigen::VectorXd v = randomVector(model.nv, seed, 0.05);
      if (seed == 0) c.compute(0.0, q, v);
      EXPECT_EQ(allocationsOf([&] { c.compute(0.01 * seed, q, v); }), 0) << toString(status);
      EXPECT_EQ(c.status(), status) << "seed " << seed << ": " << c.message();
    }
  };
  FloatingBaseController ok(model, FloatingBaseSolver::Qp);
  expectNone(ok, soles, FloatingBaseStatus::Ok);
  FloatingBaseController limited(model, FloatingBaseSolver::Qp);
  limited.setTorqueLimits(TorqueLimits(model, Eigen::VectorXd::Constant(model.nv, 5.0)));
  expectNone(limited, soles, FloatingBaseStatus::TorqueLimited);
  FloatingBaseController moved(model, FloatingBaseSolver::Qp);
  expectNone(moved, left_sole, FloatingBaseStatus::TargetMoved);
  FloatingBaseController hand(model, FloatingBaseSolver::Qp);
  const int elbow = model.linkIndex("right_elbow");
  const Transform X_BF(Matrix3::Identity(), Vector3(0.0, -0.5, 0.0));
  const int task = hand.addFrameTask(elbow, X_BF, 10.0, 100.0, 20.0);
  forwardKinematics(model, data, q);
  TaskReference reference;
  reference.X_WF = framePose(model, data, elbow, X_BF);
  hand.setFrameTarget(task, reference);
  expectNone(hand, soles, FloatingBaseStatus::Ok);
}

}  // namespace
}  // namespace gcbridge
