#pragma once
// Shared test helpers: matrix comparison that reports the worst entry, mass-matrix solves checked
// by their backward and forward errors, seeded random models.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"

namespace gcbridge::test {

/// Compares two matrices entry by entry with |a - b| <= tol * max(1, |b|) and reports the worst
/// entry on failure (relative tolerance with an absolute floor of tol).
template <typename A, typename B>
::testing::AssertionResult matricesNear(const Eigen::MatrixBase<A>& actual,
                                        const Eigen::MatrixBase<B>& expected, double tol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    return ::testing::AssertionFailure() << "size " << actual.rows() << "x" << actual.cols()
                                         << " != " << expected.rows() << "x" << expected.cols();
  }
  double worst = 0.0;
  Eigen::Index wi = 0, wj = 0;
  for (Eigen::Index j = 0; j < actual.cols(); ++j) {
    for (Eigen::Index i = 0; i < actual.rows(); ++i) {
      const double a = actual(i, j), b = expected(i, j);
      const double err = std::isfinite(a) ? std::abs(a - b) / std::max(1.0, std::abs(b))
                                          : std::numeric_limits<double>::infinity();
      if (!(err <= worst)) {
        worst = err;
        wi = i;
        wj = j;
      }
    }
  }
  if (worst <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "worst entry (" << wi << ", " << wj << "): " << actual(wi, wj) << " vs "
         << expected(wi, wj) << ", scaled error " << worst << " > " << tol;
}

/// The condition number of a symmetric positive definite matrix (its eigenvalues' ratio).
inline double conditionNumber(const Eigen::MatrixXd& M) {
  const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues();
  return eig.maxCoeff() / eig.minCoeff();
}

/// Whether x solves M x = rhs for a mass matrix M. Checked by the normwise backward error
/// |M x - rhs| / (|M| |x| + |rhs|), which a stable method keeps near machine precision whatever
/// the conditioning, and by the forward error against a dense solve, whose tolerance is scaled by
/// the condition number of M (Euler-angle joints near gimbal lock reach 1e8).
inline ::testing::AssertionResult solvesMassMatrixSystem(const Eigen::MatrixXd& M,
                                                         const Eigen::VectorXd& x,
                                                         const Eigen::VectorXd& rhs) {
  const double backward = (M * x - rhs).norm() / (M.norm() * x.norm() + rhs.norm());
  if (!(backward < 1e-14)) {
    return ::testing::AssertionFailure() << "backward error " << backward << " >= 1e-14";
  }
  const double condition = conditionNumber(M);
  return matricesNear(x, Eigen::VectorXd(M.ldlt().solve(rhs)), std::max(1e-12, 1e-15 * condition))
         << " (condition number " << condition << ")";
}

/// Path of a shipped model file, e.g. model("kuka_iiwa/model.urdf").
inline std::string modelPath(const std::string& relative) {
  return std::string(GCBRIDGE_MODELS_DIR) + "/" + relative;
}

/// Path of a test data file, e.g. dataPath("urdf/loop.urdf").
inline std::string dataPath(const std::string& relative) {
  return std::string(GCBRIDGE_TEST_DATA_DIR) + "/" + relative;
}

/// A shipped URDF and whether it is meant to float (as pybullet loads it).
struct ShippedModel {
  const char* file;
  bool floating;
};
/// Every shipped robot model.
inline const std::vector<ShippedModel>& shippedModels() {
  static const std::vector<ShippedModel> models = {
      {"kuka_iiwa/model.urdf", false},
      {"franka_panda/panda.urdf", false},
      {"humanoid_deepmimic/humanoid.urdf", true},
      {"quadruped_minitaur_prims/quadruped.urdf", true},
      {"pendulum5/pendulum5.urdf", false},
      {"acrobot_drake/Acrobot.urdf", false},
      {"cartpole/cartpole.urdf", false},
      {"two_joint_robot/TwoJointRobot_w_fixedJoints.urdf", false},
      {"spherical_joint_limit/spherical_joint_limit.urdf", false},
  };
  return models;
}

/// Derivative at t = 0 of a smooth vector function by the 5-point central stencil
/// (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h. With h = 1e-3 the truncation error is about
/// h^4/30 |f^(5)| ~ 1e-13 and the rounding error about 1e-13 |f|, so 1e-9 comparisons are safe.
inline Eigen::VectorXd fdDerivative(const std::function<Eigen::VectorXd(double)>& f,
                                    double h = 1e-3) {
  return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h);
}

/// [w], the skew-symmetric matrix with [w] u = w x u.
inline Eigen::Matrix3d skewMatrix(const Eigen::Vector3d& w) {
  Eigen::Matrix3d S;
  S << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return S;
}

/// The rotation vector of R (angle in [0, pi]).
inline Eigen::Vector3d logRotation(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

/// Three draws of `draw` as a vector, drawn z first, then y, then x: the order the models the
/// tests were measured on were drawn in by g++ (which evaluates a constructor's arguments from the
/// last), now fixed for every compiler (clang evaluates them from the first).
template <typename Draw>
Eigen::Vector3d drawVector3(Draw&& draw) {
  const double z = draw();
  const double y = draw();
  const double x = draw();
  return Eigen::Vector3d(x, y, z);
}

/// A random rotation from a generator.
inline Eigen::Matrix3d randomRotation(std::mt19937_64& gen) {
  std::normal_distribution<double> n;
  // Drawn z, y, x, w (drawVector3's order).
  const Eigen::Vector3d xyz = drawVector3([&] { return n(gen); });
  const double w = n(gen);
  Eigen::Quaterniond Q(w, xyz.x(), xyz.y(), xyz.z());
  return Q.normalized().toRotationMatrix();
}

/// A random physically valid link inertia: mass in [0.5, 2] kg, COM within 0.2 m, principal
/// moments of a random box rotated randomly.
inline void randomInertia(std::mt19937_64& gen, double& mass, Eigen::Vector3d& com,
                          Eigen::Matrix3d& I) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  mass = 0.5 + 1.5 * u(gen);
  com = drawVector3([&] { return u(gen) - 0.5; }) * 0.4;
  const Eigen::Vector3d s = drawVector3([&] { return 0.05 + 0.3 * u(gen); });
  const Eigen::Vector3d d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                          s.x() * s.x() + s.y() * s.y());
  const Eigen::Matrix3d R = randomRotation(gen);
  I = R * (mass / 12.0 * d).asDiagonal() * R.transpose();
}

/// One random wrench per link of `model`, components up to `scale` (link k's from seed + k).
inline std::vector<Force> randomForces(const Model& model, std::uint64_t seed, double scale = 1.0) {
  std::vector<Force> forces;
  for (int k = 0; k < model.numLinks(); ++k) {
    forces.emplace_back(Vector6(randomVector(6, seed + k, scale)));
  }
  return forces;
}

/// A random tree of `nlinks` links mixing revolute, prismatic, ball and fixed joints (and a free
/// root when floating), random placements and inertias; every joint type appears when
/// nlinks >= 5. Fixed joints are kept (not merged) unless `merge_fixed` is set. Each link hangs
/// from a random earlier link, or, when `deep`, from the one just before it or the one before
/// that (a long chain with short branches).
inline Model randomTreeModel(std::uint64_t seed, int nlinks, BallParametrization ball,
                             bool floating_base, bool merge_fixed = false, bool deep = false) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ModelBuilder b("random_tree_" + std::to_string(seed));
  for (int i = 0; i < nlinks; ++i) {
    double m;
    Eigen::Vector3d c;
    Eigen::Matrix3d I;
    randomInertia(gen, m, c, I);
    b.addLink("link" + std::to_string(i), m, c, I);
    if (i == 0) continue;  // the root: welded or free through ModelOptions
    const int parent =
        deep ? std::max(0, i - 1 - static_cast<int>(2.0 * u(gen))) : static_cast<int>(u(gen) * i);
    // Drawn translation first, then rotation (g++'s order of X_PJ's two arguments).
    const Eigen::Vector3d p_PJ = drawVector3([&] { return u(gen) - 0.5; });
    const Transform X_PJ(randomRotation(gen), p_PJ);
    const Eigen::Vector3d axis = drawVector3([&] { return u(gen) - 0.5; }).normalized();
    const std::string name = "joint" + std::to_string(i), p = "link" + std::to_string(parent),
                      c_name = "link" + std::to_string(i);
    switch (i % 4) {
      case 1:
        b.addRevolute(name, p, c_name, X_PJ, axis);
        break;
      case 2:
        b.addBall(name, p, c_name, X_PJ);
        break;
      case 3:
        b.addPrismatic(name, p, c_name, X_PJ, axis);
        break;
      default:
        b.addFixed(name, p, c_name, X_PJ);
        break;
    }
  }
  ModelOptions options;
  options.ball = ball;
  options.floating_base = floating_base;
  options.merge_fixed_joints = merge_fixed;
  return b.build(options);
}

/// A shipped model loaded as pybullet would (floating or not).
inline Model loadShipped(const ShippedModel& shipped) {
  ModelOptions options;
  options.floating_base = shipped.floating;
  return loadUrdf(modelPath(shipped.file), options);
}

/// A floating two-link arm whose arm hangs from a universal joint: two revolute joints with
/// orthogonal axes through a massless "cross" link (the bridge's universal-joint case).
inline Model universalModel() {
  ModelBuilder b("universal");
  const Eigen::Matrix3d I = Eigen::Vector3d(0.02, 0.03, 0.04).asDiagonal();
  b.addLink("base", 2.0, Eigen::Vector3d(0.0, 0.0, 0.1), I);
  b.addLink("cross", 0.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero());
  b.addLink("arm", 1.0, Eigen::Vector3d(0.1, 0.02, -0.3), 0.5 * I);
  b.addRevolute(
      "u1", "base", "cross",
      Transform(rotationFromRpy(Eigen::Vector3d(0.2, 0.1, -0.3)), Eigen::Vector3d(0.1, 0.0, -0.2)),
      Eigen::Vector3d::UnitX());
  b.addRevolute("u2", "cross", "arm",
                Transform(rotationFromRpy(Eigen::Vector3d(0.4, 0, 0)), Eigen::Vector3d::Zero()),
                Eigen::Vector3d(0.0, 0.6, 0.8));
  ModelOptions options;
  options.floating_base = true;
  return b.build(options);
}

/// A chain on planar joints, random inertias: a planar joint about z, a revolute joint, a planar
/// joint about a tilted axis and one about -z (planarJointFrame's special case); floating or
/// fixed base.
inline Model planarModel(std::uint64_t seed, bool floating_base) {
  std::mt19937_64 gen(seed);
  ModelBuilder b(floating_base ? "planar_floating" : "planar");
  for (int i = 0; i < 5; ++i) {
    double m;
    Eigen::Vector3d c;
    Eigen::Matrix3d I;
    randomInertia(gen, m, c, I);
    // Rotational inertia of the order of the translational one (cond(M) ~ 1e2, not 1e4): the
    // tests compare algorithms, not how they cope with ill-conditioning.
    b.addLink("link" + std::to_string(i), m, c, I + 0.1 * m * Eigen::Matrix3d::Identity());
  }
  const auto place = [&gen](double x, double y, double z) {
    return Transform(randomRotation(gen), Eigen::Vector3d(x, y, z));
  };
  JointDescription j;
  j.type = JointType::Planar;
  for (const auto& [name, parent, child, axis] :
       {std::tuple{"plane_z", "link0", "link1", Eigen::Vector3d(0, 0, 1)},
        std::tuple{"plane_tilted", "link2", "link3", Eigen::Vector3d(0.3, -0.8, 0.5).normalized()},
        std::tuple{"plane_minus_z", "link3", "link4", Eigen::Vector3d(0, 0, -1)}}) {
    j.name = name;
    j.parent = parent;
    j.child = child;
    j.axis = axis;
    j.X_PJ = place(0.1, -0.2, 0.3);
    b.addJoint(j);
  }
  b.addRevolute("hinge", "link1", "link2", place(0.2, 0.0, -0.1),
                Eigen::Vector3d(1, 2, 3).normalized());
  ModelOptions options;
  options.floating_base = floating_base;
  return b.build(options);
}

/// A planar mechanism: every joint's axis along the base's z (planar joints and a revolute one),
/// offsets in the plane and out of it, diagonal inertias with their COMs off the link origins.
/// Bullet's 6-DOF constraint is an exact planar joint only when its parent turns about the normal
/// (docs/bullet-notes.md), and btMultiBody's planar joint needs the axis perpendicular to the
/// child's principal x axis: this model is both, on a fixed base.
inline Model planarMechanismModel(bool floating_base) {
  ModelBuilder b(floating_base ? "planar_mechanism_floating" : "planar_mechanism");
  b.addLink("base", 3.0, Eigen::Vector3d(0.0, 0.0, 0.05),
            Eigen::Vector3d(0.1, 0.2, 0.3).asDiagonal());
  b.addLink("sled", 1.5, Eigen::Vector3d(0.1, -0.05, 0.02),
            Eigen::Vector3d(0.02, 0.03, 0.04).asDiagonal());
  b.addLink("arm", 0.8, Eigen::Vector3d(0.2, 0.0, 0.0),
            Eigen::Vector3d(0.01, 0.05, 0.06).asDiagonal());
  b.addLink("puck", 0.5, Eigen::Vector3d(-0.03, 0.04, 0.01),
            Eigen::Vector3d(0.004, 0.005, 0.007).asDiagonal());
  const Eigen::Matrix3d turn = rotationFromRpy(Eigen::Vector3d(0.0, 0.0, 0.4));
  JointDescription j;
  j.type = JointType::Planar;
  j.axis = Eigen::Vector3d::UnitZ();
  j.name = "table";
  j.parent = "base";
  j.child = "sled";
  j.X_PJ = Transform(turn, Eigen::Vector3d(0.2, -0.1, 0.3));
  b.addJoint(j);
  b.addRevolute("elbow", "sled", "arm",
                Transform(turn.transpose(), Eigen::Vector3d(0.3, 0.1, 0.05)),
                Eigen::Vector3d::UnitZ());
  j.name = "slot";
  j.parent = "arm";
  j.child = "puck";
  j.X_PJ = Transform(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.4, 0.0, -0.02));
  b.addJoint(j);
  ModelOptions options;
  options.floating_base = floating_base;
  return b.build(options);
}

/// Three chains hanging from the world, as a static body holds them (a test stand, a fixed palm):
/// a revolute then a prismatic joint, a ball then a revolute joint, a fixed then a revolute joint;
/// non-diagonal inertias, COMs off the link origins.
inline Model forestModel() {
  ModelBuilder b("forest");
  const Eigen::Matrix3d inertia =
      (Eigen::Matrix3d() << 0.05, 0.004, -0.002, 0.004, 0.04, 0.003, -0.002, 0.003, 0.03)
          .finished();
  const char* names[] = {"a1", "a2", "b1", "b2", "c1", "c2"};
  for (int i = 0; i < 6; ++i) {
    b.addLink(names[i], 0.6 + 0.1 * i, Eigen::Vector3d(0.02 * i, 0.01, -0.1),
              (1.0 + 0.2 * i) * inertia);
  }
  const Eigen::Matrix3d turn = rotationFromRpy(Eigen::Vector3d(0.3, -0.2, 0.5));
  const Eigen::Vector3d down(0.0, 0.0, -0.25);
  b.addRevolute("ja1", "world", "a1", Transform(turn, Eigen::Vector3d(0.3, 0.0, 1.0)),
                Eigen::Vector3d::UnitY());
  b.addPrismatic("ja2", "a1", "a2", Transform(Eigen::Matrix3d::Identity(), down),
                 Eigen::Vector3d::UnitZ());
  b.addBall("jb1", "world", "b1", Transform(turn.transpose(), Eigen::Vector3d(-0.2, 0.3, 1.0)));
  b.addRevolute("jb2", "b1", "b2", Transform(turn, down), Eigen::Vector3d::UnitX());
  b.addFixed("jc1", "world", "c1",
             Transform(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.0, -0.4, 1.0)));
  b.addRevolute("jc2", "c1", "c2", Transform(turn, down), Eigen::Vector3d(0.0, 0.6, 0.8));
  ModelOptions options;
  options.merge_fixed_joints = false;
  return b.build(options);
}

/// The bridge tests' models: every shipped one, random 10-link trees with each ball
/// parametrization, fixed (seed_fixed) and floating (seed_floating), the universal joint and the
/// planar mechanism, the forest.
inline std::vector<Model> bridgeTestModels(std::uint64_t seed_fixed, std::uint64_t seed_floating) {
  std::vector<Model> models;
  for (const ShippedModel& s : shippedModels()) models.push_back(loadShipped(s));
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (bool floating : {false, true}) {
      models.push_back(randomTreeModel(floating ? seed_floating : seed_fixed, 10, ball, floating));
    }
  }
  models.push_back(universalModel());
  models.push_back(planarMechanismModel(false));
  models.push_back(forestModel());
  return models;
}

/// A random configuration kept away from the Euler-angle singularity (|b| <= pi/2 - 0.27).
inline Eigen::VectorXd safeConfiguration(const Model& model, std::uint64_t seed) {
  Eigen::VectorXd q = randomConfiguration(model, seed);
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Ball && joint.ball == BallParametrization::EulerXYZ) {
      q(joint.idx_q + 1) = std::clamp(q(joint.idx_q + 1), -1.3, 1.3);
    }
  }
  return q;
}

/// The DeepMimic humanoid standing (its y-up file turned z up), its two box soles' 8 corners on
/// the ground z = 0 as contact points of the given friction.
struct StandingHumanoid {
  Model model;
  Eigen::VectorXd q;
  std::vector<ContactPoint> soles;

  explicit StandingHumanoid(double friction = 0.8) {
    ModelOptions options;
    options.floating_base = true;
    model = loadUrdf(modelPath("humanoid_deepmimic/humanoid.urdf"), options);
    q = neutralConfiguration(model);
    q.segment<7>(0) << 0.0, 0.0, 3.5257, std::sin(M_PI_4), 0.0, 0.0, std::cos(M_PI_4);
    Data data(model);
    for (const char* foot : {"left_ankle", "right_ankle"}) {
      for (const ContactPoint& c :
           boxSoleCorners(model, data, q, model.linkIndex(foot), Vector3::UnitZ(), friction)) {
        soles.push_back(c);
      }
    }
  }
};

}  // namespace gcbridge::test
