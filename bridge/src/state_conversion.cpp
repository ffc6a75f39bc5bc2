#include "gcbridge/bridge/state_conversion.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <cmath>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::toBullet;
using detail::toBulletTransform;

const Matrix3 kIdentity = Matrix3::Identity();

/// The angle of R about the unit axis a: exact for R = Rot(a, theta); for a rotation that is
/// not about a (Bullet's joint error), the angle of its component about a.
double angleAbout(const Matrix3& R, const Vector3& a) {
  const Vector3 twice_sin_axis(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  const double s = 0.5 * a.dot(twice_sin_axis);
  const double c = 0.5 * (R.trace() - a.dot(R * a));
  return detail::arcTan2(s, c);
}

/// The rotation angle of R in [0, pi].
double rotationAngle(const Matrix3& R) {
  const Vector3 twice_sin_axis(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  return detail::arcTan2(0.5 * twice_sin_axis.norm(), 0.5 * (R.trace() - 1.0));
}

/// Writes x to out[0..2].
void put3(double* out, const Vector3& x) {
  out[0] = x.x();
  out[1] = x.y();
  out[2] = x.z();
}

/// theta moved by a multiple of 2 pi to be within pi of the previous value.
double unwrap(double theta, double previous) {
  double step = theta - previous;
  // Usually |step| < pi already: skip the division.
  if (std::abs(step) > M_PI) step -= 2.0 * M_PI * std::round(step / (2.0 * M_PI));
  return previous + step;
}

/// Writes the unit quaternion of R into q (x, y, z, w), on the same side as the previous one
/// (or with w >= 0 without one). Shepperd's method with Eigen's Quaternion(R) formulas and ties
/// (Eigen sums the trace in another order, so the last bit may differ), in scalars throughout and
/// each case spelled out: a quaternion or an array indexed by the case, written by scalars and
/// read back as packets, stalls on store forwarding. Bullet keeps its bases orthonormal, so the
/// result is unit to rounding and only a basis that drifted further costs a renormalization.
void writeQuaternion(const Matrix3& R, const double* previous, double* q) {
  // From the largest of |w|, |x|, |y|, |z|: the trace, or the largest diagonal entry (the first
  // of equal ones).
  double x, y, z, w;
  const double trace = R(0, 0) + R(1, 1) + R(2, 2);
  if (trace > 0.0) {
    const double t = std::sqrt(trace + 1.0);
    const double s = 0.5 / t;
    w = 0.5 * t;
    x = (R(2, 1) - R(1, 2)) * s;
    y = (R(0, 2) - R(2, 0)) * s;
    z = (R(1, 0) - R(0, 1)) * s;
  } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
    const double t = std::sqrt(R(0, 0) - R(1, 1) - R(2, 2) + 1.0);
    const double s = 0.5 / t;
    x = 0.5 * t;
    w = (R(2, 1) - R(1, 2)) * s;
    y = (R(1, 0) + R(0, 1)) * s;
    z = (R(2, 0) + R(0, 2)) * s;
  } else if (R(1, 1) >= R(2, 2)) {
    const double t = std::sqrt(R(1, 1) - R(2, 2) - R(0, 0) + 1.0);
    const double s = 0.5 / t;
    y = 0.5 * t;
    w = (R(0, 2) - R(2, 0)) * s;
    z = (R(2, 1) + R(1, 2)) * s;
    x = (R(0, 1) + R(1, 0)) * s;
  } else {
    const double t = std::sqrt(R(2, 2) - R(0, 0) - R(1, 1) + 1.0);
    const double s = 0.5 / t;
    z = 0.5 * t;
    w = (R(1, 0) - R(0, 1)) * s;
    x = (R(0, 2) + R(2, 0)) * s;
    y = (R(1, 2) + R(2, 1)) * s;
  }
  const double norm2 = x * x + y * y + z * z + w * w;
  double scale = std::abs(norm2 - 1.0) > 1e-14 ? 1.0 / std::sqrt(norm2) : 1.0;
  const double side = previous != nullptr
                          ? x * previous[0] + y * previous[1] + z * previous[2] + w * previous[3]
                          : w;
  if (side < 0.0) scale = -scale;
  q[0] = scale * x;
  q[1] = scale * y;
  q[2] = scale * z;
  q[3] = scale * w;
}

/// A universal joint (revolute k into massless link m, revolute c out of it): the two angles
/// from the relative rotation R_J1C of the child in the first joint's frame J1.
/// R_J1C = Rot(a1, q1) R_mJ2 Rot(a2, q2) = Rot(a1, q1) Rot(w, q2) R_mJ2 with w = R_mJ2 a2, so
/// T = R_J1C R_mJ2^T maps w to Rot(a1, q1) w, which gives q1, and Rot(a1, -q1) T = Rot(w, q2).
void universalAngles(const Joint& first, const Joint& second, const Matrix3& R_J1C, double& q1,
                     double& q2) {
  const Matrix3& R_mJ2 = second.X_PJ.rotation();
  const Vector3 w = R_mJ2 * second.axis;
  const Matrix3 T = R_J1C * R_mJ2.transpose();
  const Vector3 Tw = T * w;
  q1 = detail::arcTan2(first.axis.dot(w.cross(Tw)), w.dot(Tw));
  q2 = angleAbout(rotationAboutAxis(first.axis, -q1) * T, w);
}

/// Link poses X_WL from the bodies, and q from them (bodiless universal links from their joint
/// angles). Unwraps against bdata.q_previous when bdata.has_previous. Leaves q_previous alone.
void readPoses(const Model& model, const RigidBodyMap& map, BridgeData& bdata, Eigen::VectorXd& q) {
  const int nlinks = model.numLinks();
  for (int k = 0; k < nlinks; ++k) {
    if (map.body(k) == nullptr) continue;
    const btTransform& X_WB = map.body(k)->getCenterOfMassTransform();
    const Transform& X_BL = map.X_BL(k);
    // X_WL = X_WB X_BL, written entry by entry straight from Bullet's transform: a whole
    // temporary written by scalars and read back as packets stalls on store forwarding. Most
    // links keep their axes in B (diagonal inertia), and then only the origin moves.
    Matrix3& R_WL = bdata.X_WL[k].rotation();
    const btMatrix3x3& R_WB = X_WB.getBasis();
    if (map.bodyAxesAreLinkAxes(k)) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) R_WL(i, j) = R_WB[i][j];
      }
    } else {
      const Matrix3& R_BL = X_BL.rotation();
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          R_WL(i, j) = R_WB[i][0] * R_BL(0, j) + R_WB[i][1] * R_BL(1, j) + R_WB[i][2] * R_BL(2, j);
        }
      }
    }
    const btVector3 p_WLo = X_WB(toBullet(X_BL.translation()));
    bdata.X_WL[k].translation() = fromBullet(p_WLo);
  }
  const double* previous = bdata.has_previous ? bdata.q_previous.data() : nullptr;
  bdata.pending_angles.clear();
  bdata.pending_quaternions.clear();
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    if (p >= 0 && map.body(p) == nullptr) continue;  // a universal's second joint: done below
    double* q_joint = q.data() + joint.idx_q;
    const double* previous_joint = previous != nullptr ? previous + joint.idx_q : nullptr;
    if (joint.type == JointType::Revolute && map.body(k) != nullptr) {
      // The fast path: with A = R_WP^T R_WC and R_JC = R_PJ^T A, angleAbout's sine and cosine
      // terms are sums of A's entries weighed by per-joint constants (BridgeData): the sine's
      // a . vee(R_JC - R_JC^T) by R_PJ [a]x, the cosine's tr(R_JC) - a . R_JC a by
      // R_PJ - (R_PJ a) a^T. A's entries stay in registers: a 3x3 temporary written by scalars
      // and read back as packets stalls on store forwarding.
      const Matrix3& R_WC = bdata.X_WL[k].rotation();
      const Matrix3& R_WP = p < 0 ? kIdentity : bdata.X_WL[p].rotation();
      const Matrix3& S = bdata.revolute_axis_cross_P[k];
      const Matrix3& C = bdata.revolute_cosine_P[k];
      double sine = 0.0, cosine = 0.0;
      for (int j = 0; j < 3; ++j) {
        for (int i = 0; i < 3; ++i) {
          const double A_ij = R_WP.col(i).dot(R_WC.col(j));
          sine += S(i, j) * A_ij;
          cosine += C(i, j) * A_ij;
        }
      }
      // Twice the sine and cosine; the angle itself in the last pass.
      bdata.angle_sine[k] = sine;
      bdata.angle_cosine[k] = cosine;
      bdata.pending_angles.push_back(k);
      continue;
    }
    const bool quaternion_ball =
        joint.type == JointType::Ball && joint.ball == BallParametrization::Quaternion;
    const bool free_root = joint.type == JointType::Free && p < 0;
    if ((quaternion_ball || free_root) && map.body(k) != nullptr) {
      // The rotation R_JC = R_PJ^T R_WP^T R_WC (R_PJ is usually I), written in place: a copied
      // temporary would stall on store forwarding. A free root's translation is
      // p_JC = R_PJ^T (p_WC - p_PJ).
      if (free_root) {
        put3(q_joint, joint.X_PJ.rotation().transpose() *
                          (bdata.X_WL[k].translation() - joint.X_PJ.translation()));
      }
      Matrix3& R_JC = bdata.R_JC[k];
      if (p < 0) {
        R_JC = bdata.X_WL[k].rotation();
      } else {
        R_JC.noalias() = bdata.X_WL[p].rotation().transpose() * bdata.X_WL[k].rotation();
      }
      if (!bdata.joint_axes_are_parent_axes[k]) R_JC = joint.X_PJ.rotation().transpose() * R_JC;
      bdata.pending_quaternions.push_back(k);
      continue;
    }
    const Transform X_WJ = p < 0 ? joint.X_PJ : bdata.X_WL[p] * joint.X_PJ;
    if (map.body(k) == nullptr) {
      // Universal: both angles from the parent and the grandchild body.
      const int c = model.children[k][0];
      const Joint& second = model.joints[c];
      double* q_second = q.data() + second.idx_q;
      const Matrix3 R_J1C = X_WJ.rotation().transpose() * bdata.X_WL[c].rotation();
      universalAngles(joint, second, R_J1C, q_joint[0], q_second[0]);
      if (previous != nullptr) {
        q_joint[0] = unwrap(q_joint[0], previous_joint[0]);
        q_second[0] = unwrap(q_second[0], previous[second.idx_q]);
      }
      bdata.X_WL[k] = X_WJ * Transform(rotationAboutAxis(joint.axis, q_joint[0]), Vector3::Zero());
      continue;
    }
    // X_JC: the child in the joint frame; the joint's coordinates are read off it.
    const Transform X_JC = X_WJ.inverse() * bdata.X_WL[k];
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute: {
        const double theta = angleAbout(X_JC.rotation(), joint.axis);
        q_joint[0] = previous_joint != nullptr ? unwrap(theta, previous_joint[0]) : theta;
        break;
      }
      case JointType::Prismatic:
        q_joint[0] = joint.axis.dot(X_JC.translation());
        break;
      case JointType::Ball:
        switch (joint.ball) {
          case BallParametrization::Quaternion:
            writeQuaternion(X_JC.rotation(), previous_joint, q_joint);
            break;
          case BallParametrization::ExpMap:
            put3(q_joint, rotationToExpMap(X_JC.rotation()));
            break;
          case BallParametrization::EulerXYZ:
            put3(q_joint, rotationToEulerXYZ(X_JC.rotation()));
            break;
        }
        break;
      case JointType::Free:  // below the root (a root is read above)
        put3(q_joint, X_JC.translation());
        writeQuaternion(X_JC.rotation(), previous_joint != nullptr ? previous_joint + 3 : nullptr,
                        q_joint + 3);
        break;
    }
  }
  // The fast paths' angles and quaternions, in passes of their own: each is a long chain of
  // dependent operations, and a short loop lets the processor run several at once.
  for (const int k : bdata.pending_angles) {
    const int i = model.joints[k].idx_q;
    const double theta = detail::arcTan2(bdata.angle_sine[k], bdata.angle_cosine[k]);
    q[i] = previous != nullptr ? unwrap(theta, previous[i]) : theta;
  }
  for (const int k : bdata.pending_quaternions) {
    // A free joint's quaternion follows its translation.
    const Joint& joint = model.joints[k];
    const int i = joint.idx_q + (joint.type == JointType::Free ? 3 : 0);
    writeQuaternion(bdata.R_JC[k], previous != nullptr ? previous + i : nullptr, q.data() + i);
  }
}

/// Each body's angular velocity and COM velocity in W (zero for bodiless links).
/// @throws WorldError for a non-finite velocity (readPositions checked everything else).
void readBodyVelocities(const Model& model, const RigidBodyMap& map, BridgeData& bdata) {
  for (int k = 0; k < map.numLinks(); ++k) {
    const btRigidBody* body = map.body(k);
    bdata.omega_WB_W[k] =
        body != nullptr ? fromBullet(body->getAngularVelocity()) : Vector3::Zero();
    bdata.v_WBcm_W[k] = body != nullptr ? fromBullet(body->getLinearVelocity()) : Vector3::Zero();
    if (!(bdata.omega_WB_W[k] * 0.0 + bdata.v_WBcm_W[k] * 0.0).isZero(0.0)) {
      throw WorldError("readVelocities: the body of link '" + model.link_names[k] +
                       "' has a NaN or infinite velocity");
    }
  }
}

/// Velocity of the link frame's origin Lo in W: v_Bcm + omega x (p_Lo - p_Bcm).
Vector3 linkOriginVelocity(const RigidBodyMap& map, const BridgeData& bdata, int k) {
  const Vector3 p_LoBcm_W = bdata.X_WL[k].rotation() * map.X_LB(k).translation();
  return bdata.v_WBcm_W[k] - bdata.omega_WB_W[k].cross(p_LoBcm_W);
}

/// The axis of revolute or prismatic joint k in W, from its parent's pose in bdata.X_WL.
Vector3 axisInWorld(const Model& model, const BridgeData& bdata, int k) {
  const int p = model.parents[k];
  return p < 0 ? bdata.joint_axis_P[k] : Vector3(bdata.X_WL[p].rotation() * bdata.joint_axis_P[k]);
}

/// Seed 000 eq. 62-66: each joint's v from the relative velocity of its child and parent.
void sparseVelocities(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                      Eigen::Ref<Eigen::VectorXd> v) {
  const Eigen::VectorXd& q = bdata.q_previous;
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    if (joint.nv == 0 || (p >= 0 && map.body(p) == nullptr)) continue;
    // Relative angular velocity and relative velocity of the child origin, in W.
    const int c = map.body(k) == nullptr ? model.children[k][0] : k;
    const Vector3 omega_P = p < 0 ? Vector3::Zero() : bdata.omega_WB_W[p];
    const Vector3 omega_rel_W = bdata.omega_WB_W[c] - omega_P;
    const auto R_WJ = [&]() -> Matrix3 {
      return p < 0 ? joint.X_PJ.rotation()
                   : Matrix3(bdata.X_WL[p].rotation() * joint.X_PJ.rotation());
    };
    double* v_joint = v.data() + joint.idx_v;
    const double* q_joint = q.data() + joint.idx_q;
    const auto relativeLinearVelocity = [&]() -> Vector3 {
      const Vector3 v_Co = linkOriginVelocity(map, bdata, k);
      if (p < 0) return v_Co;
      const Vector3 p_PoCo_W = bdata.X_WL[k].translation() - bdata.X_WL[p].translation();
      return v_Co - (linkOriginVelocity(map, bdata, p) + omega_P.cross(p_PoCo_W));
    };
    if (map.body(k) == nullptr) {
      // Universal (eq. 66 with a 3x2 J-hat): its columns a1 and Rot(a1, q1) w are orthonormal,
      // so the pseudo-inverse is the transpose.
      const Joint& second = model.joints[c];
      const Vector3 omega_J = R_WJ().transpose() * omega_rel_W;
      const Vector3 w =
          rotationAboutAxis(joint.axis, q_joint[0]) * (second.X_PJ.rotation() * second.axis);
      v_joint[0] = joint.axis.dot(omega_J);
      v[second.idx_v] = w.dot(omega_J);
      continue;
    }
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
        // Eq. 66 with J-hat = a: v = a . omega_rel, taken in W (the axis is R_WP a_P).
        v_joint[0] = axisInWorld(model, bdata, k).dot(omega_rel_W);
        break;
      case JointType::Prismatic:
        // The paragraph after eq. 66: v = a . (relative velocity of the child origin), in W.
        v_joint[0] = axisInWorld(model, bdata, k).dot(relativeLinearVelocity());
        break;
      case JointType::Ball:
        if (joint.ball == BallParametrization::Quaternion) {
          put3(v_joint, bdata.X_WL[k].rotation().transpose() * omega_rel_W);
        } else {
          put3(v_joint,
               ballVelocityFromAngularVelocity(joint, q_joint, R_WJ().transpose() * omega_rel_W));
        }
        break;
      case JointType::Free: {
        // The child's velocity relative to the parent, in child axes (omega_C, v_Co).
        const Matrix3& R_WC = bdata.X_WL[k].rotation();
        put3(v_joint, R_WC.transpose() * omega_rel_W);
        put3(v_joint + 3, R_WC.transpose() * relativeLinearVelocity());
        break;
      }
    }
  }
}

/// Bullet's body velocities stacked as in seed 000 eq. 60: (v_1 .. v_m, omega_1 .. omega_m).
void stackBodyVelocities(const RigidBodyMap& map, BridgeData& bdata) {
  const int nlinks = map.numLinks();
  bdata.V_stacked.resize(6 * nlinks);
  for (int k = 0; k < nlinks; ++k) {
    bdata.V_stacked.segment<3>(3 * k) = bdata.v_WBcm_W[k];
    bdata.V_stacked.segment<3>(3 * nlinks + 3 * k) = bdata.omega_WB_W[k];
  }
}

/// The stacked COM Jacobian at q (eq. 60), with the rows of bodiless links zeroed.
void stackedJacobian(const Model& model, const RigidBodyMap& map, BridgeData& bdata) {
  const int nlinks = model.numLinks();
  computeJointJacobians(model, bdata.dynamics, bdata.q_previous);
  bdata.kinematics_current = true;
  bdata.J_stacked.resize(6 * nlinks, model.nv);
  stackedComJacobian(model, bdata.dynamics, bdata.J_stacked);
  for (int k = 0; k < nlinks; ++k) {
    if (map.body(k) != nullptr) continue;
    bdata.J_stacked.middleRows<3>(3 * k).setZero();
    bdata.J_stacked.middleRows<3>(3 * nlinks + 3 * k).setZero();
  }
}

/// Per link || J_k v - V_k ||: the model's COM and angular velocity at (q, v) against Bullet's.
void velocityResidual(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                      const Eigen::VectorXd& v) {
  Data& data = bdata.dynamics;
  forwardKinematics(model, data, bdata.q_previous, v);
  bdata.kinematics_current = true;
  for (int k = 0; k < model.numLinks(); ++k) {
    if (map.body(k) == nullptr) {
      bdata.velocity_residual(k) = 0.0;
      continue;
    }
    const Matrix3& R_WL = data.X_WB[k].rotation();
    const Motion& V = data.V_WB_B[k];
    const Vector3 omega_W = R_WL * V.angular();
    const Vector3 v_Bcm_W = R_WL * (V.linear() + V.angular().cross(map.X_LB(k).translation()));
    bdata.velocity_residual(k) = std::sqrt((v_Bcm_W - bdata.v_WBcm_W[k]).squaredNorm() +
                                           (omega_W - bdata.omega_WB_W[k]).squaredNorm());
  }
}

}  // namespace

const char* toString(VelocityMethod method) {
  switch (method) {
    case VelocityMethod::Sparse:
      return "sparse";
    case VelocityMethod::PseudoInverse:
      return "pseudo_inverse";
    case VelocityMethod::MassWeighted:
      return "mass_weighted";
  }
  return "?";
}

void readPositions(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                   Eigen::VectorXd& q) {
  checkBridgeData(model, bdata, "readPositions");
  map.validate(model, "readPositions");
  q.resize(model.nq);
  readPoses(model, map, bdata, q);
  bdata.q_previous = q;
  bdata.has_previous = true;
  bdata.kinematics_current = false;
}

void updateKinematics(const Model& model, BridgeData& bdata) {
  checkBridgeData(model, bdata, "updateKinematics");
  if (!bdata.has_previous) {
    throw InvalidArgumentError("updateKinematics: call readPositions (or writeState) first");
  }
  if (bdata.kinematics_current) return;
  forwardKinematics(model, bdata.dynamics, bdata.q_previous);
  bdata.kinematics_current = true;
}

void readVelocities(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                    Eigen::VectorXd& v, VelocityMethod method, bool residual) {
  checkBridgeData(model, bdata, "readVelocities");
  if (!bdata.has_previous) {
    throw InvalidArgumentError(
        "readVelocities: call readPositions (or writeState) first; the "
        "velocities are read at its configuration");
  }
  readBodyVelocities(model, map, bdata);
  const int nlinks = model.numLinks();
  switch (method) {
    case VelocityMethod::Sparse: {
      // Into scratch first: v is untouched if a joint is singular.
      sparseVelocities(model, map, bdata, bdata.v_scratch);
      v = bdata.v_scratch;
      if (residual) {
        velocityResidual(model, map, bdata, v);
      } else {
        bdata.velocity_residual.setZero();
      }
      return;
    }
    case VelocityMethod::PseudoInverse:
      // Eq. 61: the least-squares solution of J v = V (QR, no normal equations).
      stackedJacobian(model, map, bdata);
      stackBodyVelocities(map, bdata);
      v = bdata.J_stacked.colPivHouseholderQr().solve(bdata.V_stacked);
      break;
    case VelocityMethod::MassWeighted: {
      // v = (J^T M_c J)^-1 J^T M_c V, M_c = blockdiag(m_k I3 .., I_k in W ..): M_c J = rows scaled.
      stackedJacobian(model, map, bdata);
      stackBodyVelocities(map, bdata);
      Eigen::MatrixXd& McJ = bdata.normal_matrix;
      McJ = bdata.J_stacked;
      for (int k = 0; k < nlinks; ++k) {
        const double m = map.body(k) != nullptr ? model.inertias[k].mass() : 0.0;
        const Matrix3& R_WL = bdata.dynamics.X_WB[k].rotation();
        const Matrix3 I_W =
            m > 0.0 ? Matrix3(R_WL * model.inertias[k].inertiaAboutCom() * R_WL.transpose())
                    : Matrix3::Zero();
        McJ.middleRows<3>(3 * k) *= m;
        McJ.middleRows<3>(3 * nlinks + 3 * k) =
            I_W * bdata.J_stacked.middleRows<3>(3 * nlinks + 3 * k);
      }
      const Eigen::MatrixXd normal = bdata.J_stacked.transpose() * McJ;
      v = normal.ldlt().solve(McJ.transpose() * bdata.V_stacked);
      break;
    }
  }
  velocityResidual(model, map, bdata, v);
}

void readState(const Model& model, const RigidBodyMap& map, BridgeData& bdata, Eigen::VectorXd& q,
               Eigen::VectorXd& v, VelocityMethod method) {
  readPositions(model, map, bdata, q);
  readVelocities(model, map, bdata, v, method);
}

void writeState(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  checkBridgeData(model, bdata, "writeState");
  validateConfiguration(model, q);
  validateVelocity(model, v);
  map.validate(model, "writeState", MapCheck::ModelAndWorld);
  Data& data = bdata.dynamics;
  forwardKinematics(model, data, q, v);
  for (int k = 0; k < model.numLinks(); ++k) {
    bdata.X_WL[k] = data.X_WB[k];
    btRigidBody* body = map.body(k);
    if (body == nullptr || body->isStaticOrKinematicObject()) continue;
    // The COM frame and the COM velocity from the link's spatial velocity (L axes).
    const Transform& X_WL = data.X_WB[k];
    const Motion& V = data.V_WB_B[k];
    const btTransform X_WB = toBulletTransform(X_WL * map.X_LB(k));
    const btVector3 omega_W = toBullet(X_WL.rotation() * V.angular());
    const btVector3 v_Bcm_W =
        toBullet(X_WL.rotation() * (V.linear() + V.angular().cross(map.X_LB(k).translation())));
    // setCenterOfMassTransform also refreshes the interpolation pose and the world inertia.
    body->setCenterOfMassTransform(X_WB);
    body->setLinearVelocity(v_Bcm_W);
    body->setAngularVelocity(omega_W);
    body->setInterpolationLinearVelocity(v_Bcm_W);
    body->setInterpolationAngularVelocity(omega_W);
    if (body->getMotionState() != nullptr) body->getMotionState()->setWorldTransform(X_WB);
    body->activate(true);
    map.world()->updateSingleAabb(body);
  }
  bdata.q_previous = q;
  bdata.has_previous = true;
  bdata.kinematics_current = true;
}

double computeJointErrors(const Model& model, const RigidBodyMap& map, BridgeData& bdata) {
  checkBridgeData(model, bdata, "computeJointErrors");
  map.validate(model, "computeJointErrors");
  // The poses and q now, as readPositions reads them (so X_WL and q_previous agree).
  bdata.q_scratch.resize(model.nq);
  readPoses(model, map, bdata, bdata.q_scratch);
  bdata.q_previous = bdata.q_scratch;
  bdata.has_previous = true;
  bdata.kinematics_current = false;
  double worst = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    JointError& error = bdata.joint_errors[k];
    error = JointError();
    if (joint.type == JointType::Free || (k == 0 && joint.type == JointType::Fixed)) continue;
    if (p >= 0 && map.body(p) == nullptr) {
      // A universal's second joint: how far its axis is from orthogonal to the first one.
      const int m = p;
      const Vector3 a1_W =
          (model.parents[m] < 0 ? Matrix3::Identity() : bdata.X_WL[model.parents[m]].rotation()) *
          model.joints[m].X_PJ.rotation() * model.joints[m].axis;
      const Vector3 a2_W = bdata.X_WL[k].rotation() * joint.axis;
      error.rotation_error = std::asin(std::min(1.0, std::abs(a1_W.dot(a2_W))));
      continue;
    }
    const Transform X_WP = p < 0 ? Transform::Identity() : bdata.X_WL[p];
    const int c = map.body(k) == nullptr ? model.children[k][0] : k;
    const Transform X_JC = (X_WP * joint.X_PJ).inverse() * bdata.X_WL[c];
    const Vector3& p_JC = X_JC.translation();
    switch (joint.type) {
      case JointType::Revolute:
        error.position_error = p_JC.norm();
        if (c == k) {
          const Vector3 Ra = X_JC.rotation() * joint.axis;
          error.rotation_error = detail::arcTan2(joint.axis.cross(Ra).norm(), joint.axis.dot(Ra));
        }
        break;
      case JointType::Prismatic:
        error.position_error = (p_JC - joint.axis.dot(p_JC) * joint.axis).norm();
        error.rotation_error = rotationAngle(X_JC.rotation());
        break;
      case JointType::Ball:
        error.position_error = p_JC.norm();
        break;
      case JointType::Fixed:
        error.position_error = p_JC.norm();
        error.rotation_error = rotationAngle(X_JC.rotation());
        break;
      case JointType::Free:
        break;
    }
    worst = std::max(worst, error.position_error);
  }
  return worst;
}

GCBRIDGE_BULLET_NAMESPACE_END
