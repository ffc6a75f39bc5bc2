// The mass matrix: CRBA against RNEA columns, and the tree-sparse L^T D L factorization against
// a dense solve.

#include "gcbridge/dynamics/crba.hpp"

#include <gtest/gtest.h>

#include <limits>

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
    out.emplace_back("deep fixed random", test::randomTreeModel(54, 52, ball, false, false, true));
  }
  out.emplace_back("planar", test::planarModel(52, true));
  return out;
}

// Both of crba's forms (in the links' frames; in the root link's frame on the deep random trees,
// floating and fixed) against M's columns from RNEA, an independent algorithm, to 2e-14 of M's
// largest entry: round-off grows with the terms summed, not with the entry, so near-zero entries
// of a large M differ by more than their own size. The floating trees are also placed 2 km from
// the world's origin: the sums must not grow with that distance.
TEST(Crba, ColumnsEqualRneaWithUnitAccelerations) {
  int deep = 0, shallow = 0;
  for (const auto& [label, model] : models()) {
    ++(model.mean_dof_depth > kCrbaRootFrameDepth ? deep : shallow);
    Data data(model), rd(model);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      Eigen::VectorXd q = randomConfiguration(model, seed);
      if (seed == 4 && model.floating_base) q.head<3>() << 1e3, -2e3, 5e2;
      const Eigen::MatrixXd M = crba(model, data, q);
      const Eigen::VectorXd g = computeGeneralizedGravity(model, rd, q);
      Eigen::MatrixXd from_rnea(model.nv, model.nv);
      for (int i = 0; i < model.nv; ++i) {
        from_rnea.col(i) = rnea(model, rd, q, rd.zero_v, Eigen::VectorXd::Unit(model.nv, i)) - g;
      }
      const double scale = M.cwiseAbs().maxCoeff();
      EXPECT_TRUE(matricesNear(M / scale, from_rnea / scale, 2e-14)) << label << " " << seed;
      EXPECT_TRUE(matricesNear(M, Eigen::MatrixXd(M.transpose()), 0.0)) << label;
    }
  }
  EXPECT_EQ(deep, 6);
  EXPECT_GT(shallow, 3);
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
    // L^T above the diagonal, mirrored exactly, and L^T D L = M.
    EXPECT_TRUE(matricesNear(data.LTDL, Eigen::MatrixXd(data.LTDL.transpose()), 0.0)) << label;
    const Eigen::MatrixXd L = data.LTDL.triangularView<Eigen::UnitLower>();
    const Eigen::MatrixXd LTDL = L.transpose() * data.LTDL.diagonal().asDiagonal() * L;
    EXPECT_TRUE(matricesNear(LTDL, M, 1e-12)) << label;
    const Eigen::VectorXd b = randomVector(model.nv, 6);
    Eigen::VectorXd x = b;
    solveMassMatrix(model, data, x);
    EXPECT_TRUE(test::solvesMassMatrixSystem(M, x, b)) << label;
    // M^-1 M - I, the left residual of M^-1's columns: they come from one factorization of a
    // nearby M + E (|E| about eps |M|), so M^-1 M - I is about -M^-1 E, of order cond(M) eps.
    // The factor 4 is margin over what these models show (at most 0.3 cond(M) eps; the deep
    // random trees reach cond(M) = 1e7).
    const double cond = test::conditionNumber(M);
    EXPECT_TRUE(matricesNear(computeMassMatrixInverse(model, data) * M,
                             Eigen::MatrixXd::Identity(model.nv, model.nv),
                             4.0 * cond * std::numeric_limits<double>::epsilon()))
        << label << ", cond(M) = " << cond;
  }
}

}  // namespace
}  // namespace gcbridge
