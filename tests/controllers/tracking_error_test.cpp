// TrackingError: the RMS and largest joint error of a run, checked against the numbers written
// out by hand, against the manifold difference for a ball joint, and against a controller's own
// positionError().

#include "gcbridge/controllers/tracking_error.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

/// Two revolute joints in a chain, unit masses.
Model twoRevolutes() {
  ModelBuilder b("two");
  const Matrix3 I = 0.01 * Matrix3::Identity();
  b.addLink("a", 1.0, Vector3(0, 0, -0.5), I);
  b.addLink("b", 1.0, Vector3(0, 0, -0.5), I);
  b.addRevolute("j1", "world", "a", Transform::Identity(), Vector3::UnitY());
  b.addRevolute("j2", "a", "b", Transform(Matrix3::Identity(), Vector3(0, 0, -1)),
                Vector3::UnitY());
  return b.build();
}

// Errors (0.2, -0.1) then (0, 0.4): RMS sqrt((0.04 + 0.01 + 0 + 0.16) / 4), max 0.4; per dof
// sqrt(0.04 / 2) and sqrt(0.17 / 2); only the second dof counted: sqrt(0.17 / 2).
TEST(TrackingError, RmsAndMaxAreThoseWrittenOut) {
  const Model model = twoRevolutes();
  TrackingError error(model);
  error.add(Eigen::Vector2d(0.1, 0.1), Eigen::Vector2d(0.3, 0.0));
  error.add(Eigen::Vector2d(-1.0, 0.0), Eigen::Vector2d(-1.0, 0.4));
  EXPECT_EQ(error.samples(), 2);
  EXPECT_NEAR(error.rms(), std::sqrt(0.21 / 4), 1e-15);
  EXPECT_NEAR(error.max(), 0.4, 1e-15);
  EXPECT_TRUE(test::matricesNear(error.rmsPerDof(),
                                 Eigen::Vector2d(std::sqrt(0.02), std::sqrt(0.085)), 1e-15));
  TrackingError second(model, Eigen::Array<bool, 2, 1>(false, true));
  second.add(Eigen::Vector2d(0.1, 0.1), Eigen::Vector2d(0.3, 0.0));
  second.add(Eigen::Vector2d(-1.0, 0.0), Eigen::Vector2d(-1.0, 0.4));
  EXPECT_NEAR(second.rms(), std::sqrt(0.085), 1e-15);
  EXPECT_NEAR(second.max(), 0.4, 1e-15);
  error.reset();
  EXPECT_EQ(error.samples(), 0);
  EXPECT_EQ(error.rms(), 0.0);
  EXPECT_EQ(error.max(), 0.0);
}

// On a ball joint the error is the rotation between the two orientations: q_ref turned 0.3 rad
// from q about any axis gives |e| = 0.3, whatever the quaternions' signs.
TEST(TrackingError, BallJointErrorIsTheRotationBetween) {
  ModelBuilder b("ball");
  b.addLink("a", 1.0, Vector3(0, 0, -0.5), 0.01 * Matrix3::Identity());
  b.addBall("j", "world", "a", Transform::Identity());
  const Model model = b.build();
  const Eigen::VectorXd q = randomConfiguration(model, 3);
  const Eigen::VectorXd axis = Eigen::Vector3d(1, -2, 0.5).normalized();
  Eigen::VectorXd q_ref = integrate(model, q, 0.3 * axis, 1.0);
  q_ref = -q_ref;  // the same orientation
  TrackingError error(model);
  error.add(q, q_ref);
  // The RMS over the three dofs of one sample: |e| / sqrt(3).
  EXPECT_NEAR(std::sqrt(3.0) * error.rms(), 0.3, 1e-12);
}

// add(controller) takes the error the controller measured at its last compute().
TEST(TrackingError, TakesAControllersLastError) {
  const Model model = twoRevolutes();
  ComputedTorque controller(model, Eigen::Vector2d(400, 400), Eigen::Vector2d(40, 40));
  controller.setSetPoint(Eigen::Vector2d(0.5, -0.25));
  controller.compute(0.0, Eigen::Vector2d(0.1, 0.0), Eigen::Vector2d::Zero());
  TrackingError error(model);
  error.add(controller);
  EXPECT_NEAR(error.max(), 0.4, 1e-15);
  EXPECT_NEAR(error.rms(), std::sqrt((0.16 + 0.0625) / 2), 1e-15);
}

// Bad input: a mask or an error of the wrong size, a NaN, a non-unit quaternion; nothing added.
TEST(TrackingError, BadInputIsRefusedAndNothingAdded) {
  const Model model = twoRevolutes();
  EXPECT_THROW(TrackingError(model, Eigen::Array<bool, 3, 1>::Constant(true)),
               InvalidArgumentError);
  TrackingError error(model);
  EXPECT_THROW(error.addError(Eigen::Vector3d::Zero()), InvalidArgumentError);
  EXPECT_THROW(error.addError(Eigen::Vector2d(0.0, NAN)), InvalidArgumentError);
  EXPECT_THROW(error.add(Eigen::Vector3d::Zero(), Eigen::Vector2d::Zero()), InvalidArgumentError);
  EXPECT_EQ(error.samples(), 0);
  EXPECT_EQ(error.max(), 0.0);
}

}  // namespace
}  // namespace gcbridge
