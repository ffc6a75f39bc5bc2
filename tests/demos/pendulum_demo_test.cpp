// End to end: demos/pendulum's experiment. Computed torque on Lin's pendulum in Bullet, its
// torque checked against the analytic formula tau = (m l^2 + I_c) qdd* + m g l sin q.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "pendulum.hpp"

namespace gcbridge::demo {
namespace {

TEST(PendulumDemo, TorqueIsTheAnalyticFormula) {
  const PendulumParameters p;
  const PendulumResult r = runPendulum(p, 1.0 / 1000.0, 2000);
  ASSERT_FALSE(r.diverged);
  ASSERT_EQ(r.errors, 0);
  // RNEA on a one-link model and the formula are the same arithmetic in another order: measured
  // 1.3e-16 relative (one ulp of the largest torque, 1.6 N m). 1e-9 leaves room for any compiler
  // reordering and still fails on any modelling error: leaving out the bob's own inertia I_c
  // (4e-3 of m l^2) is off by 6e-3 relative, checked next so the comparison can tell.
  EXPECT_LT(r.max_torque_difference / r.max_torque, 1e-9);
  EXPECT_GT(r.max_difference_without_Ic / r.max_torque, 1e-3);
}

TEST(PendulumDemo, TracksTheReferenceInBullet) {
  const PendulumParameters p;
  const PendulumResult r1000 = runPendulum(p, 1.0 / 1000.0, 2000);
  const PendulumResult r240 = runPendulum(p, 1.0 / 240.0, 480);
  ASSERT_FALSE(r1000.diverged);
  ASSERT_FALSE(r240.diverged);
  // Measured over 2 s: RMS 0.34 mrad at 1 kHz, 1.41 mrad at 240 Hz (the model is exact; what is
  // left is the one-substep discretization and the hinge's compliance, so it scales with h).
  // Bounds 1.5x the measurement: a wrong sign, a missing gravity or inertia term would give
  // errors of tens of mrad and more.
  EXPECT_LT(r1000.rms_error, 0.5e-3);
  EXPECT_LT(r240.rms_error, 2.1e-3);
}

// A run reports its progress every 1 % of its substeps, in order, from 0 to just below 1; the
// same run without a callback gives the same result.
TEST(PendulumDemo, ReportsItsProgressEveryPercent) {
  const PendulumParameters p;
  std::vector<double> fractions;
  const PendulumResult watched = runPendulum(p, 1.0 / 1000.0, 2000, nullptr,
                                             [&](double f) { fractions.push_back(f); });
  ASSERT_EQ(fractions.size(), 100u);
  EXPECT_EQ(fractions.front(), 0.0);
  EXPECT_DOUBLE_EQ(fractions.back(), 0.99);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(watched.rms_error, runPendulum(p, 1.0 / 1000.0, 2000).rms_error);
}

}  // namespace
}  // namespace gcbridge::demo
