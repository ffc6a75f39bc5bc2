#include "gcbridge/controllers/quadratic_program.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Jacobi>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gcbridge/dynamics/detail/finite.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

using detail::QpWorkspace;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// A normal is in the active normals' span when the part of it outside is below this, relative.
constexpr double kDependence = 1e3 * std::numeric_limits<double>::epsilon();
/// A guessed set's KKT system is solved only while its factor's smallest diagonal entry is above
/// this times its largest (the normals far from dependent); else the dual method, which handles
/// dependent normals, decides.
constexpr double kGuessConditioning = 1e-6;

/// A constraint's normal: a row of A_eq or A_in, zero outside columns [first, first + count).
struct Normal {
  Eigen::Block<const Eigen::MatrixXd, 1, Eigen::Dynamic> values;  ///< the columns from first
  int first;
  Normal(const Eigen::MatrixXd& A, int row, int first, int count)
      : values(A, row, first, 1, count), first(first) {}
  double dot(const Eigen::VectorXd& x) const {
    return values.dot(x.segment(first, values.size()).transpose());
  }
};

/// A plane rotation that takes (a, b) to (hypot(a, b), 0): it makes two columns (x, y) into
/// (c x + s y, -s x + c y), and two rows alike.
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
  template <typename M>
  void rotateColumns(M&& two_columns) const {
    two_columns.applyOnTheRight(0, 1, Eigen::JacobiRotation<double>(c, -s));
  }
  template <typename M>
  void rotateRows(M&& two_rows) const {
    two_rows.applyOnTheLeft(0, 1, Eigen::JacobiRotation<double>(c, s));
  }
};

/// The active constraints, their multipliers, and the step directions for a constraint to add,
/// kept as Goldfarb & Idnani's factors in a workspace: with H = L L^T and the active normals N
/// (n x q), L^-1 N = Q [R; 0], the matrix J = L^-T Q and the upper triangular R, updated by plane
/// rotations as constraints are added and dropped (O(n^2) each).
class ActiveSet {
 public:
  /// No constraint active: J = L^-T for the workspace's factor of H.
  ActiveSet(QpWorkspace& w, int n) : w_(w), n_(n) {
    w.J.setIdentity(n, n);
    w.llt.matrixU().solveInPlace(w.J);
    w.R.resize(n, n);
    w.ids.clear();
    w.u.clear();
  }

  int size() const { return static_cast<int>(w_.ids.size()); }
  /// The constraint at `position`: an equality (-1 - i) or an inequality (i).
  int id(int position) const { return w_.ids[position]; }
  double& multiplier(int position) { return w_.u[position]; }
  double multiplier(int position) const { return w_.u[position]; }

  /// Adds the normal (J's columns from q on rotated so that J^T normal has zeros below q + 1).
  void add(const Normal& normal, int id, double multiplier) {
    const int q = size();
    project(normal);
    for (int j = n_ - 1; j > q; --j) {
      const Givens g(w_.d(j - 1), w_.d(j));
      g.rotateColumns(w_.J.middleCols(j - 1, 2));
      w_.d(j - 1) = g.h;
      w_.d(j) = 0.0;
    }
    w_.R.col(q).head(q + 1) = w_.d.head(q + 1);
    w_.ids.push_back(id);
    w_.u.push_back(multiplier);
  }

  /// Drops the constraint at `position`, restoring R's triangle by rotations of its rows (and of
  /// J's columns alike).
  void drop(int position) {
    const int q = size();
    for (int k = position; k + 1 < q; ++k) w_.R.col(k).head(k + 2) = w_.R.col(k + 1).head(k + 2);
    for (int j = position; j + 1 < q; ++j) {
      const Givens g(w_.R(j, j), w_.R(j + 1, j));
      g.rotateRows(w_.R.block(j, j, 2, q - 1 - j));
      g.rotateColumns(w_.J.middleCols(j, 2));
      w_.R(j + 1, j) = 0.0;
    }
    w_.ids.erase(w_.ids.begin() + position);
    w_.u.erase(w_.u.begin() + position);
  }

  /// For the normal n: the primal direction z = J2 J2^T n (zero when n lies in the active
  /// normals' span, kDependence relative) and the dual one r = R^-1 J1^T n (its first q
  /// entries), with J = [J1 J2] split after the q active columns; into the workspace's z and r.
  /// @return whether z is nonzero.
  bool directions(const Normal& normal) {
    const int q = size();
    project(normal);
    w_.r.head(q) = w_.d.head(q);
    w_.R.topLeftCorner(q, q).triangularView<Eigen::Upper>().solveInPlace(w_.r.head(q));
    if (w_.d.tail(n_ - q).norm() <= kDependence * w_.d.norm()) {
      w_.z.setZero();
      return false;
    }
    w_.z.noalias() = w_.J.rightCols(n_ - q) * w_.d.tail(n_ - q);
    return true;
  }

 private:
  /// d = J^T normal, from the normal's nonzero columns.
  void project(const Normal& normal) {
    if (normal.values.size() == 0) {
      w_.d.setZero();
      return;
    }
    w_.d.noalias() =
        w_.J.middleRows(normal.first, normal.values.size()).transpose() * normal.values.transpose();
  }

  QpWorkspace& w_;
  int n_;
};

/// Each row's nonzero columns: [first, first + count), count 0 (first 0) for a zero row.
void findNonzeroColumns(const Eigen::MatrixXd& A, std::vector<int>& first,
                        std::vector<int>& count) {
  const int rows = static_cast<int>(A.rows()), cols = static_cast<int>(A.cols());
  first.assign(rows, cols);
  count.assign(rows, 0);
  // By columns, without branches: count holds each row's last nonzero column + 1 until the end.
  for (int c = 0; c < cols; ++c) {
    for (int i = 0; i < rows; ++i) {
      const bool nonzero = A(i, c) != 0.0;
      first[i] = nonzero && c < first[i] ? c : first[i];
      count[i] = nonzero ? c + 1 : count[i];
    }
  }
  for (int i = 0; i < rows; ++i) {
    count[i] = std::max(count[i] - first[i], 0);
    if (count[i] == 0) first[i] = 0;
  }
}

/// Whether H is symmetric: no entry off its transpose by more than 1e-12 of H's largest.
bool isSymmetric(const Eigen::MatrixXd& H) {
  const double allowed = 1e-12 * H.cwiseAbs().maxCoeff();
  for (Eigen::Index j = 0; j < H.cols(); ++j) {
    for (Eigen::Index i = j + 1; i < H.rows(); ++i) {
      if (!(std::abs(H(i, j) - H(j, i)) <= allowed)) return false;
    }
  }
  return true;
}

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
       {std::pair{"H", detail::allFinite(qp.H)}, std::pair{"g", detail::allFinite(qp.g)},
        std::pair{"A_eq", detail::allFinite(qp.A_eq)},
        std::pair{"b_eq", detail::allFinite(qp.b_eq)},
        std::pair{"A_in", detail::allFinite(qp.A_in)},
        std::pair{"b_in", detail::allFinite(qp.b_in)}}) {
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

/// The problem and the workspace (its iterate w.x) of one solve.
struct Problem {
  const QuadraticProgram& qp;
  QpWorkspace& w;
  double tolerance;

  Normal equality(int i) const { return Normal(qp.A_eq, i, 0, static_cast<int>(qp.A_eq.cols())); }
  Normal inequality(int i) const { return Normal(qp.A_in, i, w.first[i], w.count[i]); }
  /// How far inequality i is from being violated at x: (A_in x - b_in)_i, negative when violated.
  double slack(int i, const Eigen::VectorXd& x) const { return inequality(i).dot(x) - qp.b_in(i); }
  double slack(int i) const { return slack(i, w.x); }
  double allowance(double b) const { return tolerance * (1.0 + std::abs(b)); }
};

/// The dual method's state: the problem, the active set, the count of steps.
struct Iterate : Problem {
  int max_iterations;
  ActiveSet active;
  int iterations = 0;
};

/// Adds equality i (a full step onto it). @return "" or why it cannot be added.
std::string addEquality(Iterate& it, int i) {
  QpWorkspace& w = it.w;
  const Normal normal = it.equality(i);
  const double s = normal.dot(w.x) - it.qp.b_eq(i);
  if (!it.active.directions(normal)) {
    // A combination of the equalities before it: redundant if it holds, else contradictory.
    if (std::abs(s) <= it.allowance(it.qp.b_eq(i))) return "";
    return "equality " + std::to_string(i) + " contradicts the equalities before it (off by " +
           std::to_string(s) + ")";
  }
  const double t = -s / normal.dot(w.z);
  w.x += t * w.z;
  for (int j = 0; j < it.active.size(); ++j) it.active.multiplier(j) -= t * w.r(j);
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
    if (!it.w.is_active[i] && s < -it.allowance(it.qp.b_in(i)) && s < worst_slack) {
      worst = i;
      worst_slack = s;
    }
  }
  if (worst >= 0) return worst;
  for (int i = 0; i < it.qp.A_in.rows(); ++i) {
    const double s = it.slack(i);
    if (!it.w.is_active[i] && s < -it.allowance(it.qp.b_in(i)) && s < worst_slack) {
      worst = i;
      worst_slack = s;
    }
  }
  return worst;
}

/// Adds inequality p, dropping active inequalities whose multipliers would turn negative
/// (Goldfarb & Idnani's steps 2 and 3). @return "" or why it cannot be added (infeasible).
std::string addInequality(Iterate& it, int p) {
  QpWorkspace& w = it.w;
  const Normal normal = it.inequality(p);
  double u_p = 0.0;
  while (it.iterations++ < it.max_iterations) {
    const bool primal = it.active.directions(normal);
    // The dual step: the largest that keeps the active inequalities' multipliers >= 0.
    double t_dual = kInfinity;
    int blocking = -1;
    for (int j = 0; j < it.active.size(); ++j) {
      if (it.active.id(j) < 0 || w.r(j) <= 0.0) continue;
      const double t = it.active.multiplier(j) / w.r(j);
      if (t < t_dual) {
        t_dual = t;
        blocking = j;
      }
    }
    const double t_primal = primal ? -it.slack(p) / normal.dot(w.z) : kInfinity;
    if (blocking < 0 && !primal) {
      return "inequality " + std::to_string(p) +
             " cannot hold with the active constraints: " + "the problem is infeasible";
    }
    const double t = std::min(t_dual, t_primal);
    if (primal) w.x += t * w.z;
    for (int j = 0; j < it.active.size(); ++j) it.active.multiplier(j) -= t * w.r(j);
    u_p += t;
    if (primal && t_primal <= t_dual) {
      it.active.add(normal, p, u_p);
      w.is_active[p] = 1;
      return "";
    }
    w.is_active[it.active.id(blocking)] = 0;
    it.active.drop(blocking);
  }
  return "more than " + std::to_string(it.max_iterations) + " steps";
}

/// b_N - N^T x for the guess's constraints (the equalities, then the guessed inequalities).
void guessResiduals(const Problem& p, const std::vector<int>& guess, const Eigen::VectorXd& x,
                    Eigen::Ref<Eigen::VectorXd> residual) {
  const int m_eq = static_cast<int>(p.qp.A_eq.rows());
  for (int j = 0; j < residual.size(); ++j) {
    residual(j) = j < m_eq ? p.qp.b_eq(j) - p.equality(j).dot(x) : -p.slack(guess[j - m_eq], x);
  }
}

/// The guess's normals N (the equalities', then the guessed inequalities') into W's first k
/// columns.
void guessNormals(const Problem& p, const std::vector<int>& guess, int k) {
  const int m_eq = static_cast<int>(p.qp.A_eq.rows());
  for (int j = 0; j < k; ++j) {
    const Normal normal = j < m_eq ? p.equality(j) : p.inequality(guess[j - m_eq]);
    auto column = p.w.W.col(j);
    column.setZero();
    column.segment(normal.first, normal.values.size()) = normal.values.transpose();
  }
}

/// Whether every constraint holds at x (within the allowance) and the guessed inequalities'
/// multipliers (mu's entries from m_eq on) are not negative: with x = x0 + H^-1 N mu, the KKT
/// conditions.
bool meetsKkt(const Problem& p, const Eigen::VectorXd& x,
              const Eigen::Ref<const Eigen::VectorXd>& mu) {
  const QuadraticProgram& qp = p.qp;
  const int m_eq = static_cast<int>(qp.A_eq.rows());
  const double mu_floor = -kDependence * (1.0 + mu.cwiseAbs().maxCoeff());
  if (mu.size() > m_eq && !(mu.tail(mu.size() - m_eq).minCoeff() >= mu_floor)) return false;
  for (int i = 0; i < m_eq; ++i) {
    if (!(std::abs(p.equality(i).dot(x) - qp.b_eq(i)) <= p.allowance(qp.b_eq(i)))) return false;
  }
  for (int i = 0; i < qp.A_in.rows(); ++i) {
    if (!(p.slack(i, x) >= -p.allowance(qp.b_in(i)))) return false;
  }
  return true;
}

/// The guess (the header's comment), from the unconstrained minimum x0 in w.x: with N the
/// normals of the equalities and the guessed inequalities and W = L^-1 N, the minimum where they
/// all hold is x0 + L^-T W mu with (W^T W) mu = b_N - N^T x0, mu their multipliers; one step of
/// iterative refinement (the same solve on the residuals) takes out the round-off that H's
/// condition number brings. @return whether it meets the KKT conditions; then w.x, w.ids and
/// w.u are it.
bool solveOnGuess(const Problem& p, const std::vector<int>& guess) {
  QpWorkspace& w = p.w;
  const int n = static_cast<int>(p.qp.H.rows()), m_eq = static_cast<int>(p.qp.A_eq.rows());
  const int k = m_eq + static_cast<int>(guess.size());
  if (k == 0 || k > n) return false;
  auto W = w.W.leftCols(k);
  guessNormals(p, guess, k);
  w.llt.matrixL().solveInPlace(W);
  // W^T W = L_S L_S^T, in place (its lower triangle by dot products: at these sizes, faster
  // than a blocked product).
  auto S = w.S.topLeftCorner(k, k);
  S.triangularView<Eigen::Lower>() = W.transpose().lazyProduct(W);
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> S_llt(S);
  if (S_llt.info() != Eigen::Success ||
      !(S.diagonal().minCoeff() > kGuessConditioning * S.diagonal().maxCoeff())) {
    return false;
  }
  // z += L^-T W (W^T W)^-1 r for residuals r (replaced by the multipliers' step).
  const auto step = [&](auto&& r) {
    S_llt.solveInPlace(r);
    w.e.noalias() = W * r;
    w.llt.matrixU().solveInPlace(w.e);
    w.z += w.e;
  };
  // z = x0 + L^-T W mu, then the refinement on z's residuals.
  auto mu = w.r.head(k);
  auto residual = w.d.head(k);
  w.z = w.x;
  guessResiduals(p, guess, w.x, mu);
  step(mu);
  guessResiduals(p, guess, w.z, residual);
  step(residual);
  mu += residual;
  if (!meetsKkt(p, w.z, mu)) return false;
  w.x = w.z;
  w.ids.clear();
  w.u.clear();
  for (int j = 0; j < k; ++j) {
    w.ids.push_back(j < m_eq ? -1 - j : guess[j - m_eq]);
    w.u.push_back(mu(j));
  }
  return true;
}

/// The result at the workspace's iterate: x, multipliers, active inequalities, cost.
void writeResult(const QuadraticProgram& qp, QpWorkspace& w, int iterations, QpStatus status,
                 std::string message, QpResult& result) {
  result.status = status;
  result.message = std::move(message);
  result.x = w.x;
  result.y.setZero(qp.A_eq.rows());
  result.lambda.setZero(qp.A_in.rows());
  result.active.clear();
  result.active.reserve(qp.H.rows());
  for (std::size_t j = 0; j < w.ids.size(); ++j) {
    const int id = w.ids[j];
    if (id < 0) {
      result.y(-1 - id) = w.u[j];
    } else {
      // Non-negative by the steps; a tie can leave round-off below zero.
      result.lambda(id) = std::max(0.0, w.u[j]);
      result.active.push_back(id);
    }
  }
  w.d.noalias() = qp.H * w.x;
  result.cost = 0.5 * w.x.dot(w.d) + qp.g.dot(w.x);
  result.iterations = iterations;
}

/// The dual method from the unconstrained minimum in w.x: the equalities, then the violated
/// inequalities one by one, the warm-start ones first.
void solveDual(Iterate& it, const std::vector<int>& warm_start, QpResult& result) {
  const QuadraticProgram& qp = it.qp;
  for (int i = 0; i < qp.A_eq.rows(); ++i) {
    std::string why = addEquality(it, i);
    if (!why.empty()) {
      return writeResult(qp, it.w, it.iterations, QpStatus::Infeasible, std::move(why), result);
    }
  }
  for (int p; (p = mostViolated(it, warm_start)) >= 0;) {
    std::string why = addInequality(it, p);
    if (why.empty()) continue;
    const QpStatus status =
        it.iterations > it.max_iterations ? QpStatus::IterationLimit : QpStatus::Infeasible;
    return writeResult(qp, it.w, std::min(it.iterations, it.max_iterations), status, std::move(why),
                       result);
  }
  writeResult(qp, it.w, it.iterations, QpStatus::Solved, "", result);
}

}  // namespace

QpResult QpSolver::solve(const QuadraticProgram& qp, const std::vector<int>& warm_start) {
  QpResult result;
  solve(qp, warm_start, result);
  return result;
}

void QpSolver::solve(const QuadraticProgram& qp, const std::vector<int>& warm_start,
                     QpResult& result) {
  checkProblem(qp, warm_start);
  QpWorkspace& w = work_;
  const int n = static_cast<int>(qp.H.rows());
  const int constraints = static_cast<int>(qp.A_eq.rows() + qp.A_in.rows());
  w.x.setZero(n);
  w.d.resize(n);
  w.z.resize(n);
  w.r.resize(n);
  w.e.resize(n);
  w.W.resize(n, n);
  w.S.resize(n, n);
  // At most n constraints are active at once (their normals independent).
  w.ids.clear();
  w.u.clear();
  w.ids.reserve(n);
  w.u.reserve(n);
  if (!isSymmetric(qp.H) || !w.llt.compute(qp.H)) {
    return writeResult(qp, w, 0, QpStatus::NotConvex, "H is not symmetric positive definite",
                       result);
  }
  findNonzeroColumns(qp.A_in, w.first, w.count);
  w.is_active.assign(qp.A_in.rows(), 0);
  // The unconstrained minimum; the guess from there, else the dual method.
  const Problem problem{qp, w, tolerance_};
  w.x = -qp.g;
  w.llt.solveInPlace(w.x);
  if (solveOnGuess(problem, warm_start)) {
    const int guessed = static_cast<int>(qp.A_eq.rows() + warm_start.size());
    return writeResult(qp, w, guessed, QpStatus::Solved, "", result);
  }
  Iterate it{problem, max_iterations_ > 0 ? max_iterations_ : 10 * (n + constraints) + 10,
             ActiveSet(w, n)};
  solveDual(it, warm_start, result);
}

}  // namespace gcbridge
