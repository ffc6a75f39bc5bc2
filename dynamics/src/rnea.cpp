#include "gcbridge/dynamics/rnea.hpp"

#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {

void detail::externalForcesToLinkFrames(const Model& model, Data& data,
                                        const ExternalForces& f_ext) {
  if (static_cast<int>(f_ext.forces.size()) != model.numLinks()) {
    throw InvalidArgumentError("external forces: " + std::to_string(f_ext.forces.size()) +
                               " given, model '" + model.name + "' has " +
                               std::to_string(model.numLinks()) + " links");
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const Force& f = f_ext.forces[k];
    if (!f.vector().allFinite()) {
      throw InvalidArgumentError("external force on link '" + model.link_names[k] +
                                 "' is not finite");
    }
    switch (f_ext.frame) {
      case ReferenceFrame::Local:
        data.fext_B[k] = f;
        break;
      case ReferenceFrame::LocalWorldAligned: {
        const Matrix3 R_BW = data.X_WB[k].rotation().transpose();
        data.fext_B[k] = Force(R_BW * f.angular(), R_BW * f.linear());
        break;
      }
      case ReferenceFrame::World:
        data.fext_B[k] = data.X_WB[k].actInv(f);
        break;
    }
  }
}

namespace {

// RNEA (RBDA Table 5.1) in link frames, writing tau. `a` may be data.zero_v; `with_gravity`
// decides whether the world accelerates upward at -g; `with_external` whether data.fext_B acts.
// The spatial vectors are handled as their 3-vector halves, and each joint's kernel spells out
// its own S (joints/).
// @pre q, v, a validated; positions of data computed for q.
GCBRIDGE_FLATTEN void rneaPasses(const Model& model, Data& data, const ConstVectorRef& q,
                                 const ConstVectorRef& v, const ConstVectorRef& a,
                                 bool with_gravity, bool with_external, Eigen::VectorXd& tau) {
  const Motion a_world(Vector3::Zero(), with_gravity ? Vector3(-model.gravity_W) : Vector3::Zero());
  // Forward: velocities, accelerations and the force each link needs.
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    Motion& V = data.V_WB_B[k];
    Motion& A = data.A_spatial_WB_B[k];
    // The parent's velocity and acceleration in B (inverse motion rule).
    if (p < 0) {
      V.vector().setZero();
    } else {
      data.X_PB[k].actInv(data.V_WB_B[p], V);
    }
    data.X_PB[k].actInv(p < 0 ? a_world : data.A_spatial_WB_B[p], A);
    // The joint's part: A += S a + V x (S v) (+ dS/dt v), then V += S v.
    joints::dispatch(joint, [&](auto kernel) {
      decltype(kernel)::addMotion(joint, data, q.data() + joint.idx_q, v.data() + joint.idx_v,
                                  a.data() + joint.idx_v, V, A);
    });
    detail::netForce(model.inertias[k], V, A, data.f_B[k]);
    if (with_external) data.f_B[k] -= data.fext_B[k];
  }
  // Backward: project on the joint's motion subspace and pass the rest to the parent (force
  // rule).
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    const Force& f = data.f_B[k];
    joints::dispatch(joint, [&](auto kernel) {
      decltype(kernel)::projectForce(joint, data, f, tau.data() + joint.idx_v);
    });
    const int p = model.parents[k];
    if (p >= 0) data.X_PB[k].addAct(f, data.f_B[p]);
  }
}

void validateDynamicsInputs(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v) {
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
}

}  // namespace

const Eigen::VectorXd& rnea(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v, const ConstVectorRef& a) {
  checkData(model, data, "rnea");
  validateDynamicsInputs(model, q, v);
  validateVelocity(model, a, "a");
  return detail::rneaUnchecked(model, data, q, v, a);
}

const Eigen::VectorXd& detail::rneaUnchecked(const Model& model, Data& data,
                                             const ConstVectorRef& q, const ConstVectorRef& v,
                                             const ConstVectorRef& a) {
  detail::updateJointPlacements(model, data, q);
  rneaPasses(model, data, q, v, a, true, false, data.tau);
  return data.tau;
}

const Eigen::VectorXd& rnea(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v, const ConstVectorRef& a,
                            const ExternalForces& f_ext) {
  checkData(model, data, "rnea");
  validateDynamicsInputs(model, q, v);
  validateVelocity(model, a, "a");
  forwardKinematics(model, data, q);
  detail::externalForcesToLinkFrames(model, data, f_ext);
  rneaPasses(model, data, q, v, a, true, true, data.tau);
  return data.tau;
}

const Eigen::VectorXd& computeGeneralizedGravity(const Model& model, Data& data,
                                                 const ConstVectorRef& q) {
  checkData(model, data, "computeGeneralizedGravity");
  validateConfiguration(model, q);
  detail::updateJointPlacements(model, data, q);
  rneaPasses(model, data, q, data.zero_v, data.zero_v, true, false, data.g);
  return data.g;
}

const Eigen::VectorXd& nonLinearEffects(const Model& model, Data& data, const ConstVectorRef& q,
                                        const ConstVectorRef& v) {
  checkData(model, data, "nonLinearEffects");
  validateDynamicsInputs(model, q, v);
  detail::updateJointPlacements(model, data, q);
  rneaPasses(model, data, q, v, data.zero_v, true, false, data.h);
  return data.h;
}

const Eigen::VectorXd& computeCoriolisTimesV(const Model& model, Data& data,
                                             const ConstVectorRef& q, const ConstVectorRef& v) {
  checkData(model, data, "computeCoriolisTimesV");
  validateDynamicsInputs(model, q, v);
  detail::updateJointPlacements(model, data, q);
  rneaPasses(model, data, q, v, data.zero_v, false, false, data.Cv);
  return data.Cv;
}

const Eigen::MatrixXd& computeCoriolisMatrix(const Model& model, Data& data,
                                             const ConstVectorRef& q, const ConstVectorRef& v) {
  checkData(model, data, "computeCoriolisMatrix");
  validateDynamicsInputs(model, q, v);
  forwardKinematics(model, data, q, v);
  // World-frame Jacobian columns and their time derivatives:
  // d/dt (X_WB S_j) = V_WB_W x (X_WB S_j) + X_WB (dS_j/dt).
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    if (joint.nv == 0) continue;
    const Transform& X_WB = data.X_WB[k];
    const Motion V_W = X_WB.act(data.V_WB_B[k]);
    const JointMatrix dS =
        jointMotionSubspaceDerivative(joint, q.data() + joint.idx_q, v.data() + joint.idx_v);
    for (int i = 0; i < joint.nv; ++i) {
      const int j = joint.idx_v + i;
      const Motion col_W = X_WB.act(Motion(Vector6(data.S_B.col(j))));
      data.J_W.col(j) = col_W.vector();
      data.dJ_W.col(j) = (V_W.cross(col_W) + X_WB.act(Motion(Vector6(dS.col(i))))).vector();
    }
  }
  // C = sum_k J_k^T (I_k dJ_k + (V_k x*) I_k J_k): for link k only its supporting columns are
  // non-zero, so C(i, j) collects over links k that both dofs i and j support.
  data.C.setZero();
  for (int k = 0; k < model.numLinks(); ++k) {
    const Inertia I_W = model.inertias[k].transformedBy(data.X_WB[k]);
    const Motion V_W = data.X_WB[k].act(data.V_WB_B[k]);
    for (int jl = k; jl >= 0; jl = model.parents[jl]) {
      const Joint& joint_j = model.joints[jl];
      for (int j = joint_j.idx_v; j < joint_j.idx_v + joint_j.nv; ++j) {
        const Motion col(Vector6(data.J_W.col(j)));
        const Force F = I_W * Motion(Vector6(data.dJ_W.col(j))) + V_W.cross(I_W * col);
        for (int il = k; il >= 0; il = model.parents[il]) {
          const Joint& joint_i = model.joints[il];
          for (int i = joint_i.idx_v; i < joint_i.idx_v + joint_i.nv; ++i) {
            data.C(i, j) += data.J_W.col(i).dot(F.vector());
          }
        }
      }
    }
  }
  return data.C;
}

}  // namespace gcbridge
