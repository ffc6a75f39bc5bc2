#include "gcbridge/bridge/state_conversion.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <cmath>

#include "bridge_internals.hpp"
#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "joints/dispatch.hpp"
#include "joints/universal.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::toBullet;
using detail::toBulletTransform;

/// Link poses X_WL from the bodies (a bodiless link's pose is set by its joint's read-out), into
/// the read buffer. Returns whether every link origin written is finite; then so is every body's
/// rotation and origin, and so is R_WL (a copy of R_WB, or R_WB R_BL with R_BL a rotation). The
/// test: x * 0 is 0 for a finite x and NaN otherwise, so a sum of those is 0 exactly when all
/// are. It reads the link origins p_WL = R_WB p_BL + p_WB alone: row i of R_WB and p_WB's entry
/// i all enter entry i, and a NaN or an infinity there makes it NaN or infinite (times 0 it is
/// NaN; times a finite nonzero entry of p_BL, infinite or NaN; and so is a sum with one such
/// term).
bool bufferLinkPoses(const RigidBodyMap& map, BridgeData& bdata) {
  std::vector<Transform>& X_WL_read = internals(bdata).X_WL_read;
  btVector3 zero(0, 0, 0);
  for (int k = 0; k < map.numLinks(); ++k) {
    if (map.body(k) == nullptr) continue;
    const btTransform& X_WB = map.body(k)->getCenterOfMassTransform();
    const Transform& X_BL = map.X_BL(k);
    // X_WL = X_WB X_BL, written entry by entry straight from Bullet's transform: a whole
    // temporary written by scalars and read back as packets stalls on store forwarding. Most
    // links keep their axes in B (diagonal inertia), and then only the origin moves.
    Matrix3& R_WL = X_WL_read[k].rotation();
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
    // The test reads the origin where it was computed: the buffer, written by scalars, would be
    // read back as a packet and stall on store forwarding.
    const btVector3 p_WL = X_WB(toBullet(X_BL.translation()));
    X_WL_read[k].translation() = fromBullet(p_WL);
    zero += p_WL * 0;
  }
  return zero.x() + zero.y() + zero.z() == 0;
}

/// Each body's angular velocity and COM velocity in W (zero for bodiless links), into the read
/// buffers. Returns whether every one is finite (bufferLinkPoses' test).
bool bufferBodyVelocities(const RigidBodyMap& map, BridgeData& bdata) {
  BridgeInternals::Internals& own = internals(bdata);
  Vector3 zero = Vector3::Zero();
  for (int k = 0; k < map.numLinks(); ++k) {
    const btRigidBody* body = map.body(k);
    own.omega_WB_W_read[k] =
        body != nullptr ? fromBullet(body->getAngularVelocity()) : Vector3::Zero();
    own.v_WBcm_W_read[k] =
        body != nullptr ? fromBullet(body->getLinearVelocity()) : Vector3::Zero();
    zero += own.omega_WB_W_read[k] * 0.0 + own.v_WBcm_W_read[k] * 0.0;
  }
  return zero.sum() == 0.0;
}

/// The error for a failed finiteness test, naming the first link whose body's entries fail
/// `finite` (the read buffers hold the entries the test summed, so there is one).
template <typename Finite>
WorldError nonFiniteError(const Model& model, const RigidBodyMap& map, const char* function,
                          const char* what, const Finite& finite) {
  std::string body = "a body";
  for (int k = 0; k < map.numLinks(); ++k) {
    if (map.body(k) != nullptr && !finite(k)) {
      body = "the body of link '" + model.link_names[k] + "'";
      break;
    }
  }
  return WorldError(std::string(function) + ": " + body + " has a NaN or infinite " + what);
}

/// The bodies' velocities into bdata.omega_WB_W and bdata.v_WBcm_W.
/// @throws WorldError, naming `function` and the link, for a non-finite velocity; bdata is then
///   unchanged.
void readBodyVelocities(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                        const char* function) {
  BridgeInternals::Internals& own = internals(bdata);
  if (!bufferBodyVelocities(map, bdata)) {
    throw nonFiniteError(model, map, function, "velocity", [&](int k) {
      return own.omega_WB_W_read[k].allFinite() && own.v_WBcm_W_read[k].allFinite();
    });
  }
  std::swap(bdata.omega_WB_W, own.omega_WB_W_read);
  std::swap(bdata.v_WBcm_W, own.v_WBcm_W_read);
}

/// What readPositions and computeJointErrors read from the world before any q: the map checked
/// against the model and the world, then the link poses X_WL and the bodies' velocities, both
/// checked finite.
/// @throws WorldError, naming `function`, for a broken world or a non-finite pose or velocity;
///   bdata is then unchanged.
void readBodies(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                const char* function) {
  map.validate(model, function, MapCheck::ModelAndWorld);
  BridgeInternals::Internals& own = internals(bdata);
  if (!bufferLinkPoses(map, bdata)) {
    throw nonFiniteError(model, map, function, "pose", [&](int k) {
      return own.X_WL_read[k].rotation().allFinite() && own.X_WL_read[k].translation().allFinite();
    });
  }
  readBodyVelocities(model, map, bdata, function);
  std::swap(bdata.X_WL, own.X_WL_read);
}

/// q from the link poses readBodies read, each joint by its bridge kernel (a universal joint's
/// two by joints::Universal). Unwraps against bdata.q_previous when bdata.has_previous. Leaves
/// q_previous alone. With kVelocities, also each joint's v (as sparseVelocities) into v, in the
/// same visit of the joint, except where the velocity reads the q being read (a universal joint,
/// an exp-map or Euler-angle ball): the return says whether there was one (the caller reads
/// those with sparseVelocities<true> once q is stored).
template <bool kVelocities>
GCBRIDGE_FLATTEN bool readJoints(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                 Eigen::VectorXd& q, double* v) {
  const double* previous = bdata.has_previous ? bdata.q_previous.data() : nullptr;
  internals(bdata).staged_angles.clear();
  internals(bdata).staged_rotations.clear();
  bool velocities_later = false;
  for (int k = 0; k < model.numLinks(); ++k) {
    const int p = model.parents[k];
    if (p >= 0 && map.body(p) == nullptr) continue;  // a universal's second joint: done with k
    const joints::RigidSite site{model, map, bdata, k};
    if (map.body(k) == nullptr) {
      joints::Universal::readPosition(site, previous, q.data());
      velocities_later = true;
      continue;
    }
    const Joint& joint = model.joints[k];
    const double* previous_joint = previous != nullptr ? previous + joint.idx_q : nullptr;
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      K::readPosition(site, previous_joint, q.data() + joint.idx_q);
      if constexpr (kVelocities) {
        if constexpr (K::velocity_reads_q) {
          velocities_later = true;
        } else {
          K::readVelocity(site, v + joint.idx_v);
        }
      }
    });
  }
  // The staged angles and rotations, in passes of their own: each is a long chain of dependent
  // operations, and a short loop lets the processor run several at once.
  for (const BridgeInternals::StagedAngle& a : internals(bdata).staged_angles) {
    q[a.q_index] = joints::unwrap(gcbridge::detail::arcTan2(a.sine, a.cosine),
                                  previous != nullptr ? previous + a.q_index : nullptr);
  }
  for (const BridgeInternals::StagedRotation& r : internals(bdata).staged_rotations) {
    joints::writeQuaternion(r.R_JC, previous != nullptr ? previous + r.q_index : nullptr,
                            q.data() + r.q_index);
  }
  return velocities_later;
}

/// q, just read, as the configuration last read (the one velocities and kinematics are taken at).
void storePositions(BridgeData& bdata, const Eigen::VectorXd& q) {
  bdata.q_previous = q;
  bdata.has_previous = true;
  bdata.kinematics_current = false;
}

/// readPositions, and with kVelocities the velocities readJoints reads in the same visit (into
/// v); returns readJoints' answer.
template <bool kVelocities>
bool readPositionsThen(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                       Eigen::VectorXd& q, double* v) {
  checkBridgeData(model, bdata, "readPositions");
  readBodies(model, map, bdata, "readPositions");
  q.resize(model.nq);
  const bool velocities_later = readJoints<kVelocities>(model, map, bdata, q, v);
  storePositions(bdata, q);
  return velocities_later;
}

/// Each joint's v from the relative velocity of its child and parent (Liu & Jain, the local
/// Jacobians of the joints), by its bridge kernel. kOnlyAfterPositions: only the joints whose
/// velocity reads their q (the ones readJoints leaves), the others' v already read.
template <bool kOnlyAfterPositions>
GCBRIDGE_FLATTEN void sparseVelocities(const Model& model, const RigidBodyMap& map,
                                       BridgeData& bdata, Eigen::Ref<Eigen::VectorXd> v) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    if (joint.nv == 0 || (p >= 0 && map.body(p) == nullptr)) continue;
    const joints::RigidSite site{model, map, bdata, k};
    if (map.body(k) == nullptr) {
      joints::Universal::readVelocity(site, v.data());
      continue;
    }
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      if constexpr (!kOnlyAfterPositions || K::velocity_reads_q) {
        K::readVelocity(site, v.data() + joint.idx_v);
      }
    });
  }
}

/// Bullet's body velocities stacked as in Liu & Jain eq. 60: (v_1 .. v_m, omega_1 .. omega_m).
void stackBodyVelocities(const RigidBodyMap& map, BridgeData& bdata) {
  const int nlinks = map.numLinks();
  Eigen::VectorXd& V = internals(bdata).V_stacked;
  V.resize(6 * nlinks);
  for (int k = 0; k < nlinks; ++k) {
    V.segment<3>(3 * k) = bdata.v_WBcm_W[k];
    V.segment<3>(3 * nlinks + 3 * k) = bdata.omega_WB_W[k];
  }
}

/// The stacked COM Jacobian at q (eq. 60), with the rows of bodiless links zeroed.
void stackedJacobian(const Model& model, const RigidBodyMap& map, BridgeData& bdata) {
  const int nlinks = model.numLinks();
  computeJointJacobians(model, bdata.dynamics, bdata.q_previous);
  bdata.kinematics_current = true;
  Eigen::MatrixXd& J = internals(bdata).J_stacked;
  J.resize(6 * nlinks, model.nv);
  stackedComJacobian(model, bdata.dynamics, J);
  for (int k = 0; k < nlinks; ++k) {
    if (map.body(k) != nullptr) continue;
    J.middleRows<3>(3 * k).setZero();
    J.middleRows<3>(3 * nlinks + 3 * k).setZero();
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

/// readVelocities after its argument checks and readBodyVelocities.
void velocitiesFromBodies(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                          Eigen::VectorXd& v, VelocityMethod method, bool residual) {
  const int nlinks = model.numLinks();
  BridgeInternals::Internals& own = internals(bdata);
  switch (method) {
    case VelocityMethod::Sparse: {
      // Into scratch first: v is untouched if a joint is singular.
      sparseVelocities</*kOnlyAfterPositions=*/false>(model, map, bdata, own.v_scratch);
      v = own.v_scratch;
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
      v = own.J_stacked.colPivHouseholderQr().solve(own.V_stacked);
      break;
    case VelocityMethod::MassWeighted: {
      // v = (J^T M_c J)^-1 J^T M_c V, M_c = blockdiag(m_k I3 .., I_k in W ..): M_c J = rows scaled.
      stackedJacobian(model, map, bdata);
      stackBodyVelocities(map, bdata);
      Eigen::MatrixXd& McJ = own.normal_matrix;
      McJ = own.J_stacked;
      for (int k = 0; k < nlinks; ++k) {
        const double m = map.body(k) != nullptr ? model.inertias[k].mass() : 0.0;
        const Matrix3& R_WL = bdata.dynamics.X_WB[k].rotation();
        const Matrix3 I_W =
            m > 0.0 ? Matrix3(R_WL * model.inertias[k].inertiaAboutCom() * R_WL.transpose())
                    : Matrix3::Zero();
        McJ.middleRows<3>(3 * k) *= m;
        McJ.middleRows<3>(3 * nlinks + 3 * k) =
            I_W * own.J_stacked.middleRows<3>(3 * nlinks + 3 * k);
      }
      const Eigen::MatrixXd normal = own.J_stacked.transpose() * McJ;
      v = normal.ldlt().solve(McJ.transpose() * own.V_stacked);
      break;
    }
  }
  velocityResidual(model, map, bdata, v);
}

}  // namespace

const char* toString(VelocityMethod method) {
  static constexpr auto kNames =
      detail::enumNames<VelocityMethod>({{VelocityMethod::Sparse, "sparse"},
                                         {VelocityMethod::PseudoInverse, "pseudo_inverse"},
                                         {VelocityMethod::MassWeighted, "mass_weighted"}});
  return kNames.name(method, "?");
}

void readPositions(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                   Eigen::VectorXd& q) {
  readPositionsThen</*kVelocities=*/false>(model, map, bdata, q, nullptr);
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
  readBodyVelocities(model, map, bdata, "readVelocities");
  velocitiesFromBodies(model, map, bdata, v, method, residual);
}

void readState(const Model& model, const RigidBodyMap& map, BridgeData& bdata, Eigen::VectorXd& q,
               Eigen::VectorXd& v, VelocityMethod method) {
  if (method != VelocityMethod::Sparse) {
    // readPositions read the bodies' velocities too.
    readPositions(model, map, bdata, q);
    velocitiesFromBodies(model, map, bdata, v, method, /*residual=*/false);
    return;
  }
  // readPositions and readVelocities(Sparse) with one visit of each joint for both, unless a
  // joint's velocity needs its new q. Into scratch first: v is untouched if a joint is singular.
  Eigen::VectorXd& v_read = internals(bdata).v_scratch;
  if (readPositionsThen</*kVelocities=*/true>(model, map, bdata, q, v_read.data())) {
    sparseVelocities</*kOnlyAfterPositions=*/true>(model, map, bdata, v_read);
  }
  v = v_read;
  bdata.velocity_residual.setZero();
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
  readBodies(model, map, bdata, "computeJointErrors");
  // The poses and q now, as readPositions reads them (so X_WL and q_previous agree).
  Eigen::VectorXd& q = internals(bdata).q_scratch;
  q.resize(model.nq);
  readJoints</*kVelocities=*/false>(model, map, bdata, q, nullptr);
  storePositions(bdata, q);
  double worst = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) bdata.joint_errors[k] = JointError();
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    // No constraint (a free or static root), or a universal's second joint (done with the first).
    if (map.constraint(k) == nullptr || (p >= 0 && map.body(p) == nullptr)) continue;
    const joints::RigidSite site{model, map, bdata, k};
    JointError& error = bdata.joint_errors[k];
    if (map.body(k) == nullptr) {
      joints::Universal::errors(site, error, bdata.joint_errors[model.children[k][0]]);
    } else {
      const Transform X_JC = site.X_JC();
      joints::dispatch(joint, [&](auto kernel) { decltype(kernel)::error(joint, X_JC, error); });
    }
    worst = std::max(worst, error.position_error);
  }
  return worst;
}

void projectOntoJoints(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                       Eigen::VectorXd& q, Eigen::VectorXd& v) {
  readState(model, map, bdata, q, v, VelocityMethod::MassWeighted);
  writeState(model, map, bdata, q, v);
}

GCBRIDGE_BULLET_NAMESPACE_END
