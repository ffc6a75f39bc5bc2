// Spatial algebra against explicit 6x6 matrices built as in Featherstone's spatial_v2 (its
// table), and the invariance of power under change of coordinates.

#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "gcbridge/dynamics/spatial.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// spatial_v2 oracles: Plücker transforms "from A to B coordinates".
// rot(E): B's axes are A's rotated so that Cartesian coordinates map as u_B = E u_A.
Matrix6 rot(const Matrix3& E) {
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = E;
  X.bottomRightCorner<3, 3>() = E;
  return X;
}
// xlt(r): B's origin is at r (in A coordinates), axes parallel.
Matrix6 xlt(const Vector3& r) {
  Matrix6 X = Matrix6::Identity();
  X.bottomLeftCorner<3, 3>() = -skew(r);
  return X;
}
// mcI(m, c, Ic): spatial inertia from mass, COM and inertia about the COM.
Matrix6 mcI(double m, const Vector3& c, const Matrix3& Ic) {
  Matrix6 I;
  const Matrix3 C = skew(c);
  I << Ic + m * C * C.transpose(), m * C, m * C.transpose(), m * Matrix3::Identity();
  return I;
}

class SpatialTest : public ::testing::Test {
 protected:
  std::mt19937_64 gen{20261121};
  Vector6 vec6() {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Vector6 v;
    for (int i = 0; i < 6; ++i) v[i] = u(gen);
    return v;
  }
  Vector3 vec3() { return vec6().head<3>(); }
  Inertia inertia() {
    double mass;
    Vector3 c;
    Matrix3 Ic;
    test::randomInertia(gen, mass, c, Ic);
    return Inertia(mass, c, Ic);
  }
  Transform transform() { return Transform(test::randomRotation(gen), vec3()); }
};

TEST_F(SpatialTest, TransformMatrixEqualsFeatherstoneComposition) {
  for (int trial = 0; trial < 20; ++trial) {
    const Transform X_AB = transform();
    // spatial_v2: the transform from A to B coordinates is rot(R_AB^T) * xlt(p_AoBo_A); X_AB maps
    // B coordinates to A, so it is the inverse.
    const Matrix6 BX_A = rot(X_AB.rotation().transpose()) * xlt(X_AB.translation());
    EXPECT_TRUE(matricesNear(X_AB.toMatrix(), BX_A.inverse(), 1e-12));
    EXPECT_TRUE(matricesNear(X_AB.inverse().toMatrix(), BX_A, 1e-12));
    // Force transform is X^-T.
    EXPECT_TRUE(matricesNear(X_AB.toForceMatrix(), X_AB.toMatrix().inverse().transpose(), 1e-12));
  }
}

TEST_F(SpatialTest, MotionAndForceRulesMatchMatrices) {
  for (int trial = 0; trial < 20; ++trial) {
    const Transform X = transform();
    const Motion m(vec6());
    const Force f(vec6());
    const Matrix6 Xm = X.toMatrix();
    EXPECT_TRUE(matricesNear(X.act(m).vector(), Xm * m.vector(), 1e-12));
    EXPECT_TRUE(matricesNear(X.actInv(m).vector(), Xm.inverse() * m.vector(), 1e-12));
    EXPECT_TRUE(matricesNear(X.act(f).vector(), Xm.inverse().transpose() * f.vector(), 1e-12));
    EXPECT_TRUE(matricesNear(X.actInv(f).vector(), Xm.transpose() * f.vector(), 1e-12));
    // The half-by-half forms give the same numbers.
    Motion m_B(vec6());
    X.actInv(m, m_B);
    EXPECT_TRUE(matricesNear(m_B.vector(), X.actInv(m).vector(), 0.0));
    const Force f_A0(vec6());
    Force f_A = f_A0;
    X.addAct(f, f_A);
    EXPECT_TRUE(matricesNear(f_A.vector(), (f_A0 + X.act(f)).vector(), 1e-15));
  }
}

TEST_F(SpatialTest, CompositionAndInverse) {
  const Transform X_AB = transform(), X_BC = transform();
  EXPECT_TRUE(matricesNear((X_AB * X_BC).toMatrix(), X_AB.toMatrix() * X_BC.toMatrix(), 1e-12));
  EXPECT_TRUE((X_AB * X_AB.inverse()).isApprox(Transform::Identity(), 1e-14));
  const Vector3 p_C = vec3();
  EXPECT_TRUE(matricesNear((X_AB * X_BC).actPoint(p_C), X_AB.actPoint(X_BC.actPoint(p_C)), 1e-14));
  EXPECT_TRUE(matricesNear(X_AB.actInvPoint(X_AB.actPoint(p_C)), p_C, 1e-14));
  EXPECT_TRUE(matricesNear(
      X_AB.toHomogeneous() * Eigen::Vector4d(p_C.x(), p_C.y(), p_C.z(), 1.0),
      Eigen::Vector4d(X_AB.actPoint(p_C).x(), X_AB.actPoint(p_C).y(), X_AB.actPoint(p_C).z(), 1.0),
      1e-14));
}

TEST_F(SpatialTest, PowerIsInvariantUnderAnyTransform) {
  for (int trial = 0; trial < 20; ++trial) {
    const Transform X = transform();
    const Motion m(vec6());
    const Force f(vec6());
    EXPECT_NEAR(X.act(f).dot(X.act(m)), f.dot(m), 1e-13);
    EXPECT_NEAR(X.actInv(f).dot(X.actInv(m)), f.dot(m), 1e-13);
  }
}

TEST_F(SpatialTest, CrossProductsMatchCrmCrfAndTransformRules) {
  for (int trial = 0; trial < 20; ++trial) {
    const Motion v(vec6()), m(vec6());
    const Force f(vec6());
    EXPECT_TRUE(matricesNear(v.cross(m).vector(), crm(v) * m.vector(), 1e-14));
    EXPECT_TRUE(matricesNear(v.cross(f).vector(), crf(v) * f.vector(), 1e-14));
    EXPECT_TRUE(matricesNear(crf(v), -crm(v).transpose(), 0.0));
    // Featherstone's table: crm transforms as X crm(v) X^-1, crf as X^-T crf(v) X^T.
    const Transform X = transform();
    const Matrix6 Xm = X.toMatrix();
    EXPECT_TRUE(matricesNear(crm(X.act(v)), Xm * crm(v) * Xm.inverse(), 1e-12));
    EXPECT_TRUE(
        matricesNear(crf(X.act(v)), Xm.inverse().transpose() * crf(v) * Xm.transpose(), 1e-12));
    // v x v = 0, and the power of v x* f against v vanishes.
    EXPECT_TRUE(matricesNear(v.cross(v).vector(), Vector6::Zero(), 0.0));
    EXPECT_NEAR(v.cross(f).dot(v), 0.0, 1e-14);
  }
}

TEST_F(SpatialTest, InertiaMatchesMcIAndTransformsAsMotionToForce) {
  for (int trial = 0; trial < 20; ++trial) {
    double mass;
    Vector3 c;
    Matrix3 Ic;
    test::randomInertia(gen, mass, c, Ic);
    const Inertia I_B(mass, c, Ic);
    EXPECT_TRUE(matricesNear(I_B.toMatrix(), mcI(mass, c, Ic), 1e-13));
    const Motion v(vec6());
    EXPECT_TRUE(matricesNear((I_B * v).vector(), I_B.toMatrix() * v.vector(), 1e-13));
    EXPECT_GT(v.vector().dot(I_B.toMatrix() * v.vector()), 0.0);
    // I_A = X^-T I_B X^-1.
    const Transform X_AB = transform();
    const Matrix6 Xm = X_AB.toMatrix();
    EXPECT_TRUE(matricesNear(I_B.transformedBy(X_AB).toMatrix(),
                             Xm.inverse().transpose() * I_B.toMatrix() * Xm.inverse(), 1e-12));
    // The momentum rule commutes with transforms: X.act(I v) = I_A X.act(v).
    EXPECT_TRUE(matricesNear(X_AB.act(I_B * v).vector(),
                             (I_B.transformedBy(X_AB) * X_AB.act(v)).vector(), 1e-12));
  }
}

TEST_F(SpatialTest, InertiaSumIsExact) {
  const Inertia a = inertia(), b = inertia();
  EXPECT_TRUE(matricesNear((a + b).toMatrix(), a.toMatrix() + b.toMatrix(), 1e-13));
  EXPECT_TRUE(matricesNear((a + Inertia::Zero()).toMatrix(), a.toMatrix(), 0.0));
  // Two point masses of 1 kg at +-x: inertia about the middle is diag(0, 2, 2).
  const Inertia p1(1.0, Vector3(1, 0, 0), Matrix3::Zero()),
      p2(1.0, Vector3(-1, 0, 0), Matrix3::Zero());
  const Inertia sum = p1 + p2;
  EXPECT_DOUBLE_EQ(sum.mass(), 2.0);
  EXPECT_TRUE(matricesNear(sum.com(), Vector3::Zero(), 0.0));
  EXPECT_TRUE(
      matricesNear(sum.inertiaAboutCom(), Vector3(0, 2, 2).asDiagonal().toDenseMatrix(), 1e-15));
}

TEST_F(SpatialTest, InertiaMomentsMatchInertiaUnderSumsAndTransforms) {
  for (int trial = 0; trial < 20; ++trial) {
    const Inertia a = inertia(), b = inertia();
    const InertiaMoments ma(a);
    EXPECT_TRUE(matricesNear(ma.toMatrix(), a.toMatrix(), 1e-14));
    const Motion v(vec6());
    EXPECT_TRUE(matricesNear((ma * v).vector(), a.toMatrix() * v.vector(), 1e-13));
    // b_A + X^-T a_B X^-1, against the 6x6 congruence and against Inertia's own rules.
    const Transform X_AB = transform();
    const Matrix6 Xinv = X_AB.toMatrix().inverse();
    InertiaMoments sum(b);
    ma.addTransformedTo(X_AB, sum);
    EXPECT_TRUE(matricesNear(sum.toMatrix(),
                             b.toMatrix() + Xinv.transpose() * a.toMatrix() * Xinv, 1e-12));
    const Inertia expected = b + a.transformedBy(X_AB);
    const Inertia back = sum.toInertia();
    EXPECT_NEAR(back.mass(), expected.mass(), 1e-14);
    EXPECT_TRUE(matricesNear(back.com(), expected.com(), 1e-13));
    EXPECT_TRUE(matricesNear(back.inertiaAboutCom(), expected.inertiaAboutCom(), 1e-12));
  }
  const InertiaMoments zero;
  EXPECT_TRUE(matricesNear(zero.toInertia().toMatrix(), Matrix6::Zero(), 0.0));
}

TEST(Spatial, SinCosMatchesTheLibrarySinAndCos) {
  // Random angles over the whole fast range, near every quadrant boundary and multiples of pi/2,
  // and the fallback beyond it. The library's sin and cos are correctly rounded to within 1 ulp.
  std::mt19937_64 gen(20261122);
  std::vector<double> xs = {0.0, -0.0, 1e-300, M_PI / 4, -M_PI / 4, M_PI / 2, M_PI, -M_PI,
                            1e5, -1e5, 1e5 + 1.0, 1e9, -3e12};
  std::uniform_real_distribution<double> wide(-1e5, 1e5), narrow(-10.0, 10.0),
      nudge(-1e-6, 1e-6);
  for (int i = 0; i < 100000; ++i) xs.push_back(i % 2 ? wide(gen) : narrow(gen));
  for (int k = -200; k <= 200; ++k) {
    xs.push_back(k * M_PI / 4 + nudge(gen));
    xs.push_back(k * M_PI / 2);
  }
  double worst = 0.0;
  for (double x : xs) {
    double s, c;
    detail::sinCos(x, s, c);
    worst = std::max({worst, std::abs(s - std::sin(x)), std::abs(c - std::cos(x))});
  }
  EXPECT_LE(worst, 3e-16) << "measured 2.2e-16 (one ulp of 1)";
  double s, c;
  detail::sinCos(std::numeric_limits<double>::quiet_NaN(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

TEST(Spatial, ArcTan2MatchesTheLibraryAtan2) {
  // Unit-ish vectors at random angles (as joint angles are read), the same scaled by 1e-9, wide
  // ranges of |x| and |y|, the octant boundaries and the table's nodes; the library's atan2 is
  // correctly rounded. Measured: 2 ulp at most.
  std::mt19937_64 gen(20261122);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI), scale(0.5, 1.5), exponent(-60.0, 60.0);
  std::vector<std::pair<double, double>> yx;
  for (int i = 0; i < 100000; ++i) {
    const double t = angle(gen), r = scale(gen);
    yx.emplace_back(r * std::sin(t), r * std::cos(t));
    yx.emplace_back(1e-9 * r * std::sin(t), 1e-9 * r * std::cos(t));
    yx.emplace_back((i % 2 ? 1.0 : -1.0) * std::exp(exponent(gen)),
                    (i % 3 ? 1.0 : -1.0) * std::exp(exponent(gen)));
  }
  for (int i = 0; i <= 32; ++i) {
    for (double sx : {1.0, -1.0}) {
      for (double sy : {1.0, -1.0}) {
        yx.emplace_back(sy * i / 32.0, sx * 1.0);
        yx.emplace_back(sy * 1.0, sx * i / 32.0);
        yx.emplace_back(sy * (i + 0.5) / 32.0, sx * 1.0);
      }
    }
  }
  double worst_ulps = 0.0;
  for (const auto& [y, x] : yx) {
    const double expected = std::atan2(y, x);
    const double ulp = std::nextafter(std::abs(expected), 4.0) - std::abs(expected);
    worst_ulps = std::max(worst_ulps, std::abs(detail::arcTan2(y, x) - expected) / ulp);
  }
  EXPECT_LE(worst_ulps, 2.0);
  // Zeros, infinities, NaN and out-of-range magnitudes: the library's values and signs (a zero
  // beside a finite partner is computed, the rest goes to std::atan2).
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& [y, x] : std::vector<std::pair<double, double>>{
           {0.0, 1.0}, {-0.0, 1.0}, {0.0, -1.0}, {-0.0, -1.0}, {1.0, 0.0}, {-1.0, -0.0},
           {0.0, 0.0}, {-0.0, -0.0}, {inf, 1.0}, {1.0, -inf}, {1e-300, 1.0}, {1e300, -1.0}}) {
    EXPECT_EQ(detail::arcTan2(y, x), std::atan2(y, x)) << y << ", " << x;
    EXPECT_EQ(std::signbit(detail::arcTan2(y, x)), std::signbit(std::atan2(y, x))) << y << ", " << x;
  }
  EXPECT_TRUE(std::isnan(detail::arcTan2(std::numeric_limits<double>::quiet_NaN(), 1.0)));
  EXPECT_TRUE(std::isnan(detail::arcTan2(1.0, std::numeric_limits<double>::quiet_NaN())));
}

TEST(Spatial, RpyFollowsUrdfConvention) {
  // URDF: rpy = fixed-axis roll about x, then pitch about y, then yaw about z: R = Rz Ry Rx.
  const Vector3 rpy(0.3, -0.2, 1.1);
  const Matrix3 R = rotationFromRpy(rpy);
  const Matrix3 expected = rotationAboutAxis(Vector3::UnitZ(), 1.1) *
                           rotationAboutAxis(Vector3::UnitY(), -0.2) *
                           rotationAboutAxis(Vector3::UnitX(), 0.3);
  EXPECT_TRUE(matricesNear(R, expected, 1e-15));
  // A rotation of pi/2 about z maps x to y.
  EXPECT_TRUE(matricesNear(rotationFromRpy(Vector3(0, 0, M_PI / 2)) * Vector3::UnitX(),
                           Vector3::UnitY(), 1e-15));
}

}  // namespace
}  // namespace gcbridge
