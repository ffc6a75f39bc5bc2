#include "gcbridge/dynamics/jacobians.hpp"

#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

void checkSize(const char* what, Eigen::Index rows, Eigen::Index cols, Eigen::Index want_rows,
               Eigen::Index want_cols) {
  if (rows != want_rows || cols != want_cols) {
    throw InvalidArgumentError(std::string(what) + " is " + std::to_string(rows) + " x " +
                               std::to_string(cols) + ", needs " + std::to_string(want_rows) +
                               " x " + std::to_string(want_cols));
  }
}

}  // namespace

void computeJointJacobians(const Model& model, Data& data, const ConstVectorRef& q) {
  checkData(model, data, "computeJointJacobians");
  forwardKinematics(model, data, q);
  for (int j = 0; j < model.nv; ++j) {
    const int k = model.dof_link[j];
    data.J_W.col(j) = data.X_WB[k].act(Motion(Vector6(data.S_B.col(j)))).vector();
  }
}

void frameJacobian(const Model& model, const Data& data, int link, const Transform& X_BF,
                   ReferenceFrame rf, Eigen::Ref<Eigen::MatrixXd> J) {
  checkData(model, data, "frameJacobian");
  detail::checkLinkIndex(model, link);
  checkSize("frameJacobian: J", J.rows(), J.cols(), 6, model.nv);
  J.setZero();
  const Transform X_WF = data.X_WB[link] * X_BF;
  const Vector3& p_WF = X_WF.translation();
  const Matrix3 R_FW = X_WF.rotation().transpose();
  // Walk from the link to the root; only these joints move it.
  for (int k = link; k >= 0; k = model.parents[k]) {
    const Joint& joint = model.joints[k];
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      const auto col = data.J_W.col(j);
      if (rf == ReferenceFrame::World) {
        J.col(j) = col;
        continue;
      }
      // Shift from the world origin to Fo: v_Fo = v_Wo + omega x p_WF.
      const Vector3 w = col.head<3>();
      const Vector3 v = col.tail<3>() + w.cross(p_WF);
      if (rf == ReferenceFrame::LocalWorldAligned) {
        J.col(j) << w, v;
      } else {
        J.col(j) << R_FW * w, R_FW * v;
      }
    }
  }
}

void linkComJacobian(const Model& model, const Data& data, int link, Eigen::Ref<Eigen::MatrixXd> Jv,
                     Eigen::Ref<Eigen::MatrixXd> Jw) {
  checkData(model, data, "linkComJacobian");
  detail::checkLinkIndex(model, link);
  checkSize("linkComJacobian: Jv", Jv.rows(), Jv.cols(), 3, model.nv);
  checkSize("linkComJacobian: Jw", Jw.rows(), Jw.cols(), 3, model.nv);
  Jv.setZero();
  Jw.setZero();
  const Vector3& p_WBcm = data.p_WBcm[link];
  for (int k = link; k >= 0; k = model.parents[k]) {
    const Joint& joint = model.joints[k];
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      const Vector3 w = data.J_W.col(j).head<3>();
      Jw.col(j) = w;
      Jv.col(j) = data.J_W.col(j).tail<3>() + w.cross(p_WBcm);
    }
  }
}

void stackedComJacobian(const Model& model, const Data& data, Eigen::Ref<Eigen::MatrixXd> J) {
  checkData(model, data, "stackedComJacobian");
  const int m = model.numLinks();
  checkSize("stackedComJacobian: J", J.rows(), J.cols(), 6 * m, model.nv);
  // Eq. 60: rows 3k..3k+2 hold J_vk, rows 3m+3k..3m+3k+2 hold J_omega_k.
  for (int k = 0; k < m; ++k) {
    linkComJacobian(model, data, k, J.middleRows(3 * k, 3), J.middleRows(3 * m + 3 * k, 3));
  }
}

Motion frameJacobianDotTimesV(const Model& model, Data& data, const ConstVectorRef& q,
                              const ConstVectorRef& v, int link, const Transform& X_BF,
                              ReferenceFrame rf) {
  checkData(model, data, "frameJacobianDotTimesV");
  detail::checkLinkIndex(model, link);
  forwardKinematics(model, data, q, v, data.zero_v);
  switch (rf) {
    case ReferenceFrame::World:
      return data.X_WB[link].act(data.A_spatial_WB_B[link]);
    case ReferenceFrame::LocalWorldAligned:
      return frameClassicalAcceleration(model, data, link, X_BF, rf);
    case ReferenceFrame::Local: {
      // d/dt (R_FW V_lwa) = R_FW (alpha, a_Fo) - omega_F x (R_FW V_lwa), with omega_F x omega_F =
      // 0.
      const Motion A = frameClassicalAcceleration(model, data, link, X_BF, ReferenceFrame::Local);
      const Motion V = frameVelocity(model, data, link, X_BF, ReferenceFrame::Local);
      return Motion(A.angular(), A.linear() - V.angular().cross(V.linear()));
    }
  }
  return Motion::Zero();
}

}  // namespace gcbridge
