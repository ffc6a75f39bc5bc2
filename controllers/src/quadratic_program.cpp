#include "gcbridge/controllers/quadratic_program.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// A normal is in the active normals' span when the part of it outside is below this, relative.
constexpr double kDependence = 1e3 * std::numeric_limits<double>::epsilon();

/// A plane rotation [c s; -s c] that takes (a, b) to (hypot(a, b), 0).
struct Givens {
  double c = 1.0, s = 0.0, h = 0.0;  ///< h = hypot(a, b)
  Givens(double a, double b) {
    // hypot's guard against overflow is not needed at the scales of a QP's normals, and it is slow.
    h = std::sqrt(a * a + b * b);
    if (h > 0.0) {
      c = a / h;
      s = b / h;
    }
  }
  /// (x, y) <- (c x + s y, -s x + c y) for two vectors of equal size.
  template <typename X, typename Y>
  void apply(X&& x, Y&& y) const {
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      const double xk = x[k], yk = y[k];
      x[k] = c * xk + s * yk;
      y[k] = -s * xk + c * yk;
    }
  }
};

/// The active constraints, their multipliers, and the step directions for a constraint to add,
/// kept as Goldfarb & Idnani's factors: with H = L L^T and the active normals N (n x q),
/// L^-1 N = Q [R; 0], the matrix J = L^-T Q and the upper triangular R, updated by plane rotations
/// as constraints are added and dropped (O(n^2) each).
class ActiveSet {
 public:
  ActiveSet(const Eigen::LLT<Eigen::MatrixXd>& llt, int n)
      : n_(n), J_(llt.matrixU().solve(Eigen::MatrixXd::Identity(n, n))), R_(n, n), d_(n) {}

  int size() const { return static_cast<int>(ids_.size()); }
  /// The constraint at `position`: an equality (-1 - i) or an inequality (i).
  int id(int position) const { return ids_[position]; }
  double& multiplier(int position) { return u_[position]; }
  double multiplier(int position) const { return u_[position]; }

  /// Adds the normal (J's columns from q on rotated so that J^T normal has zeros below q + 1).
  void add(const Eigen::VectorXd& normal, int id, double multiplier) {
    const int q = size();
    d_.noalias() = J_.transpose() * normal;
    for (int j = n_ - 1; j > q; --j) {
      const Givens g(d_(j - 1), d_(j));
      g.apply(J_.col(j - 1), J_.col(j));
      d_(j - 1) = g.h;
      d_(j) = 0.0;
    }
    R_.col(q).head(q + 1) = d_.head(q + 1);
    ids_.push_back(id);
    u_.push_back(multiplier);
  }

  /// Drops the constraint at `position`, restoring R's triangle by rotations of its rows (and of
  /// J's columns alike).
  void drop(int position) {
    const int q = size();
    for (int k = position; k + 1 < q; ++k) R_.col(k).head(k + 2) = R_.col(k + 1).head(k + 2);
    for (int j = position; j + 1 < q; ++j) {
      const Givens g(R_(j, j), R_(j + 1, j));
      g.apply(R_.row(j).segment(j, q - 1 - j), R_.row(j + 1).segment(j, q - 1 - j));
      g.apply(J_.col(j), J_.col(j + 1));
      R_(j + 1, j) = 0.0;
    }
    ids_.erase(ids_.begin() + position);
    u_.erase(u_.begin() + position);
  }

  /// For the normal n: the primal direction z = J2 J2^T n (zero when n lies in the active
  /// normals' span, kDependence relative) and the dual one r = R^-1 J1^T n, with J = [J1 J2]
  /// split after the q active columns. @return whether z is nonzero.
  bool directions(const Eigen::VectorXd& normal, Eigen::VectorXd& z, Eigen::VectorXd& r) {
    const int q = size();
    d_.noalias() = J_.transpose() * normal;
    r = R_.topLeftCorner(q, q).triangularView<Eigen::Upper>().solve(d_.head(q));
    if (d_.tail(n_ - q).norm() <= kDependence * d_.norm()) {
      z.setZero(n_);
      return false;
    }
    z.noalias() = J_.rightCols(n_ - q) * d_.tail(n_ - q);
    return true;
  }

 private:
  int n_;
  Eigen::MatrixXd J_;  ///< n x n
  Eigen::MatrixXd R_;  ///< its top-left q x q triangle is R
  Eigen::VectorXd d_;  ///< J^T n of the last normal
  std::vector<int> ids_;
  std::vector<double> u_;
};

/// @throws InvalidArgumentError naming what does not fit.
void checkProblem(const QuadraticProgram& qp, const std::vector<int>& warm_start) {
  const Eigen::Index n = qp.H.rows();
  const auto fail = [](const std::string& what) {
    throw InvalidArgumentError("QpSolver::solve: " + what);
  };
  if (qp.H.cols() != n || qp.g.size() != n) fail("H must be n x n and g of size n");
  if (qp.A_eq.cols() != n && qp.A_eq.rows() > 0) fail("A_eq must have n columns");
  if (qp.A_in.cols() != n && qp.A_in.rows() > 0) fail("A_in must have n columns");
  if (qp.b_eq.size() != qp.A_eq.rows()) fail("b_eq must have one entry per row of A_eq");
  if (qp.b_in.size() != qp.A_in.rows()) fail("b_in must have one entry per row of A_in");
  for (const auto& [name, finite] :
       {std::pair{"H", qp.H.allFinite()}, std::pair{"g", qp.g.allFinite()},
        std::pair{"A_eq", qp.A_eq.allFinite()}, std::pair{"b_eq", qp.b_eq.allFinite()},
        std::pair{"A_in", qp.A_in.allFinite()}, std::pair{"b_in", qp.b_in.allFinite()}}) {
    if (!finite) fail(std::string(name) + " is not finite");
  }
  for (int i : warm_start) {
    if (i < 0 || i >= qp.A_in.rows()) {
      fail("warm-start index " + std::to_string(i) + " is not an inequality (there are " +
           std::to_string(qp.A_in.rows()) + ")");
    }
  }
}

}  // namespace

const char* toString(QpStatus status) {
  switch (status) {
    case QpStatus::Solved:
      return "solved";
    case QpStatus::Infeasible:
      return "infeasible";
    case QpStatus::NotConvex:
      return "not convex";
    case QpStatus::IterationLimit:
      return "iteration limit";
  }
  return "?";
}

QpSolver::QpSolver(double tolerance, int max_iterations)
    : tolerance_(tolerance), max_iterations_(max_iterations) {
  if (!(tolerance > 0.0) || max_iterations < 0) {
    throw InvalidArgumentError(
        "QpSolver: the tolerance must be positive and the iteration "
        "limit not negative");
  }
}

namespace {

/// One solve's state: the iterate, the active set, the count of steps.
struct Iterate {
  const QuadraticProgram& qp;
  double tolerance;
  int max_iterations;
  Eigen::VectorXd x;
  ActiveSet active;
  int iterations = 0;
  std::vector<bool> is_active;  ///< per inequality

  /// How far inequality i is from being violated: (A_in x - b_in)_i, negative when violated.
  double slack(int i) const { return qp.A_in.row(i).dot(x) - qp.b_in(i); }
  double allowance(double b) const { return tolerance * (1.0 + std::abs(b)); }
};

/// Adds equality i (a full step onto it). @return "" or why it cannot be added.
std::string addEquality(Iterate& it, int i) {
  const Eigen::VectorXd normal = it.qp.A_eq.row(i).transpose();
  const double s = normal.dot(it.x) - it.qp.b_eq(i);
  Eigen::VectorXd z, r;
  if (!it.active.directions(normal, z, r)) {
    // A combination of the equalities before it: redundant if it holds, else contradictory.
    if (std::abs(s) <= it.allowance(it.qp.b_eq(i))) return "";
    return "equality " + std::to_string(i) + " contradicts the equalities before it (off by " +
           std::to_string(s) + ")";
  }
  const double t = -s / z.dot(normal);
  it.x += t * z;
  for (int j = 0; j < it.active.size(); ++j) it.active.multiplier(j) -= t * r(j);
  it.active.add(normal, -1 - i, t);
  ++it.iterations;
  return "";
}

/// The most violated inequality, the warm-start ones first; -1 when none is violated.
int mostViolated(const Iterate& it, const std::vector<int>& warm_start) {
  int worst = -1;
  double worst_slack = 0.0;
  for (int i : warm_start) {
    const double s = it.slack(i);
    if (!it.is_active[i] && s < -it.allowance(it.qp.b_in(i)) && s < worst_slack) {
      worst = i;
      worst_slack = s;
    }
  }
  if (worst >= 0) return worst;
  for (int i = 0; i < it.qp.A_in.rows(); ++i) {
    const double s = it.slack(i);
    if (!it.is_active[i] && s < -it.allowance(it.qp.b_in(i)) && s < worst_slack) {
      worst = i;
      worst_slack = s;
    }
  }
  return worst;
}

/// Adds inequality p, dropping active inequalities whose multipliers would turn negative
/// (Goldfarb & Idnani's steps 2 and 3). @return "" or why it cannot be added (infeasible).
std::string addInequality(Iterate& it, int p) {
  const Eigen::VectorXd normal = it.qp.A_in.row(p).transpose();
  double u_p = 0.0;
  Eigen::VectorXd z, r;
  while (it.iterations++ < it.max_iterations) {
    const bool primal = it.active.directions(normal, z, r);
    // The dual step: the largest that keeps the active inequalities' multipliers >= 0.
    double t_dual = kInfinity;
    int blocking = -1;
    for (int j = 0; j < it.active.size(); ++j) {
      if (it.active.id(j) < 0 || r(j) <= 0.0) continue;
      const double t = it.active.multiplier(j) / r(j);
      if (t < t_dual) {
        t_dual = t;
        blocking = j;
      }
    }
    const double t_primal = primal ? -it.slack(p) / z.dot(normal) : kInfinity;
    if (blocking < 0 && !primal) {
      return "inequality " + std::to_string(p) +
             " cannot hold with the active constraints: " + "the problem is infeasible";
    }
    const double t = std::min(t_dual, t_primal);
    if (primal) it.x += t * z;
    for (int j = 0; j < it.active.size(); ++j) it.active.multiplier(j) -= t * r(j);
    u_p += t;
    if (primal && t_primal <= t_dual) {
      it.active.add(normal, p, u_p);
      it.is_active[p] = true;
      return "";
    }
    it.is_active[it.active.id(blocking)] = false;
    it.active.drop(blocking);
  }
  return "more than " + std::to_string(it.max_iterations) + " steps";
}

/// The result at the iterate: x, multipliers, active inequalities, cost.
QpResult resultOf(const Iterate& it, QpStatus status, std::string message) {
  QpResult result;
  result.status = status;
  result.message = std::move(message);
  result.x = it.x;
  result.y = Eigen::VectorXd::Zero(it.qp.A_eq.rows());
  result.lambda = Eigen::VectorXd::Zero(it.qp.A_in.rows());
  const ActiveSet& active = it.active;
  for (int j = 0; j < active.size(); ++j) {
    const int id = active.id(j);
    if (id < 0) {
      result.y(-1 - id) = active.multiplier(j);
    } else {
      // Non-negative by the steps; a tie can leave round-off below zero.
      result.lambda(id) = std::max(0.0, active.multiplier(j));
      result.active.push_back(id);
    }
  }
  result.cost = 0.5 * it.x.dot(it.qp.H * it.x) + it.qp.g.dot(it.x);
  result.iterations = std::min(it.iterations, it.max_iterations);
  return result;
}

}  // namespace

QpResult QpSolver::solve(const QuadraticProgram& qp, const std::vector<int>& warm_start) {
  checkProblem(qp, warm_start);
  const int n = static_cast<int>(qp.H.rows());
  const int constraints = static_cast<int>(qp.A_eq.rows() + qp.A_in.rows());
  const Eigen::LLT<Eigen::MatrixXd> llt(qp.H);
  Iterate it{qp,
             tolerance_,
             max_iterations_ > 0 ? max_iterations_ : 10 * (n + constraints) + 10,
             Eigen::VectorXd::Zero(n),
             ActiveSet(llt, n),
             0,
             std::vector<bool>(qp.A_in.rows(), false)};
  if (llt.info() != Eigen::Success || !qp.H.isApprox(qp.H.transpose(), 1e-12)) {
    return resultOf(it, QpStatus::NotConvex, "H is not symmetric positive definite");
  }
  // The unconstrained minimum, then the equalities, then the violated inequalities one by one.
  it.x = -llt.solve(qp.g);
  for (int i = 0; i < qp.A_eq.rows(); ++i) {
    std::string why = addEquality(it, i);
    if (!why.empty()) return resultOf(it, QpStatus::Infeasible, std::move(why));
  }
  for (int p; (p = mostViolated(it, warm_start)) >= 0;) {
    std::string why = addInequality(it, p);
    if (why.empty()) continue;
    const QpStatus status =
        it.iterations > it.max_iterations ? QpStatus::IterationLimit : QpStatus::Infeasible;
    return resultOf(it, status, std::move(why));
  }
  return resultOf(it, QpStatus::Solved, "");
}

}  // namespace gcbridge
