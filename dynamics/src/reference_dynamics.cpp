#include "gcbridge/dynamics/reference_dynamics.hpp"

#include "gcbridge/dynamics/jacobians.hpp"

namespace gcbridge::reference {
namespace {

// J_k = [J_vk; J_wk] of link k's COM (eq. 58), world axes.
Eigen::MatrixXd comJacobian(const Model& model, const Data& data, int k) {
  Eigen::MatrixXd J(6, model.nv);
  linkComJacobian(model, data, k, J.topRows(3), J.bottomRows(3));
  return J;
}

// M_ck = diag(m 1, R I R^T) (eq. 59).
Eigen::Matrix<double, 6, 6> comInertia(const Model& model, const Data& data, int k) {
  const Inertia& I = model.inertias[k];
  const Matrix3& R = data.X_WB[k].rotation();
  Eigen::Matrix<double, 6, 6> M = Eigen::Matrix<double, 6, 6>::Zero();
  M.topLeftCorner<3, 3>() = I.mass() * Matrix3::Identity();
  M.bottomRightCorner<3, 3>() = R * I.inertiaAboutCom() * R.transpose();
  return M;
}

}  // namespace

Eigen::MatrixXd massMatrix(const Model& model, const ConstVectorRef& q) {
  Data data(model);
  computeJointJacobians(model, data, q);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(model.nv, model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Eigen::MatrixXd J = comJacobian(model, data, k);
    M += J.transpose() * comInertia(model, data, k) * J;
  }
  return M;
}

Eigen::VectorXd coriolisTimesV(const Model& model, const ConstVectorRef& q,
                               const ConstVectorRef& v) {
  Data data(model);
  computeJointJacobians(model, data, q);
  Eigen::VectorXd Cv = Eigen::VectorXd::Zero(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Eigen::MatrixXd J = comJacobian(model, data, k);
    const Eigen::Matrix<double, 6, 6> Mc = comInertia(model, data, k);
    Data moving(model);
    const Motion Jdv = frameJacobianDotTimesV(
        model, moving, q, v, k, Transform(Matrix3::Identity(), model.inertias[k].com()),
        ReferenceFrame::LocalWorldAligned);
    Eigen::Matrix<double, 6, 1> dJv;  // Liu & Jain order: linear, angular
    dJv << Jdv.linear(), Jdv.angular();
    const Eigen::Matrix<double, 6, 1> V = J * v;
    Eigen::Matrix<double, 6, 6> W = Eigen::Matrix<double, 6, 6>::Zero();
    W.bottomRightCorner<3, 3>() = skew(V.tail<3>());
    Cv += J.transpose() * (Mc * dJv + W * Mc * V);
  }
  return Cv;
}

Eigen::VectorXd gravity(const Model& model, const ConstVectorRef& q) {
  Data data(model);
  computeJointJacobians(model, data, q);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Eigen::MatrixXd J = comJacobian(model, data, k);
    g -= J.topRows(3).transpose() * (model.inertias[k].mass() * model.gravity_W);
  }
  return g;
}

}  // namespace gcbridge::reference
