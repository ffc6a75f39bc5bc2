#include "gcbridge/dynamics/aba.hpp"

#include "detail.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {
namespace {

// M X^-1 for the motion transform X from B to P, as columns: X^-1 = [R^T 0; -R^T [p] R^T] with
// R = R_PB and p = p_PoBo_P, so M X^-1 = [M_a R^T - (M_l R^T) [p], M_l R^T] for the angular and
// linear column blocks M_a, M_l of M; column j of Y [p] is Y (p x e_j).
template <typename Derived>
Matrix6 timesInverseMotionTransform(const Transform& X_PB, const Eigen::MatrixBase<Derived>& M) {
  const Matrix3& R = X_PB.rotation();
  const Vector3& p = X_PB.translation();
  Matrix6 out;
  for (int j = 0; j < 3; ++j) {
    out.col(j) = M.col(0) * R(j, 0) + M.col(1) * R(j, 1) + M.col(2) * R(j, 2);
    out.col(3 + j) = M.col(3) * R(j, 0) + M.col(4) * R(j, 1) + M.col(5) * R(j, 2);
  }
  const auto Y = out.rightCols<3>();
  out.col(0) -= p.z() * Y.col(1) - p.y() * Y.col(2);
  out.col(1) -= p.x() * Y.col(2) - p.z() * Y.col(0);
  out.col(2) -= p.y() * Y.col(0) - p.x() * Y.col(1);
  return out;
}

// I_P += X^-T I_B X^-1: an articulated inertia I_B (6x6, symmetric, in B) added to its parent's
// I_P (in P), X the motion transform from B to P (RBDA sec. 2.13; Featherstone's table). With G =
// I_B X^-1, X^-T I_B X^-1 = (G^T) X^-1 since I_B is symmetric: two passes over 6-long columns.
void addInertiaToParent(const Transform& X_PB, const Matrix6& I_B, Matrix6& I_P) {
  const Matrix6 G = timesInverseMotionTransform(X_PB, I_B);
  I_P += timesInverseMotionTransform(X_PB, G.transpose());
}

// Whether link k's articulated inertia and bias force are needed: not when k and all its
// ancestors are welded to the world (no dof on the path, so none before k in the depth-first
// numbering), since the world absorbs whatever reaches them.
bool isArticulated(const Model& model, int k) {
  return k >= 0 && model.joints[k].idx_v + model.joints[k].nv > 0;
}

// D^-1 for a joint's D = S^T Ia S (N x N, symmetric positive definite). Up to 4 x 4 Eigen's
// closed forms; above (the free joint's 6 x 6), where Eigen's general inverse takes a pivoting LU
// and then solves against the identity through its general matrix kernels, by D = L diag(d) L^T
// (L unit lower triangular; Golub & Van Loan sec. 4.1): D^-1 = W^T diag(d)^-1 W with W = L^-1.
// Only D's lower triangle is read; a D that is not positive definite gives a non-finite D^-1.
template <int N>
Eigen::Matrix<double, N, N> jointInertiaInverse(const Eigen::Matrix<double, N, N>& D) {
  if constexpr (N <= 4) {
    return D.inverse();
  } else {
    // L and d column by column.
    Eigen::Matrix<double, N, N> L = Eigen::Matrix<double, N, N>::Identity();
    Eigen::Matrix<double, N, 1> d;
    for (int j = 0; j < N; ++j) {
      d[j] = D(j, j);
      for (int k = 0; k < j; ++k) d[j] -= L(j, k) * L(j, k) * d[k];
      for (int i = j + 1; i < N; ++i) {
        double e = D(i, j);
        for (int k = 0; k < j; ++k) e -= L(i, k) * L(j, k) * d[k];
        L(i, j) = e / d[j];
      }
    }
    // W = L^-1, column by column, by forward substitution.
    Eigen::Matrix<double, N, N> W = Eigen::Matrix<double, N, N>::Identity();
    for (int j = 0; j < N; ++j) {
      for (int i = j + 1; i < N; ++i) {
        double e = 0.0;
        for (int k = j; k < i; ++k) e -= L(i, k) * W(k, j);
        W(i, j) = e;
      }
    }
    return W.transpose() * d.cwiseInverse().asDiagonal() * W;
  }
}

// Pass 2 for joint k given U = Ia S, D = S^T Ia S and S^T pa (N = nv, fixed): stores U, D^-1 and
// u = tau - S^T pa, and hands the articulated inertia and bias force on to the parent.
template <int N>
void articulate(const Model& model, Data& data, int k, const ConstVectorRef& tau,
                const Eigen::Matrix<double, 6, N>& U, const Eigen::Matrix<double, N, N>& D,
                const Eigen::Matrix<double, N, 1>& STpa) {
  const Joint& joint = model.joints[k];
  const Eigen::Matrix<double, N, N> Dinv = jointInertiaInverse<N>(D);
  const Eigen::Matrix<double, N, 1> u = tau.segment<N>(joint.idx_v) - STpa;
  data.U.middleCols<N>(joint.idx_v) = U;
  data.Dinv[k].topLeftCorner<N, N>() = Dinv;
  data.u.segment<N>(joint.idx_v) = u;
  const int p = model.parents[k];
  if (!isArticulated(model, p)) return;
  const Eigen::Matrix<double, 6, N> UDinv = U * Dinv;
  const Matrix6 Ia_a = data.Ia_B[k] - UDinv * U.transpose();
  const Vector6 pa_a = data.pa_B[k].vector() + Ia_a * data.c_B[k].vector() + UDinv * u;
  addInertiaToParent(data.X_PB[k], Ia_a, data.Ia_B[p]);
  data.X_PB[k].addAct(Force(pa_a), data.pa_B[p]);
}

// Pass 2 for joint k: its kernel's U = Ia S, D and S^T pa (articulate), or, for a joint with no
// dof, the link's inertia and bias force handed on to the parent as they are.
template <typename K>
void articulateJoint(const Model& model, Data& data, int k, const ConstVectorRef& tau) {
  const Joint& joint = model.joints[k];
  const Matrix6& Ia = data.Ia_B[k];
  const Vector6& pa = data.pa_B[k].vector();
  if constexpr (K::nv == 0) {
    const int p = model.parents[k];
    if (!isArticulated(model, p)) return;
    addInertiaToParent(data.X_PB[k], Ia, data.Ia_B[p]);
    data.X_PB[k].addAct(Force(Vector6(pa + Ia * data.c_B[k].vector())), data.pa_B[p]);
  } else {
    Eigen::Matrix<double, 6, K::nv> U;
    Eigen::Matrix<double, K::nv, K::nv> D;
    Eigen::Matrix<double, K::nv, 1> STpa;
    K::articulatedTerms(joint, data, Ia, pa, U, D, STpa);
    articulate<K::nv>(model, data, k, tau, U, D, STpa);
  }
}

// Pass 3 for joint k: qdd = Dinv (u - U^T A), then A += S qdd.
template <typename K>
void accelerateJoint(const Joint& joint, Data& data, int k, Motion& A) {
  if constexpr (K::nv == 1) {
    // In scalars, U . A by halves.
    const int i = joint.idx_v;
    const auto U = data.U.col(i);
    const double UA = U.head<3>().dot(A.angular()) + U.tail<3>().dot(A.linear());
    const double qdd = data.Dinv[k](0, 0) * (data.u[i] - UA);
    data.qdd[i] = qdd;
    K::addSubspaceTimes(joint, data, &qdd, A);
  } else if constexpr (K::nv > 0) {
    const int i = joint.idx_v;
    const Eigen::Matrix<double, K::nv, 1> qdd =
        data.Dinv[k].template topLeftCorner<K::nv, K::nv>() *
        (data.u.template segment<K::nv>(i) -
         data.U.template middleCols<K::nv>(i).transpose() * A.vector());
    data.qdd.template segment<K::nv>(i) = qdd;
    K::addSubspaceTimes(joint, data, qdd.data(), A);
  }
}

GCBRIDGE_FLATTEN void abaPasses(const Model& model, Data& data, const ConstVectorRef& q,
                                const ConstVectorRef& v, const ConstVectorRef& tau,
                                bool with_external) {
  const int n = model.numLinks();
  // Pass 1 (root to leaves): velocities, velocity-product accelerations, rigid-body inertias
  // and bias forces. Spatial vectors are built from their 3-vector halves (as in rnea).
  for (int k = 0; k < n; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    Motion& V = data.V_WB_B[k];
    Motion& c = data.c_B[k];
    if (p < 0) {
      V.vector().setZero();
    } else {
      data.X_PB[k].actInv(data.V_WB_B[p], V);
    }
    // c = V x (S v) (+ dS/dt v when S depends on q); V += S v.
    c.vector().setZero();
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      const double* v_joint = v.data() + joint.idx_v;
      K::addVelocityProduct(joint, data, V, v_joint, c);
      if constexpr (K::subspace_depends_on_q) c += K::bias(joint, q.data() + joint.idx_q, v_joint);
      K::addSubspaceTimes(joint, data, v_joint, V);
    });
    data.Ia_B[k] = model.inertia_matrices[k];
    detail::velocityProductForce(model.inertias[k], V, data.pa_B[k]);
    if (with_external) data.pa_B[k] -= data.fext_B[k];
  }
  // Pass 2 (leaves to root): articulated inertias and bias forces, each joint's S spelled out by
  // its kernel.
  for (int k = n - 1; k >= 0; --k) {
    joints::dispatch(model.joints[k], [&](auto kernel) {
      articulateJoint<decltype(kernel)>(model, data, k, tau);
    });
  }
  // Pass 3 (root to leaves): accelerations; the world accelerates upward at -g.
  const Motion a_world(Vector3::Zero(), Vector3(-model.gravity_W));
  for (int k = 0; k < n; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    Motion& A = data.A_spatial_WB_B[k];
    const Motion& c = data.c_B[k];
    // A = X^-1 A_P + c, by halves.
    data.X_PB[k].actInv(p < 0 ? a_world : data.A_spatial_WB_B[p], A);
    A.angular() += c.angular();
    A.linear() += c.linear();
    joints::dispatch(joint, [&](auto kernel) {
      accelerateJoint<decltype(kernel)>(joint, data, k, A);
    });
  }
}

}  // namespace

const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau) {
  checkData(model, data, "aba");
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  validateVelocity(model, tau, "tau");
  return detail::abaUnchecked(model, data, q, v, tau);
}

const Eigen::VectorXd& detail::abaUnchecked(const Model& model, Data& data, const ConstVectorRef& q,
                                            const ConstVectorRef& v, const ConstVectorRef& tau) {
  detail::updateJointPlacements(model, data, q);
  abaPasses(model, data, q, v, tau, false);
  return data.qdd;
}

const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau,
                           const ExternalForces& f_ext) {
  checkData(model, data, "aba");
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  validateVelocity(model, tau, "tau");
  forwardKinematics(model, data, q);
  detail::externalForcesToLinkFrames(model, data, f_ext);
  abaPasses(model, data, q, v, tau, true);
  return data.qdd;
}

}  // namespace gcbridge
