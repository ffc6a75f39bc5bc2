// Task-space terms: Lambda and eta reproduce the frame acceleration that ABA gives under
// tau = J^T F; Lin's pseudo-inverse form agrees for a square J and differs for the redundant
// iiwa; Jbar inverts J dynamically consistently; N's torques do not move the task.

#include "gcbridge/dynamics/task_space.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// xdd = J qdd + Jdot v, with qdd from ABA under tau = J^T F + extra.
Vector6 taskAcceleration(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                         const TaskSpaceTerms& t, const Eigen::VectorXd& tau) {
  Data data(model);
  return t.J * aba(model, data, q, v, tau) + t.Jdot_v;
}

// A 6-dof arm with generic axes: its frame Jacobian is square.
Model sixDofArm() {
  ModelBuilder b("arm6");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  const Vector3 axes[6] = {Vector3::UnitZ(), Vector3::UnitY(), Vector3::UnitY(),
                           Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitX()};
  for (int i = 0; i < 6; ++i) {
    const std::string name = "l" + std::to_string(i);
    b.addLink(name, 1.0 + 0.2 * i, Vector3(0.1, 0.0, 0.15), Vector3(0.02, 0.03, 0.01).asDiagonal());
    b.addRevolute("j" + std::to_string(i), i == 0 ? "base" : "l" + std::to_string(i - 1), name,
                  Transform(Matrix3::Identity(), Vector3(0.05 * i, 0.02, 0.3)), axes[i]);
  }
  return b.build();
}

TEST(TaskSpace, LambdaAndEtaReproduceTheFrameAcceleration) {
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  for (const Model* model : {&iiwa}) {
    Data data(*model);
    const int ee = model->numLinks() - 1;
    const Transform X_BF(Matrix3::Identity(), Vector3(0, 0, 0.1));
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(*model, seed),
                            v = randomVector(model->nv, seed + 5);
      const TaskSpaceTerms t = computeTaskSpaceTerms(*model, data, q, v, ee, X_BF);
      const Vector6 F = randomVector(6, seed + 9, 20.0);
      // F = Lambda xdd + eta under tau = J^T F.
      const Vector6 xdd = taskAcceleration(*model, q, v, t, t.J.transpose() * F);
      EXPECT_TRUE(matricesNear(Vector6(t.Lambda * xdd + t.eta), F, 1e-9));
      // Jbar is a right inverse of J, and null-space torques do not accelerate the task.
      EXPECT_TRUE(matricesNear(Matrix6(t.J * t.Jbar), Matrix6::Identity(), 1e-10));
      const Eigen::VectorXd tau0 = randomVector(model->nv, seed + 11, 10.0);
      EXPECT_TRUE(matricesNear(taskAcceleration(*model, q, v, t, t.J.transpose() * F + t.N * tau0),
                               xdd, 1e-9));
      EXPECT_GT(t.condition_number, 1.0);
    }
  }
}

TEST(TaskSpace, SeedPseudoInverseFormAgreesOnlyForSquareJacobians) {
  const Model arm = sixDofArm();
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  for (const Model* model : {&arm, &iiwa}) {
    Data data(*model);
    const Eigen::VectorXd q = randomConfiguration(*model, 4), v = randomVector(model->nv, 5);
    const int ee = model->numLinks() - 1;
    const TaskSpaceTerms correct = computeTaskSpaceTerms(*model, data, q, v, ee, Transform());
    const TaskSpaceTerms seed =
        computeTaskSpaceTermsPseudoInverse(*model, data, q, v, ee, Transform());
    if (model->nv == 6) {
      EXPECT_TRUE(matricesNear(seed.Lambda, correct.Lambda, 1e-9));
      EXPECT_TRUE(matricesNear(seed.eta, correct.eta, 1e-9));
    } else {
      // Redundant: Lin's Lambda is not the operational-space inertia.
      EXPECT_GT((seed.Lambda - correct.Lambda).norm(), 1e-3 * correct.Lambda.norm());
    }
  }
}

TEST(TaskSpace, DampingBoundsLambdaAtSingularities) {
  // The iiwa stretched straight up is singular (joints 1, 3, 5, 7 share the vertical axis).
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  Data data(iiwa);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(iiwa.nv), v = Eigen::VectorXd::Zero(iiwa.nv);
  const int ee = iiwa.numLinks() - 1;
  try {
    computeTaskSpaceTerms(iiwa, data, q, v, ee, Transform());
    FAIL() << "no SingularityError at the stretched configuration";
  } catch (const SingularityError& e) {
    EXPECT_NE(std::string(e.what()).find("damping"), std::string::npos);
  }
  const TaskSpaceTerms t = computeTaskSpaceTerms(iiwa, data, q, v, ee, Transform(), 0.1);
  EXPECT_TRUE(t.Lambda.allFinite());
  EXPECT_DOUBLE_EQ(t.damping, 0.1);
  EXPECT_GT(t.condition_number, 1e12);
  // Damped Lambda is bounded by 1 / mu^2.
  EXPECT_LE(Eigen::SelfAdjointEigenSolver<Matrix6>(t.Lambda).eigenvalues().maxCoeff(),
            1.0 / 0.01 + 1e-9);
}

}  // namespace
}  // namespace gcbridge
