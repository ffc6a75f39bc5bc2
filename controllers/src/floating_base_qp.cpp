// FloatingBaseController's quadratic program over (a, f_c). Solved first over f_c alone: for given
// forces, the accelerations that minimize the tasks' cost under the root rows of the equations of
// motion are affine in the forces, so they are eliminated exactly, leaving the forces and their
// friction pyramids. If the torques of that solution keep within the torque limits, it is the
// whole problem's solution too; if not, the whole problem is solved, with the limits.

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <string>

#include "friction_pyramid.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/detail/finite.hpp"

namespace gcbridge {
namespace {

/// The friction rows of `qp` from row 0, the forces' columns starting at `column`: a normal part
/// of at least min_normal_force, inside the friction pyramid. @return the next row.
int fillFrictionRows(const std::vector<ContactPoint>& contacts, const FloatingBaseGains& gains,
                     int column, QuadraticProgram& qp) {
  int row = 0;
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const int col = column + 3 * static_cast<int>(i);
    qp.A_in.block<1, 3>(row, col) = c.n_W.transpose();
    qp.b_in(row++) = gains.min_normal_force;
    const detail::FrictionPyramid pyramid(c.n_W, c.friction, gains.pyramid_sides);
    for (int k = 0; k < gains.pyramid_sides; ++k) {
      qp.A_in.block<1, 3>(row++, col) = pyramid.side(k).transpose();
    }
  }
  return row;
}

/// Solves `qp` into `result`, warm-started by `active` while the problem keeps its shape
/// (`shape`: the number of inequalities and of unknowns); `active` becomes the solution's active
/// set.
void solveWarm(QpSolver& solver, const QuadraticProgram& qp, std::vector<int>& active,
               std::pair<Eigen::Index, Eigen::Index>& shape, QpResult& result) {
  const std::pair<Eigen::Index, Eigen::Index> now{qp.A_in.rows(), qp.H.rows()};
  if (now != shape) active.clear();
  shape = now;
  solver.solve(qp, active, result);
  if (result.status == QpStatus::Solved) {
    active.reserve(qp.H.rows());
    active = result.active;
  } else {
    active.clear();
  }
}

/// "<which> <status> (<solver's message>)".
std::string resultMessage(const char* which, const QpResult& result) {
  return std::string(which) + " " + toString(result.status) + " (" + result.message + ")";
}

}  // namespace

bool FloatingBaseController::solveQp() {
  const int nf = static_cast<int>(J_c_.rows());
  const double body_weight = model_->totalMass() * model_->gravity_W.norm();
  // min 1/2 a^T H a + g^T a subject to M_r a = J_r^T f - h_r (M_r, J_r^T: the root rows and
  // columns). With H = L L^T, V = L^-1 M_r^T and w_0 = L^-1 g: a = L^-T (V lambda - w_0) with
  // the root rows' multipliers lambda from C lambda = J_r^T f - h_r + V^T w_0, C = V^T V the
  // root's Schur complement: lambda = lambda_0 + C^-1 J_r^T f. V^T and w_0^T are the rows M_r
  // and g^T carried along the factorization.
  qp_border_.resize(7, M_.cols());
  qp_border_.topRows<6>() = M_.topRows<6>();
  qp_border_.row(6) = g_a_.transpose();
  if (!H_llt_.compute(H_aa_, qp_border_)) {
    return qpFailed("the tasks' cost is not positive definite");
  }
  const auto V_T = H_llt_.carried().topRows<6>();
  const auto w0_T = H_llt_.carried().row(6);
  const Eigen::Matrix<double, 6, 6> C = V_T.lazyProduct(V_T.transpose());
  const Eigen::LLT<Eigen::Matrix<double, 6, 6>> C_llt(C);
  if (C_llt.info() != Eigen::Success) {
    return qpFailed("the root's Schur complement is not positive definite");
  }
  // With C = L_C L_C^T and B = L_C^-1 J_r^T, the cost in f has the Hessian J_r C^-1 J_r^T = B^T B
  // (exactly symmetric so) and the gradient J_r lambda_0 at f = 0; plus the forces' size.
  qp_B_ = J_c_.leftCols<6>().transpose();
  C_llt.matrixL().solveInPlace(qp_B_);
  Eigen::Matrix<double, 6, 1> lambda_0 = V_T * w0_T.transpose();
  lambda_0 -= h_.head<6>();
  C_llt.solveInPlace(lambda_0);
  qp_.H = qp_B_.transpose().lazyProduct(qp_B_);
  qp_.H.diagonal().array() += gains_.force_weight / std::max(body_weight * body_weight, 1.0);
  qp_.g.noalias() = J_c_.leftCols<6>() * lambda_0;
  qp_.A_eq.resize(0, nf);
  qp_.b_eq.resize(0);
  qp_.A_in.setZero(static_cast<Eigen::Index>(contacts_.size()) * (gains_.pyramid_sides + 1), nf);
  qp_.b_in.setZero(qp_.A_in.rows());
  fillFrictionRows(contacts_, gains_, 0, qp_);
  if (!detail::allFinite(qp_.H) || !detail::allFinite(qp_.g)) {
    return qpFailed("the QP's terms overflow");
  }
  solveWarm(qp_solver_, qp_, qp_active_, qp_shape_, qp_result_);
  if (qp_result_.status != QpStatus::Solved) return qpFailed(resultMessage("QP", qp_result_));
  f_ = qp_result_.x;
  Eigen::Matrix<double, 6, 1> lambda = J_c_.leftCols<6>().transpose() * f_;
  C_llt.solveInPlace(lambda);
  lambda += lambda_0;
  a_.noalias() = V_T.transpose() * lambda;
  a_ -= w0_T.transpose();
  H_llt_.matrixU().solveInPlace(a_);
  torqueFromSolution();
  if (!limits_ || (tau_unsaturated_.cwiseAbs().array() <= limits_->maxAbsTorque().array()).all()) {
    return true;
  }
  return solveQpWithLimits();
}

bool FloatingBaseController::solveQpWithLimits() {
  const int nv = model_->nv;
  const int nf = static_cast<int>(J_c_.rows());
  const int n = nv + nf;
  const double body_weight = model_->totalMass() * model_->gravity_W.norm();
  const Eigen::VectorXd& limits = limits_->maxAbsTorque();
  // The cost: the tasks on a, and the forces' size relative to the weight.
  QuadraticProgram& qp = qp_limits_;
  qp.H.setZero(n, n);
  qp.H.topLeftCorner(nv, nv) = H_aa_.selfadjointView<Eigen::Lower>();
  qp.H.diagonal().tail(nf).setConstant(gains_.force_weight /
                                       std::max(body_weight * body_weight, 1.0));
  qp.g.setZero(n);
  qp.g.head(nv) = g_a_;
  // The root rows of the equations of motion: M_r a - J_c,r^T f = -h_r.
  qp.A_eq.resize(6, n);
  qp.A_eq.leftCols(nv) = M_.topRows<6>();
  qp.A_eq.rightCols(nf) = -J_c_.leftCols<6>().transpose();
  qp.b_eq = -h_.head<6>();
  const int limited = static_cast<int>(
      (limits.tail(nv - 6).array() < std::numeric_limits<double>::infinity()).count());
  qp.A_in.setZero(
      static_cast<Eigen::Index>(contacts_.size()) * (gains_.pyramid_sides + 1) + 2 * limited, n);
  qp.b_in.setZero(qp.A_in.rows());
  int row = fillFrictionRows(contacts_, gains_, nv, qp);
  // |tau_j| <= limit_j with tau_j = M_j a + h_j - (J_c^T)_j f, the limit lowered by more than the
  // solver's tolerance so that the torques never round off past it (by at most a thousandth of
  // the limit, so that the two rows never cross).
  for (int j = 6; j < nv; ++j) {
    if (!std::isfinite(limits(j))) continue;
    for (double sign : {1.0, -1.0}) {
      qp.A_in.block(row, 0, 1, nv) = sign * M_.row(j);
      qp.A_in.block(row, nv, 1, nf) = -sign * J_c_.col(j).transpose();
      const double b = -limits(j) - sign * h_(j);
      qp.b_in(row++) = b + std::min(1e-8 * (1.0 + std::abs(b)), 1e-3 * limits(j));
    }
  }
  solveWarm(qp_limits_solver_, qp, qp_limits_active_, qp_limits_shape_, qp_limits_result_);
  const QpResult& result = qp_limits_result_;
  if (result.status != QpStatus::Solved) {
    return qpFailed(resultMessage("QP with the torque limits", result));
  }
  a_ = result.x.head(nv);
  f_ = result.x.tail(nf);
  torqueFromSolution();
  const int friction_rows = static_cast<int>(contacts_.size()) * (gains_.pyramid_sides + 1);
  const long at_limit = std::count_if(result.active.begin(), result.active.end(),
                                      [friction_rows](int i) { return i >= friction_rows; });
  if (at_limit > 0) {
    report(FloatingBaseStatus::TorqueLimited,
           {std::to_string(at_limit),
            " joint torques at their limits: the tasks are met as well as the limits allow"});
  }
  return true;
}

bool FloatingBaseController::qpFailed(const std::string& why) {
  report(FloatingBaseStatus::QpFailed, {why, ": the projected solver's torques instead"});
  return false;
}

}  // namespace gcbridge
