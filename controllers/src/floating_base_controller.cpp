#include "gcbridge/controllers/floating_base_controller.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "checks.hpp"
#include "friction_pyramid.hpp"
#include "gcbridge/dynamics/centroidal.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/detail/finite.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {
namespace {

constexpr auto kSolverNames = detail::enumNames<FloatingBaseSolver>(
    {{FloatingBaseSolver::Projected, "projected"}, {FloatingBaseSolver::Qp, "qp"}});
constexpr auto kStatusNames =
    detail::enumNames<FloatingBaseStatus>({{FloatingBaseStatus::Ok, "ok"},
                                           {FloatingBaseStatus::TargetMoved, "target moved"},
                                           {FloatingBaseStatus::TorqueLimited, "torque limited"},
                                           {FloatingBaseStatus::NoContacts, "no contacts"},
                                           {FloatingBaseStatus::QpFailed, "qp failed"},
                                           {FloatingBaseStatus::NotFinite, "not finite"}});

/// The QP solver's tolerance on the constraints, relative (QpSolver).
constexpr double kQpTolerance = 1e-10;

/// @throws InvalidArgumentError naming the gain that is negative or not finite.
void checkGains(const FloatingBaseGains& g) {
  const std::pair<const char*, double> gains[] = {
      {"com_stiffness", g.com_stiffness},
      {"com_damping", g.com_damping},
      {"angular_momentum_damping", g.angular_momentum_damping},
      {"orientation_stiffness", g.orientation_stiffness},
      {"orientation_damping", g.orientation_damping},
      {"posture_stiffness", g.posture_stiffness},
      {"posture_damping", g.posture_damping},
      {"contact_damping", g.contact_damping},
      {"com_weight", g.com_weight},
      {"angular_momentum_weight", g.angular_momentum_weight},
      {"orientation_weight", g.orientation_weight},
      {"posture_weight", g.posture_weight},
      {"contact_weight", g.contact_weight},
      {"force_weight", g.force_weight},
      {"min_normal_force", g.min_normal_force}};
  for (const auto& [name, value] : gains) {
    if (!std::isfinite(value) || value < 0.0) {
      throw InvalidArgumentError(std::string("FloatingBaseGains::") + name + " = " +
                                 std::to_string(value) + " must be finite and not negative");
    }
  }
  if (!(g.force_weight > 0.0)) {
    throw InvalidArgumentError(
        "FloatingBaseGains::force_weight = " + std::to_string(g.force_weight) +
        " must be positive: it makes the QP over the forces strictly convex");
  }
  if (g.qp_max_iterations < 0) {
    throw InvalidArgumentError("FloatingBaseGains::qp_max_iterations = " +
                               std::to_string(g.qp_max_iterations) + " is negative");
  }
  if (g.pyramid_sides != 4 && g.pyramid_sides != 8) {
    throw InvalidArgumentError("FloatingBaseGains::pyramid_sides = " +
                               std::to_string(g.pyramid_sides) + " must be 4 or 8");
  }
}

/// The least-norm x of B x = c (least squares if no x solves it): by B^T (B B^T)^-1 c when B has
/// more columns than rows and B B^T is well conditioned, else by a complete orthogonal
/// decomposition.
Eigen::VectorXd leastNormSolution(const Eigen::Ref<const Eigen::MatrixXd>& B,
                                  const Eigen::Ref<const Eigen::VectorXd>& c) {
  // No equation (the contacts reach every dof): the least-norm x is zero.
  if (B.rows() == 0) return Eigen::VectorXd::Zero(B.cols());
  if (B.rows() <= B.cols()) {
    const Eigen::LLT<Eigen::MatrixXd> llt(B * B.transpose());
    const auto diagonal = llt.matrixLLT().diagonal();
    // The factor's diagonal ratio bounds B's condition number from below: the normal equations
    // square it, so they are used only while it stays small.
    if (llt.info() == Eigen::Success && diagonal.minCoeff() > 1e-4 * diagonal.maxCoeff()) {
      return B.transpose() * llt.solve(c);
    }
  }
  return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(B).solve(c);
}

}  // namespace

const char* toString(FloatingBaseSolver solver) { return kSolverNames.name(solver); }
const char* toString(FloatingBaseStatus status) { return kStatusNames.name(status); }

void ContactAwareController::setContacts(const std::vector<ContactPoint>& contacts) {
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    try {
      checkContactPoint(*model_, contacts[i], "setContacts");
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError("contact " + std::to_string(i) + ": " + e.what());
    }
  }
  contacts_ = contacts;
}

FloatingBaseController::FloatingBaseController(const Model& model, FloatingBaseSolver solver,
                                               const FloatingBaseGains& gains)
    : ContactAwareController(model),
      solver_(solver),
      ref_data_(model),
      M_(model.nv, model.nv),
      A_G_(6, model.nv),
      H_aa_(model.nv, model.nv),
      h_(model.nv),
      g_a_(model.nv),
      a_(Eigen::VectorXd::Zero(model.nv)),
      tau_last_finite_(Eigen::VectorXd::Zero(model.nv)),
      plan_lag_(Eigen::VectorXd::Zero(model.nv)),
      target_acceleration_(Eigen::VectorXd::Zero(model.nv)) {
  if (model.joints.empty() || model.joints[0].type != JointType::Free) {
    throw InvalidArgumentError("FloatingBaseController: the model '" + model.name +
                               "' needs a free root joint (a floating base)");
  }
  setGains(gains);
}

void FloatingBaseController::setGains(const FloatingBaseGains& gains) {
  checkGains(gains);
  gains_ = gains;
  qp_solver_ = QpSolver(kQpTolerance, gains.qp_max_iterations);
  qp_limits_solver_ = qp_solver_;
}

const Eigen::VectorXd& FloatingBaseController::compute(double t, const Eigen::VectorXd& q,
                                                       const Eigen::VectorXd& v) {
  updateErrors(t, q, v);
  status_ = FloatingBaseStatus::Ok;
  message_.clear();
  solved_contacts_ = contacts_;
  computeTerms(q, v);
  placeComTarget();
  if (contacts_.empty()) {
    report(FloatingBaseStatus::NoContacts,
           {"no contacts: the root cannot be held; joint-space computed torque of the joints"});
    jointComputedTorque();
  } else {
    solve(v);
  }
  if (!detail::allFinite(tau_unsaturated_) || !detail::allFinite(a_) || !detail::allFinite(f_) ||
      !com_target_.allFinite()) {
    report(FloatingBaseStatus::NotFinite,
           {"a non-finite result (the state or the contacts are degenerate): the last finite "
            "torques"});
    tau_unsaturated_ = tau_last_finite_;
    a_.setZero();
    f_.setZero();
    com_target_ = com_;
  }
  root_residual_ = M_.topRows<6>() * a_ + h_.head<6>() - J_c_.leftCols<6>().transpose() * f_;
  tau_unsaturated_.head<6>().setZero();
  tau_last_finite_ = tau_unsaturated_;
  aimMotors(t, q, v);
  return finishTorque();
}

void FloatingBaseController::solve(const Eigen::VectorXd& v) {
  computeTasks(v);
  if (!detail::allFinite(H_aa_) || !detail::allFinite(g_a_)) {
    // Contacts so far out that their terms overflow: nothing to solve (compute's fallback).
    tau_unsaturated_.setConstant(NAN);
  } else if (solver_ == FloatingBaseSolver::Projected || !solveQp()) {
    solveProjected();
  }
}

void FloatingBaseController::computeTerms(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const int nc = static_cast<int>(contacts_.size());
  M_ = crba(*model_, data_, q);
  h_ = nonLinearEffects(*model_, data_, q, v);
  J_c_.resize(3 * nc, model_->nv);
  dJ_c_v_.resize(3 * nc);
  f_.setZero(3 * nc);
  // The terms of the poses and Jacobians from one pass at q, then those of the velocities (at
  // a = 0) from one pass at (q, v); the centroidal ones from M's and h's root rows.
  computeJointJacobians(*model_, data_, q);
  contactJacobian(*model_, data_, contacts_, J_c_);
  contact_points_W_.resize(nc);
  for (int i = 0; i < nc; ++i) {
    contact_points_W_[i] = data_.X_WB[contacts_[i].link].actPoint(contacts_[i].p_LC);
  }
  com_ = gcbridge::centerOfMass(*model_, data_);
  dA_G_v_ = centroidalTermsFromRootRows(*model_, data_, M_, h_, A_G_);
  computeFrameTaskJacobians();
  forwardKinematics(*model_, data_, q, v, data_.zero_v);
  contactJacobianTimeVariation(*model_, data_, contacts_, dJ_c_v_);
  computeFrameTaskBiases();
}

void FloatingBaseController::report(FloatingBaseStatus status,
                                    std::initializer_list<std::string_view> what) {
  status_ = status;
  if (!message_.empty()) message_ += "; ";
  for (std::string_view part : what) message_ += part;
}

void FloatingBaseController::placeComTarget() {
  // The reference's kinematics, again only when it moved.
  if (reference_q_.size() != reference_.q.size() || reference_q_ != reference_.q) {
    forwardKinematics(*model_, ref_data_, reference_.q);
    reference_q_ = reference_.q;
    reference_com_ = gcbridge::centerOfMass(*model_, ref_data_);
  }
  com_target_ = reference_com_;
  const Vector3 up = model_->gravity_W.norm() > 0.0 ? Vector3(-model_->gravity_W.normalized())
                                                    : Vector3(Vector3::UnitZ());
  // Where the reference has its COM relative to the contact points, now: moved horizontally by
  // the mean of the points' displacements from where the reference has them.
  if (!contacts_.empty()) {
    Vector3 shift = Vector3::Zero();
    for (std::size_t i = 0; i < contacts_.size(); ++i) {
      const ContactPoint& c = contacts_[i];
      shift += contact_points_W_[i] - ref_data_.X_WB[c.link].actPoint(c.p_LC);
    }
    shift /= static_cast<double>(contacts_.size());
    com_target_ += shift - shift.dot(up) * up;
  }
  polygon_.fit(contact_points_W_, up);
  if (polygon_.empty()) return;
  const double outside = polygon_.distanceOutside(com_target_);
  if (outside > 0.0) {
    report(FloatingBaseStatus::TargetMoved,
           {"the reference's COM is ", std::to_string(1e3 * outside),
            " mm outside the support polygon: the target moved over its nearest point"});
    com_target_ = polygon_.nearest(com_target_);
  }
}

void FloatingBaseController::solveProjected() {
  const int nv = model_->nv;
  const int nj = nv - 6;
  a_ = -H_aa_.llt().solve(g_a_);
  // J_c^T = Q [T 0; 0 0] Z^T P^T: Q's first r columns span what the contact forces reach, the
  // rest (Q2) what they do not.
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(J_c_.transpose());
  const int r = static_cast<int>(cod.rank());
  // Q^T [S^T, M a + h], by Q's reflectors.
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(nv, nj + 1);
  rows.bottomLeftCorner(nj, nj).setIdentity();
  rows.col(nj) = M_ * a_ + h_;
  const Eigen::VectorXd needed = rows.col(nj);
  rows.applyOnTheLeft(cod.householderQ().transpose());
  // Q2^T S^T tau = Q2^T (M a + h): the least-norm joint torques (least squares if overdetermined).
  tau_unsaturated_.setZero();
  tau_unsaturated_.tail(nj) =
      leastNormSolution(rows.bottomLeftCorner(nv - r, nj), rows.bottomRightCorner(nv - r, 1));
  // J_c^T f = M a + h - S^T tau: the least-norm contact forces.
  f_ = cod.solve(needed - tau_unsaturated_);
}

void FloatingBaseController::jointComputedTorque() {
  const int nv = model_->nv;
  a_.setZero();
  a_.tail(nv - 6) = reference_.a.tail(nv - 6) + gains_.posture_stiffness * e_q_.tail(nv - 6) +
                    gains_.posture_damping * e_v_.tail(nv - 6);
  tau_unsaturated_ = M_ * a_ + h_;
}

void FloatingBaseController::torqueFromSolution() {
  tau_unsaturated_.noalias() = M_ * a_;
  tau_unsaturated_ += h_;
  tau_unsaturated_.noalias() -= J_c_.transpose() * f_;
}

double FloatingBaseController::contactForceViolation() const {
  double worst = 0.0;
  const int sides = gains_.pyramid_sides;
  for (std::size_t i = 0; i < solved_contacts_.size(); ++i) {
    const ContactPoint& c = solved_contacts_[i];
    const Vector3 f = f_.segment<3>(3 * i);
    worst = std::max(worst, -c.n_W.dot(f));
    // The force's distance outside each side's plane.
    const detail::FrictionPyramid pyramid(c.n_W, c.friction, sides);
    for (int k = 0; k < sides; ++k) {
      worst = std::max(worst, -pyramid.side(k).normalized().dot(f));
    }
  }
  return worst;
}

}  // namespace gcbridge
