// The mass matrix: CRBA against RNEA columns, and the tree-sparse L^T D L factorization against
// dense Cholesky.

#include "gcbridge/dynamics/crba.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

std::vector<std::pair<std::string, Model>> models() {
  std::vector<std::pair<std::string, Model>> out;
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (const test::ShippedModel& s : test::shippedModels()) {
      ModelOptions o;
      o.floating_base = s.floating;
      o.ball = ball;
      out.emplace_back(std::string(s.file) + " " + toString(ball),
                       loadUrdf(test::modelPath(s.file), o));
    }
    out.emplace_back("random", test::randomTreeModel(51, 16, ball, true));
    out.emplace_back("deep random", test::randomTreeModel(53, 40, ball, true, false, true));
  }
  out.emplace_back("planar", test::planarModel(52, true));
  return out;
}

// Both of crba's forms (in the links' frames, and in world coordinates on the deep random trees)
// against M's columns from RNEA, an independent algorithm, to 2e-14 of M's largest entry: round-off
// grows with the terms summed, not with the entry (measured at most 4.5e-15, on the iiwa; the
// deep trees' near-zero entries come out about 1e-12 from RNEA's, with entries up to 600).
TEST(Crba, ColumnsEqualRneaWithUnitAccelerations) {
  int deep = 0, shallow = 0;
  for (const auto& [label, model] : models()) {
    ++(model.mean_dof_depth > 16.0 ? deep : shallow);
    Data data(model), rd(model);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      const Eigen::MatrixXd M = crba(model, data, q);
      const Eigen::VectorXd g = computeGeneralizedGravity(model, rd, q);
      Eigen::MatrixXd from_rnea(model.nv, model.nv);
      for (int i = 0; i < model.nv; ++i) {
        from_rnea.col(i) = rnea(model, rd, q, rd.zero_v, Eigen::VectorXd::Unit(model.nv, i)) - g;
      }
      EXPECT_LE((M - from_rnea).cwiseAbs().maxCoeff(), 2e-14 * M.cwiseAbs().maxCoeff()) << label;
      EXPECT_TRUE(matricesNear(M, Eigen::MatrixXd(M.transpose()), 0.0)) << label;
    }
  }
  EXPECT_EQ(deep, 3);
  EXPECT_GT(shallow, 3);
}

// The mean dof depth that chooses crba's form: (n + 1) / 2 on a chain of n 1-dof joints; on the
// floating DeepMimic humanoid 310 / 34 (a free root's dofs are 1 to 6 deep, its chest ball's 7 to
// 9, and so on down the limbs).
TEST(Crba, MeanDofDepthCountsEveryDofsAncestors) {
  ModelBuilder b("chain");
  for (int i = 0; i < 16; ++i) {
    b.addLink("l" + std::to_string(i), 1.0, Eigen::Vector3d(0.0, 0.0, 0.1),
              0.01 * Eigen::Matrix3d::Identity());
    if (i > 0) {
      b.addRevolute("j" + std::to_string(i), "l" + std::to_string(i - 1), "l" + std::to_string(i),
                    Transform(Matrix3::Identity(), Vector3(0.0, 0.0, 0.2)), Vector3::UnitX());
    }
  }
  EXPECT_DOUBLE_EQ(b.build(ModelOptions{}).mean_dof_depth, 15.0 * 16.0 / 2.0 / 15.0);
  ModelOptions floating;
  floating.floating_base = true;
  const Model humanoid = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), floating);
  EXPECT_DOUBLE_EQ(humanoid.mean_dof_depth, 310.0 / 34.0);
}

TEST(Crba, TreeFactorizationSolvesLikeCholeskyAndKeepsSparsity) {
  for (const auto& [label, model] : models()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 5);
    const Eigen::MatrixXd M = crba(model, data, q);
    factorizeMassMatrix(model, data);
    // Fill-in only at (dof, ancestor dof): elsewhere L stays exactly as M was (zero).
    for (int k = 0; k < model.nv; ++k) {
      for (int i = 0; i < k; ++i) {
        bool ancestor = false;
        for (int a = model.dof_parent[k]; a >= 0; a = model.dof_parent[a]) ancestor |= a == i;
        if (!ancestor) {
          EXPECT_EQ(data.LTDL(k, i), 0.0) << label << " (" << k << ", " << i << ")";
        }
      }
    }
    const Eigen::VectorXd b = randomVector(model.nv, 6);
    Eigen::VectorXd x = b;
    solveMassMatrix(model, data, x);
    EXPECT_TRUE(matricesNear(x, M.llt().solve(b), 1e-10)) << label;
    EXPECT_TRUE(matricesNear(M * x, b, 1e-11)) << label;
    EXPECT_TRUE(matricesNear(computeMassMatrixInverse(model, data) * M,
                             Eigen::MatrixXd::Identity(model.nv, model.nv), 1e-10))
        << label;
  }
}

}  // namespace
}  // namespace gcbridge
