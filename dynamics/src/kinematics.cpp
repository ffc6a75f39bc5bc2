#include "gcbridge/dynamics/kinematics.hpp"

#include <cmath>
#include <string>

#include "detail.hpp"
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

// R_PJ Rot(e_I, angle) for the coordinate axis e_I: only columns J = I + 1 and K = I + 2 (mod 3)
// of R_PJ turn, by s = sin(angle) and c = cos(angle).
template <int I>
Matrix3 turnAboutCoordinateAxis(const Matrix3& R_PJ, double s, double c) {
  constexpr int J = (I + 1) % 3, K = (I + 2) % 3;
  Matrix3 R_PB;
  R_PB.col(I) = R_PJ.col(I);
  R_PB.col(J) = c * R_PJ.col(J) + s * R_PJ.col(K);
  R_PB.col(K) = c * R_PJ.col(K) - s * R_PJ.col(J);
  return R_PB;
}

// R_PJ Rot(a, angle) for a unit axis a: the rotation of a revolute joint's child in its parent.
// Axes along +-x, +-y or +-z (most URDFs) turn two columns; any other takes Rodrigues' formula
// Rot = c 1 + s [a] + (1 - c) a a^T and a 3x3 product.
Matrix3 rotateAboutJointAxis(const Matrix3& R_PJ, const Vector3& a, double angle) {
  double s, c;
  sinCos(angle, s, c);
  if (a.x() == 0.0 && a.y() == 0.0)
    return turnAboutCoordinateAxis<2>(R_PJ, a.z() > 0.0 ? s : -s, c);
  if (a.y() == 0.0 && a.z() == 0.0)
    return turnAboutCoordinateAxis<0>(R_PJ, a.x() > 0.0 ? s : -s, c);
  if (a.z() == 0.0 && a.x() == 0.0)
    return turnAboutCoordinateAxis<1>(R_PJ, a.y() > 0.0 ? s : -s, c);
  Matrix3 R_JB = ((1.0 - c) * a) * a.transpose() + s * skew(a);
  R_JB.diagonal().array() += c;
  return R_PJ * R_JB;
}

}  // namespace

GCBRIDGE_FLATTEN void detail::updateJointPlacements(const Model& model, Data& data,
                                                    const ConstVectorRef& q) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const double* qj = q.data() + joint.idx_q;
    const Matrix3& R_PJ = joint.X_PJ.rotation();
    const Vector3& p_PJ = joint.X_PJ.translation();
    Transform& X_PB = data.X_PB[k];
    // X_PB = X_PJ X_JB(q), with the common 1-dof joints spelled out.
    switch (joint.type) {
      case JointType::Revolute:
        X_PB.rotation() = rotateAboutJointAxis(R_PJ, joint.axis, qj[0]);
        X_PB.translation() = p_PJ;
        break;
      case JointType::Prismatic:
        X_PB.rotation() = R_PJ;
        X_PB.translation() = p_PJ + R_PJ * (joint.axis * qj[0]);
        break;
      case JointType::Fixed:
        X_PB = joint.X_PJ;
        break;
      default:
        X_PB = joint.X_PJ * jointTransform(joint, qj);
        break;
    }
    if (motionSubspaceDependsOnQ(joint)) {
      data.S_B.middleCols(joint.idx_v, joint.nv) = jointMotionSubspace(joint, qj);
    }
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
    if (joint.nv > 0) {
      V.vector() += detail::subspaceTimes(data, joint, v.data() + joint.idx_v);
    }
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
    if (joint.nv > 0) {
      const auto S = data.S_B.middleCols(joint.idx_v, joint.nv);
      const Motion Sv(Vector6(S * v.segment(joint.idx_v, joint.nv)));
      A.vector() += S * a.segment(joint.idx_v, joint.nv);
      A += jointBiasAcceleration(joint, q.data() + joint.idx_q, v.data() + joint.idx_v);
      A += data.V_WB_B[k].cross(Sv);
    }
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
