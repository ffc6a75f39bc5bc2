#include "gcbridge/dynamics/model.hpp"

#include <string>

#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {

int Model::linkIndex(const std::string& link_name) const {
  for (int k = 0; k < numLinks(); ++k) {
    if (link_names[k] == link_name) return k;
  }
  throw InvalidArgumentError("model '" + name + "' has no link named '" + link_name + "'");
}

int Model::jointIndex(const std::string& joint_name) const {
  for (int k = 0; k < numLinks(); ++k) {
    if (joints[k].name == joint_name) return k;
  }
  throw InvalidArgumentError("model '" + name + "' has no joint named '" + joint_name + "'");
}

int Model::frameIndex(const std::string& frame_name) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].name == frame_name) return static_cast<int>(i);
  }
  throw InvalidArgumentError("model '" + name + "' has no frame named '" + frame_name + "'");
}

double Model::totalMass() const {
  double m = 0.0;
  for (const Inertia& I : inertias) m += I.mass();
  return m;
}

Data::Data(const Model& model)
    : model_name(model.name),
      num_links(model.numLinks()),
      nv(model.nv),
      X_PB(model.numLinks()),
      X_WB(model.numLinks()),
      p_WBcm(model.numLinks(), Vector3::Zero()),
      V_WB_B(model.numLinks()),
      A_spatial_WB_B(model.numLinks()),
      A_classical_WB_B(model.numLinks()),
      S_B(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      J_W(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dJ_W(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      zero_v(Eigen::VectorXd::Zero(model.nv)),
      f_B(model.numLinks()),
      fext_B(model.numLinks()),
      tau(Eigen::VectorXd::Zero(model.nv)),
      g(Eigen::VectorXd::Zero(model.nv)),
      h(Eigen::VectorXd::Zero(model.nv)),
      Cv(Eigen::VectorXd::Zero(model.nv)),
      M(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      C(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      Minv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      LTDL(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      qdd(Eigen::VectorXd::Zero(model.nv)),
      Ic_B(model.numLinks()),
      IcS_B(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      X_RB(model.numLinks()),
      S_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      Ic_R(model.numLinks()),
      Ia_B(model.numLinks(), Matrix6::Zero()),
      pa_B(model.numLinks()),
      c_B(model.numLinks()),
      U(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      u(Eigen::VectorXd::Zero(model.nv)),
      dtau_dq(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      dtau_dv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      dqdd_dq(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      dqdd_dv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      tmp_rhs_T(abaDerivativesUseDenseProducts(model)
                    ? Eigen::MatrixXd()
                    : Eigen::MatrixXd::Zero(3 * model.nv, model.nv)),
      V_WB_R(model.numLinks()),
      A_WB_R(model.numLinks()),
      F_R(model.numLinks()),
      Bc_R(model.numLinks(), Matrix3::Zero()),
      P_R(model.numLinks(), Vector3::Zero()),
      Dc_R(model.numLinks(), Matrix6::Zero()),
      dV_dq_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dA_dq_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dA_dv_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      IcS_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      BcS_R(Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, model.nv)),
      DcS_R(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      A_qdd_R(model.numLinks()),
      Ic_W(model.numLinks()),
      tmp_A_G(Eigen::MatrixXd::Zero(6, model.nv)),
      tmp_v(Eigen::VectorXd::Zero(model.nv)) {
  for (const Joint& joint : model.joints) {
    Dinv.push_back(JointSquare::Zero(joint.nv, joint.nv));
    // The motion subspaces that do not depend on q are set once here.
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      if constexpr (K::nv > 0 && !K::subspace_depends_on_q) {
        K::subspace(joint, nullptr, joints::SubspaceMap<K::nv>(&S_B(0, joint.idx_v)));
      }
    });
  }
}

void checkData(const Model& model, const Data& data, const char* function) {
  const bool same_sizes =
      data.num_links == model.numLinks() && data.nv == model.nv && data.model_name == model.name;
  // Two models of the same name and sizes may still differ in the tree's shape, which sizes
  // abaDerivatives' scratch.
  const bool scratch_fits =
      data.tmp_rhs_T.rows() == (abaDerivativesUseDenseProducts(model) ? 0 : 3 * model.nv);
  if (same_sizes && scratch_fits) return;
  const auto describe = [](const std::string& name, int links, int nv) {
    return "'" + name + "' (" + std::to_string(links) + " links, nv " + std::to_string(nv) + ")";
  };
  const std::string made_for = std::string(function) + ": the Data was made for model " +
                               describe(data.model_name, data.num_links, data.nv);
  if (same_sizes) {
    throw InvalidArgumentError(made_for + " with another tree's shape; make one Data per model");
  }
  throw InvalidArgumentError(made_for + ", not for model " +
                             describe(model.name, model.numLinks(), model.nv) +
                             "; make one Data per model");
}

}  // namespace gcbridge
