// The dense QP solver (Goldfarb-Idnani): the KKT conditions on random strictly convex problems,
// the minimum against an exhaustive search over active sets on small ones, degenerate and
// redundant constraints, infeasible and non-convex problems reported, warm starts, bad input;
// its Cholesky factor and the rows carried along it.

#include "gcbridge/controllers/quadratic_program.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

// A random strictly convex problem with n unknowns, m_eq equalities and m_in inequalities, made
// feasible: every constraint holds at a random point x0, the inequalities with random slack, a
// third of them tight.
QuadraticProgram randomProblem(std::mt19937& rng, int n, int m_eq, int m_in) {
  std::normal_distribution<double> normal;
  const auto random = [&](int rows, int cols) {
    return Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return normal(rng); });
  };
  QuadraticProgram qp;
  const Eigen::MatrixXd F = random(n, n);
  qp.H = F * F.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n);
  qp.g = random(n, 1) * 3.0;
  const Eigen::VectorXd x0 = random(n, 1);
  qp.A_eq = random(m_eq, n);
  qp.b_eq = qp.A_eq * x0;
  qp.A_in = random(m_in, n);
  std::uniform_real_distribution<double> slack(0.0, 1.0);
  qp.b_in = qp.A_in * x0;
  for (int i = 0; i < m_in; ++i) {
    if (i % 3 != 0) qp.b_in(i) -= slack(rng);
  }
  return qp;
}

// The KKT conditions at the result, to `tol` relative to the problem's scale.
void expectKkt(const QuadraticProgram& qp, const QpResult& r, double tol) {
  ASSERT_EQ(r.status, QpStatus::Solved) << r.message;
  const double scale = 1.0 + qp.g.cwiseAbs().maxCoeff() + qp.H.cwiseAbs().maxCoeff();
  const Eigen::VectorXd stationarity =
      qp.H * r.x + qp.g - qp.A_eq.transpose() * r.y - qp.A_in.transpose() * r.lambda;
  EXPECT_LT(stationarity.cwiseAbs().maxCoeff(), tol * scale);
  if (qp.A_eq.rows() > 0) {
    EXPECT_LT((qp.A_eq * r.x - qp.b_eq).cwiseAbs().maxCoeff(), tol * scale);
  }
  for (int i = 0; i < qp.A_in.rows(); ++i) {
    const double s = qp.A_in.row(i).dot(r.x) - qp.b_in(i);
    EXPECT_GE(s, -tol * scale) << "inequality " << i;
    EXPECT_GE(r.lambda(i), 0.0) << "multiplier " << i;  // clamped at 0 by the solver
    EXPECT_LT(std::abs(r.lambda(i) * s), tol * scale * scale) << "complementarity " << i;
  }
}

TEST(QuadraticProgram, RandomProblemsMeetTheKktConditions) {
  std::mt19937 rng(7);
  QpSolver solver;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + trial % 12, m_eq = trial % 3, m_in = (trial * 7) % 25;
    const QuadraticProgram qp = randomProblem(rng, n, std::min(m_eq, n - 1), m_in);
    expectKkt(qp, solver.solve(qp), 1e-9);
  }
}

// The minimum over every active set: for each subset of inequalities held with equality (with
// the equalities), the KKT system's solution, kept when it is feasible with non-negative
// multipliers; the smallest cost among those is the minimum.
Eigen::VectorXd exhaustiveMinimum(const QuadraticProgram& qp) {
  const int n = static_cast<int>(qp.H.rows()), m_eq = static_cast<int>(qp.A_eq.rows());
  const int m_in = static_cast<int>(qp.A_in.rows());
  double best = INFINITY;
  Eigen::VectorXd best_x;
  for (int mask = 0; mask < (1 << m_in); ++mask) {
    std::vector<int> set;
    for (int i = 0; i < m_in; ++i) {
      if (mask & (1 << i)) set.push_back(i);
    }
    const int q = m_eq + static_cast<int>(set.size());
    if (q > n) continue;
    Eigen::MatrixXd A(q, n);
    Eigen::VectorXd b(q);
    A.topRows(m_eq) = qp.A_eq;
    b.head(m_eq) = qp.b_eq;
    for (std::size_t k = 0; k < set.size(); ++k) {
      A.row(m_eq + k) = qp.A_in.row(set[k]);
      b(m_eq + k) = qp.b_in(set[k]);
    }
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + q, n + q);
    K.topLeftCorner(n, n) = qp.H;
    K.topRightCorner(n, q) = -A.transpose();
    K.bottomLeftCorner(q, n) = A;
    Eigen::VectorXd rhs(n + q);
    rhs << -qp.g, b;
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(K);
    if (!lu.isInvertible()) continue;
    const Eigen::VectorXd sol = lu.solve(rhs);
    const Eigen::VectorXd x = sol.head(n);
    if ((sol.tail(q - m_eq).array() < -1e-12).any()) continue;
    if (((qp.A_in * x - qp.b_in).array() < -1e-12).any()) continue;
    const double cost = 0.5 * x.dot(qp.H * x) + qp.g.dot(x);
    if (cost < best) {
      best = cost;
      best_x = x;
    }
  }
  return best_x;
}

TEST(QuadraticProgram, SmallProblemsMatchAnExhaustiveSearch) {
  std::mt19937 rng(11);
  QpSolver solver;
  for (int trial = 0; trial < 100; ++trial) {
    const QuadraticProgram qp = randomProblem(rng, 3, trial % 2, 6);
    const QpResult r = solver.solve(qp);
    ASSERT_EQ(r.status, QpStatus::Solved) << r.message;
    const Eigen::VectorXd expected = exhaustiveMinimum(qp);
    ASSERT_EQ(expected.size(), 3) << "trial " << trial;
    EXPECT_LT((r.x - expected).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
  }
}

// A constraint given twice, an equality repeated, a constraint that is a combination of others:
// solved, the repeated ones without double-counted multipliers.
TEST(QuadraticProgram, DegenerateAndRedundantConstraints) {
  QuadraticProgram qp;
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::Vector2d(-2.0, -2.0);  // the unconstrained minimum (2, 2)
  qp.A_eq = Eigen::MatrixXd(2, 2);
  qp.A_eq << 1, -1, 2, -2;  // x0 = x1, twice
  qp.b_eq = Eigen::Vector2d::Zero();
  qp.A_in = Eigen::MatrixXd(3, 2);
  qp.A_in << -1, 0, -1, 0, -1, -1;  // x0 <= 1 twice (implied at the minimum), x0 + x1 <= 2
  qp.b_in = Eigen::Vector3d(-1.0, -1.0, -2.0);
  const QpResult r = QpSolver().solve(qp);
  ASSERT_EQ(r.status, QpStatus::Solved) << r.message;
  EXPECT_TRUE(r.x.isApprox(Eigen::Vector2d(1.0, 1.0), 1e-12)) << r.x.transpose();
  expectKkt(qp, r, 1e-12);
}

// No point satisfies x >= 1 and x <= 0; two contradictory equalities; a non-convex H: each
// reported with a message, x finite.
TEST(QuadraticProgram, ReportsInfeasibleAndNonConvexProblems) {
  QuadraticProgram qp;
  qp.H = Eigen::MatrixXd::Identity(1, 1);
  qp.g = Eigen::VectorXd::Zero(1);
  qp.A_in = Eigen::MatrixXd(2, 1);
  qp.A_in << 1, -1;
  qp.b_in = Eigen::Vector2d(1.0, 0.0);
  QpResult r = QpSolver().solve(qp);
  EXPECT_EQ(r.status, QpStatus::Infeasible);
  EXPECT_NE(r.message.find("infeasible"), std::string::npos) << r.message;
  EXPECT_TRUE(r.x.allFinite());
  QuadraticProgram eq;
  eq.H = Eigen::Matrix2d::Identity();
  eq.g = Eigen::Vector2d::Zero();
  eq.A_eq = Eigen::MatrixXd(2, 2);
  eq.A_eq << 1, 1, 2, 2;
  eq.b_eq = Eigen::Vector2d(1.0, 3.0);
  r = QpSolver().solve(eq);
  EXPECT_EQ(r.status, QpStatus::Infeasible);
  EXPECT_NE(r.message.find("equality 1 contradicts"), std::string::npos) << r.message;
  eq.b_eq(1) = 2.0;
  eq.H(1, 1) = -1.0;
  r = QpSolver().solve(eq);
  EXPECT_EQ(r.status, QpStatus::NotConvex);
  EXPECT_STREQ(toString(r.status), "not convex");
  // A lower triangle that factors does not make H symmetric; round-off in it is allowed.
  eq.A_eq.resize(0, 2);
  eq.b_eq.resize(0);
  eq.H << 2.0, 1.0, 0.0, 2.0;
  EXPECT_EQ(QpSolver().solve(eq).status, QpStatus::NotConvex);
  eq.H << 2.0, 1.0, 1.0 + 1e-15, 2.0;
  EXPECT_EQ(QpSolver().solve(eq).status, QpStatus::Solved);
}

// A constraint whose normal is an active one's: the solver steps only the multipliers, drops the
// active one and adds the new (Goldfarb & Idnani's partial step with z = 0). The warm start picks
// x0 <= 1 first; then x0 <= 0.5 has the same normal.
TEST(QuadraticProgram, DependentConstraintReplacesAnActiveOne) {
  QuadraticProgram qp;
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::Vector2d(-3.0, 0.0);  // the unconstrained minimum (3, 0)
  qp.A_in = Eigen::MatrixXd(2, 2);
  qp.A_in << -1, 0, -1, 0;  // x0 <= 1, x0 <= 0.5
  qp.b_in = Eigen::Vector2d(-1.0, -0.5);
  const QpResult r = QpSolver().solve(qp, {0});
  ASSERT_EQ(r.status, QpStatus::Solved) << r.message;
  EXPECT_TRUE(r.x.isApprox(Eigen::Vector2d(0.5, 0.0), 1e-14)) << r.x.transpose();
  EXPECT_EQ(r.active, std::vector<int>{1});
  EXPECT_NEAR(r.lambda(1), 2.5, 1e-14);
  EXPECT_EQ(r.lambda(0), 0.0);
  EXPECT_EQ(r.iterations, 3);  // add x0 <= 1, drop it, add x0 <= 0.5
  // With a limit of 2 steps it stops, saying so.
  const QpResult limited = QpSolver(1e-10, 2).solve(qp, {0});
  EXPECT_EQ(limited.status, QpStatus::IterationLimit);
  EXPECT_EQ(limited.iterations, 2);
  EXPECT_NE(limited.message.find("more than 2 steps"), std::string::npos) << limited.message;
}

// Solving again with the previous active set as the warm start: the same minimum, in fewer steps.
TEST(QuadraticProgram, WarmStartGivesTheSameMinimumSooner) {
  std::mt19937 rng(13);
  QpSolver solver;
  int cold_steps = 0, warm_steps = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const QuadraticProgram qp = randomProblem(rng, 12, 2, 30);
    const QpResult cold = solver.solve(qp);
    ASSERT_EQ(cold.status, QpStatus::Solved) << cold.message;
    const QpResult warm = solver.solve(qp, cold.active);
    ASSERT_EQ(warm.status, QpStatus::Solved) << warm.message;
    EXPECT_LT((warm.x - cold.x).cwiseAbs().maxCoeff(), 1e-9);
    cold_steps += cold.iterations;
    warm_steps += warm.iterations;
  }
  EXPECT_LE(warm_steps, cold_steps);
}

// A warm start that names the minimum's active set is checked by one KKT solve: the same minimum
// and multipliers as the cold solve, counted as one step per constraint it holds. A guess with
// an inactive constraint too (its multiplier would be negative), one with a constraint twice
// (dependent normals), or one that misses an active constraint: the dual method, the same
// minimum.
TEST(QuadraticProgram, AWarmStartNamingTheActiveSetIsSolvedAtOnce) {
  std::mt19937 rng(17);
  QpSolver solver;
  int guessed = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const QuadraticProgram qp = randomProblem(rng, 10, trial % 3, 20);
    const QpResult cold = solver.solve(qp);
    ASSERT_EQ(cold.status, QpStatus::Solved) << cold.message;
    const QpResult warm = solver.solve(qp, cold.active);
    expectKkt(qp, warm, 1e-9);
    EXPECT_LT((warm.x - cold.x).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((warm.lambda - cold.lambda).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + cold.lambda.norm()));
    const int held = static_cast<int>(qp.A_eq.rows() + cold.active.size());
    if (held > 0) {
      EXPECT_EQ(warm.iterations, held) << "trial " << trial;
      ++guessed;
    }
    std::vector<int> wrong = cold.active;
    for (int i = 0; i < qp.A_in.rows(); ++i) {
      if (std::find(wrong.begin(), wrong.end(), i) == wrong.end()) {
        wrong.push_back(i);
        break;
      }
    }
    std::vector<int> twice = cold.active;
    if (!twice.empty()) twice.push_back(twice.front());
    std::vector<int> short_of_one = cold.active;
    if (!short_of_one.empty()) short_of_one.pop_back();
    for (const std::vector<int>& guess : {wrong, twice, short_of_one}) {
      const QpResult r = solver.solve(qp, guess);
      expectKkt(qp, r, 1e-9);
      EXPECT_LT((r.x - cold.x).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
    }
  }
  EXPECT_GT(guessed, 40);
}

// One solver reused across problems of different sizes (its workspace resized) gives what a
// fresh solver gives, to the last bit.
TEST(QuadraticProgram, AReusedSolverMatchesAFreshOne) {
  std::mt19937 rng(19);
  QpSolver reused;
  QpResult into;
  for (int trial = 0; trial < 30; ++trial) {
    const QuadraticProgram qp = randomProblem(rng, 3 + trial % 7, trial % 2, 4 + trial % 11);
    const QpResult fresh = QpSolver().solve(qp);
    reused.solve(qp, {}, into);
    ASSERT_EQ(into.status, fresh.status) << into.message;
    EXPECT_EQ(into.x, fresh.x) << "trial " << trial;
    EXPECT_EQ(into.lambda, fresh.lambda) << "trial " << trial;
    EXPECT_EQ(into.active, fresh.active) << "trial " << trial;
  }
}

// The solver's Cholesky factor against A itself, and rows carried along it against B: L L^T = A
// and carried() L^T = B to round-off; a matrix that is not positive definite is refused.
TEST(QuadraticProgram, CholeskyCarriesRowsAlongTheFactor) {
  std::mt19937 gen(12);
  std::normal_distribution<double> normal;
  const auto random = [&](int rows, int cols) {
    return Eigen::MatrixXd(Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return normal(gen); }));
  };
  const Eigen::MatrixXd R = random(10, 10);
  const Eigen::MatrixXd A = R * R.transpose() + 0.1 * Eigen::MatrixXd::Identity(10, 10);
  const Eigen::MatrixXd B = random(3, 10);
  detail::Cholesky llt;
  ASSERT_TRUE(llt.compute(A, B));
  const Eigen::MatrixXd L = llt.matrixL();
  // Backward stable: residuals of a few eps relative (here ~1e-16).
  EXPECT_LT((L * L.transpose() - A).norm(), 1e-14 * A.norm());
  EXPECT_LT((llt.carried() * L.transpose() - B).norm(), 1e-14 * B.norm());
  ASSERT_TRUE(llt.compute(A));
  EXPECT_EQ(Eigen::MatrixXd(llt.matrixL()), L);
  Eigen::MatrixXd indefinite = A;
  indefinite(9, 9) = -1.0;
  EXPECT_FALSE(llt.compute(indefinite, B));
}

TEST(QuadraticProgram, RefusesProblemsThatDoNotFit) {
  QuadraticProgram qp;
  qp.H = Eigen::Matrix2d::Identity();
  qp.g = Eigen::VectorXd::Zero(3);
  QpSolver solver;
  EXPECT_THROW(solver.solve(qp), InvalidArgumentError);
  qp.g = Eigen::Vector2d(NAN, 0.0);
  EXPECT_THROW(solver.solve(qp), InvalidArgumentError);
  qp.g = Eigen::Vector2d::Zero();
  qp.A_in = Eigen::MatrixXd::Identity(2, 2);
  qp.b_in = Eigen::VectorXd::Zero(1);
  EXPECT_THROW(solver.solve(qp), InvalidArgumentError);
  qp.b_in = Eigen::Vector2d::Zero();
  EXPECT_THROW(solver.solve(qp, {5}), InvalidArgumentError);
  EXPECT_THROW(QpSolver(0.0), InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
