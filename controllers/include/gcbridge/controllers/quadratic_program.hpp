#pragma once
/// @file
/// A dense strictly convex quadratic program and its solver, for whole-body controllers (one
/// small QP per control step):
///
///   minimize 1/2 x^T H x + g^T x   subject to   A_eq x = b_eq,   A_in x >= b_in,
///
/// H symmetric positive definite. The solver is Goldfarb and Idnani's dual active-set method
/// ("A numerically stable dual method for solving strictly convex quadratic programs", Math.
/// Programming 27, 1983): it starts at the unconstrained minimum, adds the most violated
/// constraint, and keeps the multipliers of the active ones non-negative, dropping one when its
/// multiplier would turn negative. It keeps the paper's factors: with H = L L^T (Cholesky, once)
/// and the active constraints' normals N, L^-1 N = Q [R; 0], the matrix J = L^-T Q and the
/// triangle R, updated by plane rotations when a constraint is added or dropped: O(n^2) per step
/// for n unknowns (a normal's zero columns before and after its nonzero ones cost nothing).
///
/// A warm start (the active set of the last solve of a problem that changes a little) is tried
/// first as a guess: the minimum with the equalities and the guessed inequalities all holding,
/// by one solve of its KKT system, is the problem's minimum when it keeps every inequality and
/// the guessed ones' multipliers are not negative; if not, the dual method runs from the start.
///
/// Multipliers: the KKT conditions are H x + g = A_eq^T y + A_in^T lambda, lambda >= 0, and
/// lambda_i (A_in x - b_in)_i = 0.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "gcbridge/controllers/detail/cholesky.hpp"

namespace gcbridge {

/// The problem (file comment). Row i of A_eq and A_in is one constraint's normal; either may have
/// no rows.
struct QuadraticProgram {
  Eigen::MatrixXd H;     ///< n x n, symmetric positive definite
  Eigen::VectorXd g;     ///< n
  Eigen::MatrixXd A_eq;  ///< m_eq x n
  Eigen::VectorXd b_eq;  ///< m_eq
  Eigen::MatrixXd A_in;  ///< m_in x n
  Eigen::VectorXd b_in;  ///< m_in
};

/// How a solve ended.
enum class QpStatus {
  Solved,          ///< x is the minimum
  Infeasible,      ///< no x satisfies the constraints (message: the constraint that cannot hold)
  NotConvex,       ///< H is not positive definite
  IterationLimit,  ///< more steps than the limit (a cycling degenerate problem)
};

/// "solved", "infeasible", "not convex", "iteration limit".
const char* toString(QpStatus status);

/// A solve's outcome. Unless Solved, x is the last iterate (finite) and says nothing.
struct QpResult {
  QpStatus status = QpStatus::Solved;
  Eigen::VectorXd x;        ///< n
  Eigen::VectorXd y;        ///< equality multipliers (m_eq)
  Eigen::VectorXd lambda;   ///< inequality multipliers (m_in), >= 0, 0 where inactive
  std::vector<int> active;  ///< the active inequalities' indices, in the order added
  double cost = 0.0;        ///< 1/2 x^T H x + g^T x
  int iterations = 0;       ///< constraints added and dropped
  std::string message;      ///< why it did not solve ("" when Solved)
};

namespace detail {
/// What a solve works in (quadratic_program.cpp), kept between solves.
struct QpWorkspace {
  Cholesky llt;                   ///< H = L L^T
  Eigen::MatrixXd J;              ///< n x n, L^-T Q
  Eigen::MatrixXd R;              ///< n x n, its top-left triangle R (one column per active)
  Eigen::MatrixXd W;              ///< n x n, L^-1 N for a guessed set N (its first columns)
  Eigen::MatrixXd S;              ///< n x n, W^T W and its factor (its top-left corner)
  Eigen::VectorXd x, d, z, r, e;  ///< n: the iterate, J^T normal, the step directions, scratch
  std::vector<int> ids;           ///< the active constraints: equality -1 - i, inequality i
  std::vector<double> u;          ///< their multipliers
  std::vector<char> is_active;    ///< per inequality
  std::vector<int> first, count;  ///< per inequality: its normal's nonzero columns
};
}  // namespace detail

/// Goldfarb-Idnani (file comment).
class QpSolver {
 public:
  /// `tolerance`: a constraint counts as satisfied within tolerance * (1 + |b_i|) (a normal counts
  /// as in the active normals' span within 1e3 machine epsilons, relative). `max_iterations`:
  /// steps (constraints added or dropped) before IterationLimit; 0: 10 (n + m_eq + m_in) + 10.
  /// @throws InvalidArgumentError for a tolerance that is not positive or a negative limit.
  explicit QpSolver(double tolerance = 1e-10, int max_iterations = 0);

  /// Solves `qp`. `warm_start`: inequalities likely active (a previous solve's `active`): the
  /// guess above, and tried first when violated; any list gives the same minimum.
  /// @throws InvalidArgumentError naming the matrix or vector whose size does not fit, or that is
  ///   not finite, or a warm-start index out of range.
  QpResult solve(const QuadraticProgram& qp, const std::vector<int>& warm_start = {});
  /// As above, into `result`, whose storage is reused: solves of problems of one size allocate
  /// nothing after the first (but for a failure's message).
  void solve(const QuadraticProgram& qp, const std::vector<int>& warm_start, QpResult& result);

 private:
  double tolerance_;
  int max_iterations_;
  detail::QpWorkspace work_;
};

}  // namespace gcbridge
