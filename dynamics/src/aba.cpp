#include "gcbridge/dynamics/aba.hpp"

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

namespace gcbridge {
namespace {

// The articulated inertia I_B (6x6, in B) expressed in P: X^-T I_B X^-1 with X the motion
// transform from B to P (seed 003's table), by blocks: rotate, then shift the origin by p.
Matrix6 inertiaToParent(const Transform& X_PB, const Matrix6& I_B) {
  const Matrix3& R = X_PB.rotation();
  const Matrix3 A = R * I_B.topLeftCorner<3, 3>() * R.transpose();
  const Matrix3 B = R * I_B.topRightCorner<3, 3>() * R.transpose();
  const Matrix3 C = R * I_B.bottomRightCorner<3, 3>() * R.transpose();
  const Matrix3 P = skew(X_PB.translation());
  const Matrix3 top_right = B + P * C;
  Matrix6 I_P;
  I_P.topLeftCorner<3, 3>() = A + P * B.transpose() - top_right * P;
  I_P.topRightCorner<3, 3>() = top_right;
  I_P.bottomLeftCorner<3, 3>() = top_right.transpose();
  I_P.bottomRightCorner<3, 3>() = C;
  return I_P;
}

void abaPasses(const Model& model, Data& data, const ConstVectorRef& q, const ConstVectorRef& v,
               const ConstVectorRef& tau, bool with_external) {
  const int n = model.numLinks();
  // Pass 1 (root to leaves): velocities, velocity-product accelerations, rigid-body inertias
  // and bias forces.
  for (int k = 0; k < n; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    Motion V = p < 0 ? Motion::Zero() : data.X_PB[k].actInv(data.V_WB_B[p]);
    Motion c = Motion::Zero();
    if (joint.nv > 0) {
      const Motion Sv(detail::subspaceTimes(data, joint, v.data() + joint.idx_v));
      V += Sv;
      c = V.cross(Sv);
      if (motionSubspaceDependsOnQ(joint)) {
        c += jointBiasAcceleration(joint, q.data() + joint.idx_q, v.data() + joint.idx_v);
      }
    }
    data.V_WB_B[k] = V;
    data.c_B[k] = c;
    const Inertia& I = model.inertias[k];
    data.Ia_B[k] = I.toMatrix();
    data.pa_B[k] = V.cross(I * V);
    if (with_external) data.pa_B[k] -= data.fext_B[k];
  }
  // Pass 2 (leaves to root): articulated inertias and bias forces.
  for (int k = n - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    const Matrix6& Ia = data.Ia_B[k];
    const Vector6& pa = data.pa_B[k].vector();
    if (joint.nv == 0) {
      if (p >= 0) {
        data.Ia_B[p] += inertiaToParent(data.X_PB[k], Ia);
        data.pa_B[p] += data.X_PB[k].act(Force(Vector6(pa + Ia * data.c_B[k].vector())));
      }
      continue;
    }
    if (joint.nv == 1) {
      // One dof: U is a vector and D a scalar (RBDA Table 7.1 with S = s).
      const int i = joint.idx_v;
      const auto s = data.S_B.col(i);
      data.U.col(i).noalias() = Ia * s;
      const Vector6 U1 = data.U.col(i);
      const double Dinv1 = 1.0 / s.dot(U1);
      data.Dinv[k](0, 0) = Dinv1;
      data.u[i] = tau[i] - s.dot(pa);
      if (p >= 0) {
        const Matrix6 Ia_a = Ia - (Dinv1 * U1) * U1.transpose();
        const Vector6 pa_a = pa + Ia_a * data.c_B[k].vector() + (Dinv1 * data.u[i]) * U1;
        data.Ia_B[p] += inertiaToParent(data.X_PB[k], Ia_a);
        data.pa_B[p] += data.X_PB[k].act(Force(pa_a));
      }
      continue;
    }
    const auto S = data.S_B.middleCols(joint.idx_v, joint.nv);
    auto U = data.U.middleCols(joint.idx_v, joint.nv);
    auto u = data.u.segment(joint.idx_v, joint.nv);
    JointSquare& Dinv = data.Dinv[k];
    U.noalias() = Ia * S;
    u = tau.segment(joint.idx_v, joint.nv);
    u.noalias() -= S.transpose() * pa;
    if (joint.nv == 1) {
      Dinv(0, 0) = 1.0 / S.col(0).dot(U.col(0));
    } else {
      const JointSquare D = S.transpose() * U;
      Dinv = D.inverse();
    }
    if (p >= 0) {
      const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UDinv = U * Dinv;
      const Matrix6 Ia_a = Ia - UDinv * U.transpose();
      const Vector6 pa_a = pa + Ia_a * data.c_B[k].vector() + UDinv * u;
      data.Ia_B[p] += inertiaToParent(data.X_PB[k], Ia_a);
      data.pa_B[p] += data.X_PB[k].act(Force(pa_a));
    }
  }
  // Pass 3 (root to leaves): accelerations; the world accelerates upward at -g.
  const Motion a_world(Vector3::Zero(), Vector3(-model.gravity_W));
  for (int k = 0; k < n; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    Motion A = data.X_PB[k].actInv(p < 0 ? a_world : data.A_spatial_WB_B[p]) + data.c_B[k];
    if (joint.nv == 1) {
      const int i = joint.idx_v;
      data.qdd[i] = data.Dinv[k](0, 0) * (data.u[i] - data.U.col(i).dot(A.vector()));
      A.vector() += data.S_B.col(i) * data.qdd[i];
    } else if (joint.nv > 1) {
      const auto S = data.S_B.middleCols(joint.idx_v, joint.nv);
      auto qdd = data.qdd.segment(joint.idx_v, joint.nv);
      // qdd = Dinv (u - U^T A), with a stack temporary (nv <= 6).
      Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> rhs = data.u.segment(joint.idx_v, joint.nv);
      rhs.noalias() -= data.U.middleCols(joint.idx_v, joint.nv).transpose() * A.vector();
      qdd.noalias() = data.Dinv[k] * rhs;
      A.vector().noalias() += S * qdd;
    }
    data.A_spatial_WB_B[k] = A;
  }
}

}  // namespace

const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau) {
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  validateVelocity(model, tau, "tau");
  detail::updateJointPlacements(model, data, q);
  abaPasses(model, data, q, v, tau, false);
  return data.qdd;
}

const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau,
                           const ExternalForces& f_ext) {
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  validateVelocity(model, tau, "tau");
  forwardKinematics(model, data, q);
  detail::externalForcesToLinkFrames(model, data, f_ext);
  abaPasses(model, data, q, v, tau, true);
  return data.qdd;
}

}  // namespace gcbridge
