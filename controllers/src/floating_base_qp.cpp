// FloatingBaseController's quadratic program over x = (a, f_c).

#include <cmath>
#include <string>

#include "friction_pyramid.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"

namespace gcbridge {

bool FloatingBaseController::solveQp() {
  const int nv = model_->nv;
  const int nf = static_cast<int>(J_c_.rows());
  const int n = nv + nf;
  const double weight = model_->totalMass() * model_->gravity_W.norm();
  // The cost: the tasks on a, and the forces' size relative to the weight.
  qp_.H.setZero(n, n);
  qp_.H.topLeftCorner(nv, nv) = H_aa_;
  qp_.H.diagonal().tail(nf).setConstant(gains_.force_weight / std::max(weight * weight, 1.0));
  qp_.g.setZero(n);
  qp_.g.head(nv) = g_a_;
  // The root rows of the equations of motion: M_r a - J_c,r^T f = -h_r.
  qp_.A_eq.resize(6, n);
  qp_.A_eq.leftCols(nv) = M_.topRows<6>();
  qp_.A_eq.rightCols(nf) = -J_c_.leftCols<6>().transpose();
  qp_.b_eq = -h_.head<6>();
  fillInequalities();
  // The last active set is a warm start while the inequalities are the same ones.
  if (qp_.A_in.rows() != qp_rows_ || contacts_.size() != qp_contacts_) qp_active_.clear();
  qp_rows_ = qp_.A_in.rows();
  qp_contacts_ = contacts_.size();
  const QpResult result = qp_solver_.solve(qp_, qp_active_);
  if (result.status != QpStatus::Solved) {
    status_ = FloatingBaseStatus::QpFailed;
    message_ = std::string("QP ") + toString(result.status) + " (" + result.message +
               "): the projected solver's torques instead";
    qp_active_.clear();
    return false;
  }
  qp_active_ = result.active;
  a_ = result.x.head(nv);
  f_ = result.x.tail(nf);
  torqueFromSolution();
  return true;
}

void FloatingBaseController::fillInequalities() {
  const int nv = model_->nv;
  const int nc = static_cast<int>(contacts_.size());
  const int sides = gains_.pyramid_sides;
  const Eigen::VectorXd* limits = limits_ ? &limits_->maxAbsTorque() : nullptr;
  int limited = 0;
  for (int j = 6; limits != nullptr && j < nv; ++j) limited += std::isfinite((*limits)(j)) ? 1 : 0;
  const int n = nv + 3 * nc;
  qp_.A_in.setZero(nc * (sides + 1) + 2 * limited, n);
  qp_.b_in.setZero(qp_.A_in.rows());
  // Each force: a normal part of at least min_normal_force, inside its friction pyramid.
  int row = 0;
  for (int i = 0; i < nc; ++i) {
    const ContactPoint& c = contacts_[i];
    qp_.A_in.block<1, 3>(row, nv + 3 * i) = c.n_W.transpose();
    qp_.b_in(row++) = gains_.min_normal_force;
    for (int k = 0; k < sides; ++k) {
      qp_.A_in.block<1, 3>(row++, nv + 3 * i) =
          detail::pyramidSide(c.n_W, c.friction, sides, k).transpose();
    }
  }
  // |tau_j| <= limit_j with tau_j = M_j a + h_j - (J_c^T)_j f, the limit lowered by more than the
  // solver's tolerance so that the torques never round off past it.
  for (int j = 6; limits != nullptr && j < nv; ++j) {
    const double limit = (*limits)(j);
    if (!std::isfinite(limit)) continue;
    for (double sign : {1.0, -1.0}) {
      qp_.A_in.block(row, 0, 1, nv) = sign * M_.row(j);
      qp_.A_in.block(row, nv, 1, 3 * nc) = -sign * J_c_.col(j).transpose();
      const double b = -limit - sign * h_(j);
      qp_.b_in(row++) = b + 1e-8 * (1.0 + std::abs(b));
    }
  }
}

}  // namespace gcbridge
