// The mass matrix: CRBA against RNEA columns, and the tree-sparse L^T D L factorization against
// dense Cholesky.

#include "gcbridge/dynamics/crba.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

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
  }
  out.emplace_back("planar", test::planarModel(52, true));
  return out;
}

TEST(Crba, ColumnsEqualRneaWithUnitAccelerations) {
  for (const auto& [label, model] : models()) {
    Data data(model), rd(model);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      const Eigen::MatrixXd M = crba(model, data, q);
      const Eigen::VectorXd g = computeGeneralizedGravity(model, rd, q);
      Eigen::MatrixXd from_rnea(model.nv, model.nv);
      for (int i = 0; i < model.nv; ++i) {
        from_rnea.col(i) = rnea(model, rd, q, rd.zero_v, Eigen::VectorXd::Unit(model.nv, i)) - g;
      }
      EXPECT_TRUE(matricesNear(M, from_rnea, 1e-12)) << label;
      EXPECT_TRUE(matricesNear(M, Eigen::MatrixXd(M.transpose()), 0.0)) << label;
    }
  }
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
