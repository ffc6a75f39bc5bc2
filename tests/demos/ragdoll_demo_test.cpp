// End to end: demos/ragdoll's experiment. A hand-built Bullet ragdoll (model inferred from the
// world) and the DeepMimic humanoid stand on the ground while their arms wave: held by computed
// torque with the root actuated (a "hand of god" wrench on the pelvis), and with the root free,
// by the contact-aware FloatingBaseController on joint torques alone.

#include <gtest/gtest.h>

#include <utility>

#include "ragdoll.hpp"

namespace gcbridge::demo {
namespace {

constexpr double kH = 1.0 / 240.0;

RagdollOptions runOptions(RootMode root, RagdollController controller, int steps) {
  RagdollOptions options;
  options.root = root;
  options.controller = controller;
  options.h = kH;
  options.steps = steps;
  return options;
}

TEST(RagdollDemo, ActuatedRootHoldsTheHandBuiltRagdoll) {
  const RagdollResult r =
      runRagdoll(RagdollModel::HandBuilt,
                 runOptions(RootMode::Actuated, RagdollController::ComputedTorque, 480));
  ASSERT_FALSE(r.diverged) << r.failure;
  EXPECT_EQ(r.nv, 28);  // free root 6 + 7 hinges + 5 cone-twists (3 each)
  // Measured: joint RMS 0.80 mrad, max 2.7 mrad (4 s). Bounds about 3x: a wrong model read from
  // the world (a mass, a pivot, a joint axis) costs tens of mrad.
  EXPECT_LT(r.rms_joint_error, 3e-3);
  EXPECT_LT(r.max_joint_error, 1e-2);
  // The pelvis is held where it started (measured: unchanged to 1 mm).
  EXPECT_NEAR(r.pelvis_end, r.pelvis_start, 5e-3);
  // The controller's model knows no ground: its root force carries the whole weight (measured
  // mean 0.99, max 1.02 with the arms' swing).
  EXPECT_NEAR(r.mean_root_force_fraction, 1.0, 0.05);
  EXPECT_LT(r.max_constraint_error, 1e-3);  // measured 0.2 mm
}

TEST(RagdollDemo, ActuatedRootHoldsTheDeepMimicHumanoid) {
  const RagdollResult r =
      runRagdoll(RagdollModel::DeepMimic,
                 runOptions(RootMode::Actuated, RagdollController::ComputedTorque, 480));
  ASSERT_FALSE(r.diverged) << r.failure;
  EXPECT_EQ(r.nv, 34);
  // Measured: joint RMS 0.32 mrad, max 1.4 mrad. Bounds about 3x.
  EXPECT_LT(r.rms_joint_error, 1e-3);
  EXPECT_LT(r.max_joint_error, 5e-3);
  EXPECT_NEAR(r.pelvis_end, r.pelvis_start, 5e-3);
  EXPECT_NEAR(r.mean_root_force_fraction, 1.0, 0.05);
}

// Without the root wrench, joint-space computed torque cannot balance a body on contacts its
// model does not have: both fall (measured: the ragdoll below 70 % at about 1.2 s, DeepMimic at
// 0.71 s), without the simulation blowing up (the torque limits keep Bullet's state finite).
TEST(RagdollDemo, ComputedTorqueWithAFreeRootFallsButStaysFinite) {
  for (RagdollModel model : {RagdollModel::HandBuilt, RagdollModel::DeepMimic}) {
    const RagdollResult r =
        runRagdoll(model, runOptions(RootMode::Free, RagdollController::ComputedTorque, 480));
    EXPECT_FALSE(r.diverged) << toString(model) << ": " << r.failure;
    EXPECT_TRUE(r.fell) << toString(model);
    EXPECT_GT(r.upright_time, 0.3) << toString(model);  // the first instants it does stand
  }
}

// The contact-aware controller on joint torques alone: both humanoids stand 10 s (measured: the
// pelvis within 1-3 mm of its start height throughout, joint RMS 1.5 mrad for the ragdoll and
// 11 mrad for DeepMimic), no root force applied, every planned contact force inside its
// friction pyramid, the COM over the support polygon.
TEST(RagdollDemo, FloatingBaseQpStandsBothHumanoidsOnTheirJoints) {
  for (RagdollModel model : {RagdollModel::HandBuilt, RagdollModel::DeepMimic}) {
    const RagdollResult r =
        runRagdoll(model, runOptions(RootMode::Free, RagdollController::Qp, 2400));
    ASSERT_FALSE(r.diverged) << toString(model) << ": " << r.failure;
    EXPECT_FALSE(r.fell) << toString(model);
    EXPECT_NEAR(r.pelvis_end, r.pelvis_start, 0.02) << toString(model);
    EXPECT_NEAR(r.pelvis_min, r.pelvis_start, 0.02) << toString(model);
    EXPECT_LT(r.rms_joint_error, 0.05) << toString(model);
    EXPECT_EQ(r.max_root_force_applied, 0.0) << toString(model);
    EXPECT_LT(r.max_force_violation, 1e-6 * r.mass * 9.81) << toString(model);
    EXPECT_EQ(r.com_outside_max, 0.0) << toString(model);
    EXPECT_LE(r.max_torque_ratio, 1.0 + 1e-9) << toString(model);
  }
}

// A shove along the feet at t = 2 s that changes the COM velocity: both recover and keep
// standing (measured: the pelvis within 2 mm of its start height after 10 s). The pushes sit
// below each body's edge: the hand-built ragdoll stands every push up to 0.27 m/s and, above it,
// falls or stands by the round-off of the controller's sums (docs/demos.md); DeepMimic stands
// 0.6 m/s.
TEST(RagdollDemo, FloatingBaseQpRecoversBothHumanoidsFromAPush) {
  RagdollOptions options = runOptions(RootMode::Free, RagdollController::Qp, 2400);
  for (const auto& [model, speed] :
       {std::pair{RagdollModel::HandBuilt, 0.25}, std::pair{RagdollModel::DeepMimic, 0.4}}) {
    options.push_speed = speed;
    const RagdollResult r = runRagdoll(model, options);
    ASSERT_FALSE(r.diverged) << toString(model) << ": " << r.failure;
    EXPECT_FALSE(r.fell) << toString(model);
    EXPECT_NEAR(r.pelvis_end, r.pelvis_start, 0.02) << toString(model);
    EXPECT_EQ(r.max_root_force_applied, 0.0) << toString(model);
    EXPECT_LT(r.max_force_violation, 1e-6 * r.mass * 9.81) << toString(model);
  }
}

TEST(RagdollDemo, ContactAwareControllerNeedsAFreeRoot) {
  EXPECT_THROW(runRagdoll(RagdollModel::DeepMimic,
                          runOptions(RootMode::Actuated, RagdollController::Qp, 10)),
               std::invalid_argument);
}

}  // namespace
}  // namespace gcbridge::demo
