#include "gcbridge/dynamics/kinematics.hpp"

#include <cmath>
#include <string>

#include "detail.hpp"
#include "joints/dispatch.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

// Joint placements, then world poses and COM positions, after validation.
void positionPass(const Model& model, Data& data, const ConstVectorRef& q) {
  detail::updateJointPlacements(model, data, q);
  for (int k = 0; k < model.numLinks(); ++k) {
    const int p = model.parents[k];
    data.X_WB[k] = p < 0 ? data.X_PB[k] : data.X_WB[p] * data.X_PB[k];
    data.p_WBcm[k] = data.X_WB[k].actPoint(model.inertias[k].com());
  }
}

}  // namespace

GCBRIDGE_FLATTEN void detail::updateJointPlacements(const Model& model, Data& data,
                                                    const ConstVectorRef& q) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const double* q_joint = q.data() + joint.idx_q;
    // X_PB = X_PJ X_JB(q); the motion subspaces that depend on q follow it.
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      K::placement(joint, q_joint, data.X_PB[k]);
      if constexpr (K::subspace_depends_on_q) {
        K::subspace(joint, q_joint, joints::SubspaceMap<K::nv>(&data.S_B(0, joint.idx_v)));
      }
    });
  }
}

void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q) {
  checkData(model, data, "forwardKinematics");
  validateConfiguration(model, q);
  positionPass(model, data, q);
}

void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q,
                       const ConstVectorRef& v) {
  checkData(model, data, "forwardKinematics");
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  positionPass(model, data, q);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    // V_B = X_PB^-1 V_P + S v.
    Motion V = p < 0 ? Motion::Zero() : data.X_PB[k].actInv(data.V_WB_B[p]);
    joints::dispatch(joint, [&](auto kernel) {
      decltype(kernel)::addSubspaceTimes(joint, data, v.data() + joint.idx_v, V);
    });
    data.V_WB_B[k] = V;
  }
}

void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q,
                       const ConstVectorRef& v, const ConstVectorRef& a) {
  checkData(model, data, "forwardKinematics");
  validateVelocity(model, a, "a");
  forwardKinematics(model, data, q, v);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    // A_B = X_PB^-1 A_P + S a + S_dot v + V_B x (S v).
    Motion A = p < 0 ? Motion::Zero() : data.X_PB[k].actInv(data.A_spatial_WB_B[p]);
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      const double* v_joint = v.data() + joint.idx_v;
      K::addSubspaceTimes(joint, data, a.data() + joint.idx_v, A);
      if constexpr (K::subspace_depends_on_q) A += K::bias(joint, q.data() + joint.idx_q, v_joint);
      K::addVelocityProduct(joint, data, data.V_WB_B[k], v_joint, A);
    });
    data.A_spatial_WB_B[k] = A;
    // Classical: add omega x v_Bo to the linear part.
    const Motion& V = data.V_WB_B[k];
    data.A_classical_WB_B[k] = Motion(A.angular(), A.linear() + V.angular().cross(V.linear()));
  }
}

Transform framePose(const Model& model, const Data& data, int link, const Transform& X_BF) {
  checkData(model, data, "framePose");
  detail::checkLinkIndex(model, link);
  return data.X_WB[link] * X_BF;
}

Transform framePose(const Model& model, const Data& data, int frame) {
  checkData(model, data, "framePose");
  if (frame < 0 || frame >= static_cast<int>(model.frames.size())) {
    throw InvalidArgumentError("frame index " + std::to_string(frame) + " out of range");
  }
  const Frame& f = model.frames[frame];
  return data.X_WB[f.link] * f.X_BF;
}

Motion frameVelocity(const Model& model, const Data& data, int link, const Transform& X_BF,
                     ReferenceFrame rf) {
  checkData(model, data, "frameVelocity");
  detail::checkLinkIndex(model, link);
  const Motion V_F = X_BF.actInv(data.V_WB_B[link]);  // in F, about F's origin
  switch (rf) {
    case ReferenceFrame::Local:
      return V_F;
    case ReferenceFrame::LocalWorldAligned: {
      const Matrix3 R_WF = data.X_WB[link].rotation() * X_BF.rotation();
      return Motion(R_WF * V_F.angular(), R_WF * V_F.linear());
    }
    case ReferenceFrame::World:
      return data.X_WB[link].act(data.V_WB_B[link]);
  }
  return V_F;
}

Motion frameClassicalAcceleration(const Model& model, const Data& data, int link,
                                  const Transform& X_BF, ReferenceFrame rf) {
  checkData(model, data, "frameClassicalAcceleration");
  detail::checkLinkIndex(model, link);
  // Classical acceleration of the point Fo: a_Fo = a_Bo + alpha x r + omega x (omega x r).
  const Motion& V = data.V_WB_B[link];
  const Motion& A = data.A_classical_WB_B[link];
  const Vector3 r = X_BF.translation();
  const Vector3 w = V.angular();
  const Vector3 a_Fo_B = A.linear() + A.angular().cross(r) + w.cross(w.cross(r));
  if (rf == ReferenceFrame::Local) {
    const Matrix3 R_FB = X_BF.rotation().transpose();
    return Motion(R_FB * A.angular(), R_FB * a_Fo_B);
  }
  const Matrix3& R_WB = data.X_WB[link].rotation();
  return Motion(R_WB * A.angular(), R_WB * a_Fo_B);
}

Vector3 centerOfMass(const Model& model, const Data& data) {
  checkData(model, data, "centerOfMass");
  Vector3 sum = Vector3::Zero();
  double mass = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) {
    sum += model.inertias[k].mass() * data.p_WBcm[k];
    mass += model.inertias[k].mass();
  }
  return mass > 0.0 ? Vector3(sum / mass) : Vector3::Zero();
}

}  // namespace gcbridge
