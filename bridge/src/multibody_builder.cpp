#include "gcbridge/bridge/multibody_builder.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <cmath>
#include <string>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::quoted;
using detail::toBullet;

/// Checks that the body and layout were made for this model.
void checkMatches(const Model& model, const MultiBodyLayout& layout, const btMultiBody& body,
                  const char* function) {
  const int nlinks = model.numLinks();
  const bool floating = nlinks > 0 && model.joints[0].type == JointType::Free;
  const int bullet_links = layout.root_is_base ? nlinks - 1 : nlinks;
  const int bullet_dofs = floating ? model.nv - 6 : model.nv;
  if (static_cast<int>(layout.X_LB.size()) != nlinks ||
      static_cast<int>(layout.Q_LB.size()) != nlinks || body.getNumLinks() != bullet_links ||
      body.getNumDofs() != bullet_dofs || body.hasFixedBase() == floating) {
    throw InvalidArgumentError(
        std::string(function) + ": the btMultiBody (" + std::to_string(body.getNumLinks()) +
        " links, " + std::to_string(body.getNumDofs()) + " dofs) or its layout (" +
        std::to_string(layout.X_LB.size()) + " links) was not built from model " +
        quoted(model.name) + " (" + std::to_string(nlinks) + " links, nv " +
        std::to_string(model.nv) + ")");
  }
}

/// The spatial velocity of the root link (Free joint) in its own frame C, read from Bullet's base:
/// omega_C and the velocity of the link origin Co, from Bullet's omega and COM velocity in W.
void rootVelocity(const MultiBodyLayout& layout, const btMultiBody& body, const Matrix3& R_WC,
                  Vector3& omega_C, Vector3& v_Co_C) {
  const Vector3& p_CoBcm_C = layout.X_LB[0].translation();
  omega_C = R_WC.transpose() * fromBullet(body.getBaseOmega());
  v_Co_C = R_WC.transpose() * fromBullet(body.getBaseVel()) - omega_C.cross(p_CoBcm_C);
}

/// R_WC of the root link (Free joint) from Bullet's base orientation.
Matrix3 rootRotation(const MultiBodyLayout& layout, const btMultiBody& body) {
  const Quaternion Q_WB = fromBullet(body.getWorldToBaseRot()).conjugate();
  return (Q_WB * layout.Q_LB[0].conjugate()).toRotationMatrix();
}

}  // namespace

MultiBodyWorld::~MultiBodyWorld() {
  if (world && body) world->removeMultiBody(body.get());
}

MultiBodyLayout makeMultiBodyLayout(const Model& model) {
  const int nlinks = model.numLinks();
  if (nlinks == 0) {
    throw InvalidArgumentError("buildMultiBody: model " + quoted(model.name) + " has no link");
  }
  if (static_cast<int>(model.joints.size()) != nlinks ||
      static_cast<int>(model.inertias.size()) != nlinks ||
      static_cast<int>(model.link_names.size()) != nlinks) {
    throw InvalidArgumentError("buildMultiBody: model " + quoted(model.name) +
                               " has inconsistent link, joint and inertia counts");
  }
  // One tree, rooted at link 0, parents numbered first.
  if (model.parents[0] != -1) {
    throw InvalidArgumentError("buildMultiBody: link " + quoted(model.link_names[0]) +
                               " (link 0) is not attached to the world; btMultiBody needs the "
                               "root first");
  }
  for (int k = 1; k < nlinks; ++k) {
    if (model.parents[k] == -1) {
      throw InvalidArgumentError(
          "buildMultiBody: links " + quoted(model.link_names[0]) + " and " +
          quoted(model.link_names[k]) + " (joint " + quoted(model.joints[k].name) +
          ") are both attached to the world; a btMultiBody has a single root");
    }
    if (model.parents[k] < 0 || model.parents[k] >= k) {
      throw InvalidArgumentError("buildMultiBody: link " + quoted(model.link_names[k]) +
                                 " is numbered before its parent; links must be numbered "
                                 "parents first");
    }
  }
  // Joint types btMultiBody can represent.
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    if (joint.type == JointType::Free && k != 0) {
      throw InvalidArgumentError("buildMultiBody: free joint " + quoted(joint.name) +
                                 " is below the root; only the root can be free");
    }
    if (joint.type == JointType::Ball && joint.ball != BallParametrization::Quaternion) {
      throw InvalidArgumentError(
          "buildMultiBody: ball joint " + quoted(joint.name) + " uses the " + toString(joint.ball) +
          " parametrization; btMultiBody's spherical joints need the quaternion one (load the "
          "model with ModelOptions::ball = BallParametrization::Quaternion)");
    }
  }

  MultiBodyLayout layout;
  const JointType root = model.joints[0].type;
  layout.root_is_base = root == JointType::Fixed || root == JointType::Free;
  layout.X_LB.resize(nlinks);
  layout.Q_LB.resize(nlinks);
  layout.I_Bcm_B.resize(nlinks);
  for (int k = 0; k < nlinks; ++k) {
    detail::principalFrame(model, k, "buildMultiBody", layout.X_LB[k], layout.Q_LB[k],
                           layout.I_Bcm_B[k]);
  }
  return layout;
}

std::unique_ptr<MultiBodyWorld> buildMultiBody(const Model& model, const MultiBodyOptions& options,
                                               const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  // Everything that can reject the model or the state runs before anything is allocated.
  MultiBodyLayout layout = makeMultiBodyLayout(model);
  const Eigen::VectorXd q0 = q.size() == 0 ? neutralConfiguration(model) : q;
  const Eigen::VectorXd v0 = v.size() == 0 ? Eigen::VectorXd::Zero(model.nv) : v;
  validateConfiguration(model, q0);
  validateVelocity(model, v0);
  const int nlinks = model.numLinks();
  const JointType root = model.joints[0].type;

  auto w = std::make_unique<MultiBodyWorld>();
  w->collision_configuration = std::make_unique<btDefaultCollisionConfiguration>();
  w->dispatcher = std::make_unique<btCollisionDispatcher>(w->collision_configuration.get());
  w->broadphase = std::make_unique<btDbvtBroadphase>();
  w->solver = std::make_unique<btMultiBodyConstraintSolver>();
  w->world = std::make_unique<btMultiBodyDynamicsWorld>(
      w->dispatcher.get(), w->broadphase.get(), w->solver.get(), w->collision_configuration.get());
  w->world->setGravity(toBullet(model.gravity_W));

  // The base: the root link itself (fixed or floating), or a massless fixed body at the origin.
  const int bullet_links = layout.root_is_base ? nlinks - 1 : nlinks;
  if (layout.root_is_base) {
    w->body = std::make_unique<btMultiBody>(bullet_links, model.inertias[0].mass(),
                                            toBullet(layout.I_Bcm_B[0]),
                                            /*fixedBase=*/root == JointType::Fixed,
                                            /*canSleep=*/false);
  } else {
    w->body = std::make_unique<btMultiBody>(bullet_links, 0.0, btVector3(0, 0, 0),
                                            /*fixedBase=*/true, /*canSleep=*/false);
  }
  btMultiBody& body = *w->body;

  // Each link: its joint frame and axis in Bullet's B frames (the header's table).
  for (int k = 0; k < nlinks; ++k) {
    const int b = layout.bulletLink(k);
    if (b < 0) continue;
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    const int parent_b = p < 0 ? -1 : layout.bulletLink(p);
    // X_BpJ: the joint frame in the parent's B frame (the world base sits at the origin).
    const Transform X_BpJ = p < 0 ? joint.X_PJ : layout.X_LB[p].inverse() * joint.X_PJ;
    const Transform& X_LB = layout.X_LB[k];
    // Bullet's rotParentToThis at q = 0 maps parent-B coordinates to child-B ones: R_BpB^T.
    const Matrix3 R_BpB = X_BpJ.rotation() * X_LB.rotation();
    const btQuaternion rot_parent_to_this = toBullet(Quaternion(R_BpB.transpose()).normalized());
    // From the parent's COM to the pivot (parent B axes), and from the pivot to this COM (B axes).
    const btVector3 parent_com_to_pivot = toBullet(X_BpJ.translation());
    const btVector3 pivot_to_com = toBullet(X_LB.rotation().transpose() * X_LB.translation());
    const double mass = model.inertias[k].mass();
    const btVector3 inertia = toBullet(layout.I_Bcm_B[k]);
    switch (joint.type) {
      case JointType::Revolute:
        body.setupRevolute(b, mass, inertia, parent_b, rot_parent_to_this,
                           toBullet(X_LB.rotation().transpose() * joint.axis), parent_com_to_pivot,
                           pivot_to_com, /*disableParentCollision=*/true);
        break;
      case JointType::Prismatic:
        body.setupPrismatic(b, mass, inertia, parent_b, rot_parent_to_this,
                            toBullet(X_LB.rotation().transpose() * joint.axis), parent_com_to_pivot,
                            pivot_to_com, /*disableParentCollision=*/true);
        break;
      case JointType::Ball:
        body.setupSpherical(b, mass, inertia, parent_b, rot_parent_to_this, parent_com_to_pivot,
                            pivot_to_com, /*disableParentCollision=*/true);
        break;
      case JointType::Fixed:
        body.setupFixed(b, mass, inertia, parent_b, rot_parent_to_this, parent_com_to_pivot,
                        pivot_to_com);
        break;
      case JointType::Free:
        break;  // the root only, which is Bullet's base
    }
  }
  body.finalizeMultiDof();

  // Bullet's damping and clamps (the header's list).
  if (!options.clamp_defaults) {
    body.setLinearDamping(0.0);
    body.setAngularDamping(0.0);
    body.setMaxCoordinateVelocity(BT_LARGE_FLOAT);
    body.setMaxAppliedImpulse(BT_LARGE_FLOAT);
  }
  body.setUseGyroTerm(true);
  body.setCanSleep(false);

  // A fixed root stays where its joint puts it.
  if (root == JointType::Fixed) {
    const Transform X_WB = model.joints[0].X_PJ * layout.X_LB[0];
    const Quaternion Q_WB =
        Quaternion(model.joints[0].X_PJ.rotation()).normalized() * layout.Q_LB[0];
    body.setBasePos(toBullet(X_WB.translation()));
    body.setWorldToBaseRot(toBullet(Q_WB.conjugate()));
  }
  w->world->addMultiBody(&body);
  w->layout = std::move(layout);

  // The state, with Bullet's cached link transforms up to date.
  setMultiBodyState(model, w->layout, body, q0, v0);
  btAlignedObjectArray<btQuaternion> world_to_local;
  btAlignedObjectArray<btVector3> local_origin;
  body.forwardKinematics(world_to_local, local_origin);
  return w;
}

void setMultiBodyState(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                       const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  checkMatches(model, layout, body, "setMultiBodyState");
  validateConfiguration(model, q);
  validateVelocity(model, v);
  // A fixed base does not move (Bullet would use a base velocity if one were set).
  if (model.joints[0].type != JointType::Free) {
    body.setBaseOmega(btVector3(0, 0, 0));
    body.setBaseVel(btVector3(0, 0, 0));
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int b = layout.bulletLink(k);
    const double* q_joint = q.data() + joint.idx_q;
    const double* v_joint = v.data() + joint.idx_v;
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
      case JointType::Prismatic:
        body.setJointPos(b, q_joint[0]);
        body.setJointVel(b, v_joint[0]);
        break;
      case JointType::Ball: {
        // Bullet's quaternion is R_JC seen in B axes: Q_LB^-1 Q_JC Q_LB; omega in B axes.
        const Quaternion& Q_LB = layout.Q_LB[k];
        const Quaternion Q = Q_LB.conjugate() * quaternionFromCoeffs(q_joint) * Q_LB;
        const btScalar q_bullet[4] = {btScalar(Q.x()), btScalar(Q.y()), btScalar(Q.z()),
                                      btScalar(Q.w())};
        const Vector3 omega_B = Q_LB.conjugate() * Vector3(v_joint[0], v_joint[1], v_joint[2]);
        const btScalar v_bullet[3] = {btScalar(omega_B.x()), btScalar(omega_B.y()),
                                      btScalar(omega_B.z())};
        body.setJointPosMultiDof(b, q_bullet);
        body.setJointVelMultiDof(b, v_bullet);
        break;
      }
      case JointType::Free: {
        // Base pose X_WB = X_WJ X_JC(q) X_LB; Bullet stores the world-to-base rotation.
        const Quaternion Q_WC =
            Quaternion(joint.X_PJ.rotation()).normalized() * quaternionFromCoeffs(q_joint + 3);
        const Matrix3 R_WC = Q_WC.toRotationMatrix();
        const Vector3 p_WCo = joint.X_PJ.actPoint(Vector3(q_joint[0], q_joint[1], q_joint[2]));
        const Vector3& p_CoBcm_C = layout.X_LB[0].translation();
        body.setBasePos(toBullet(p_WCo + R_WC * p_CoBcm_C));
        body.setWorldToBaseRot(toBullet((Q_WC * layout.Q_LB[0]).conjugate()));
        // Base velocity: omega and the COM velocity, in world axes.
        const Vector3 omega_C(v_joint[0], v_joint[1], v_joint[2]);
        const Vector3 v_Co_C(v_joint[3], v_joint[4], v_joint[5]);
        body.setBaseOmega(toBullet(R_WC * omega_C));
        body.setBaseVel(toBullet(R_WC * (v_Co_C + omega_C.cross(p_CoBcm_C))));
        break;
      }
    }
  }
}

void getMultiBodyState(const Model& model, const MultiBodyLayout& layout, const btMultiBody& body,
                       Eigen::VectorXd& q, Eigen::VectorXd& v) {
  checkMatches(model, layout, body, "getMultiBodyState");
  q.resize(model.nq);
  v.resize(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int b = layout.bulletLink(k);
    double* q_joint = q.data() + joint.idx_q;
    double* v_joint = v.data() + joint.idx_v;
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
      case JointType::Prismatic:
        q_joint[0] = body.getJointPos(b);
        v_joint[0] = body.getJointVel(b);
        break;
      case JointType::Ball: {
        // Q_JC = Q_LB Q_bullet Q_LB^-1; omega_C = R_LB omega_B.
        const Quaternion& Q_LB = layout.Q_LB[k];
        const btScalar* qb = body.getJointPosMultiDof(b);
        const btScalar* vb = body.getJointVelMultiDof(b);
        const Quaternion Q = Q_LB * Quaternion(qb[3], qb[0], qb[1], qb[2]) * Q_LB.conjugate();
        const Vector3 omega_C = Q_LB * Vector3(vb[0], vb[1], vb[2]);
        q_joint[0] = Q.x();
        q_joint[1] = Q.y();
        q_joint[2] = Q.z();
        q_joint[3] = Q.w();
        for (int i = 0; i < 3; ++i) v_joint[i] = omega_C(i);
        break;
      }
      case JointType::Free: {
        // X_JC = X_WJ^-1 X_WB X_LB^-1.
        const Quaternion Q_WB = fromBullet(body.getWorldToBaseRot()).conjugate();
        const Quaternion Q_WC = Q_WB * layout.Q_LB[0].conjugate();
        const Matrix3 R_WC = Q_WC.toRotationMatrix();
        const Vector3 p_WCo = fromBullet(body.getBasePos()) - R_WC * layout.X_LB[0].translation();
        const Quaternion Q_JC = Quaternion(joint.X_PJ.rotation()).normalized().conjugate() * Q_WC;
        const Vector3 p_JC_J = joint.X_PJ.actInvPoint(p_WCo);
        Vector3 omega_C, v_Co_C;
        rootVelocity(layout, body, R_WC, omega_C, v_Co_C);
        for (int i = 0; i < 3; ++i) {
          q_joint[i] = p_JC_J(i);
          v_joint[i] = omega_C(i);
          v_joint[3 + i] = v_Co_C(i);
        }
        q_joint[3] = Q_JC.x();
        q_joint[4] = Q_JC.y();
        q_joint[5] = Q_JC.z();
        q_joint[6] = Q_JC.w();
        break;
      }
    }
  }
}

void setMultiBodyJointTorques(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                              const Eigen::VectorXd& tau, btVector3* base_force_W,
                              btVector3* base_torque_W) {
  checkMatches(model, layout, body, "setMultiBodyJointTorques");
  validateVelocity(model, tau, "tau");
  if (base_force_W != nullptr) base_force_W->setZero();
  if (base_torque_W != nullptr) base_torque_W->setZero();
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int b = layout.bulletLink(k);
    const double* tau_joint = tau.data() + joint.idx_v;
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
      case JointType::Prismatic:
        body.getJointTorqueMultiDof(b)[0] = tau_joint[0];
        break;
      case JointType::Ball: {
        // A torque paired with omega_C, in B axes: tau_B . omega_B = tau_C . omega_C.
        const Vector3 tau_B =
            layout.Q_LB[k].conjugate() * Vector3(tau_joint[0], tau_joint[1], tau_joint[2]);
        for (int i = 0; i < 3; ++i) body.getJointTorqueMultiDof(b)[i] = tau_B(i);
        break;
      }
      case JointType::Free: {
        // (moment about Co, force) in C -> force at the COM and moment about it, world axes.
        const Matrix3 R_WC = rootRotation(layout, body);
        const Vector3 n_Co_C(tau_joint[0], tau_joint[1], tau_joint[2]);
        const Vector3 f_C(tau_joint[3], tau_joint[4], tau_joint[5]);
        const Vector3& p_CoBcm_C = layout.X_LB[0].translation();
        const btVector3 f_W = toBullet(R_WC * f_C);
        const btVector3 n_Bcm_W = toBullet(R_WC * (n_Co_C - p_CoBcm_C.cross(f_C)));
        body.addBaseForce(f_W);
        body.addBaseTorque(n_Bcm_W);
        if (base_force_W != nullptr) *base_force_W = f_W;
        if (base_torque_W != nullptr) *base_torque_W = n_Bcm_W;
        break;
      }
    }
  }
}

void getMultiBodyAcceleration(const Model& model, const MultiBodyLayout& layout,
                              const btMultiBody& body, const btScalar* bullet_accelerations,
                              Eigen::VectorXd& a) {
  checkMatches(model, layout, body, "getMultiBodyAcceleration");
  a.resize(model.nv);
  const btScalar* joint_accelerations = bullet_accelerations + 6;
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int b = layout.bulletLink(k);
    double* a_joint = a.data() + joint.idx_v;
    switch (joint.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
      case JointType::Prismatic:
        a_joint[0] = joint_accelerations[body.getLink(b).m_dofOffset];
        break;
      case JointType::Ball: {
        const btScalar* ab = joint_accelerations + body.getLink(b).m_dofOffset;
        const Vector3 alpha_C = layout.Q_LB[k] * Vector3(ab[0], ab[1], ab[2]);
        for (int i = 0; i < 3; ++i) a_joint[i] = alpha_C(i);
        break;
      }
      case JointType::Free: {
        // d/dt of (omega_C, v_Co_C) from Bullet's world-axes omega_dot and COM acceleration:
        // a_Bcm_W = R_WC (dv_Co + domega x c + omega x (v_Co + omega x c)).
        const Matrix3 R_WC = rootRotation(layout, body);
        Vector3 omega_C, v_Co_C;
        rootVelocity(layout, body, R_WC, omega_C, v_Co_C);
        const Vector3& c = layout.X_LB[0].translation();
        const Vector3 alpha_W(bullet_accelerations[0], bullet_accelerations[1],
                              bullet_accelerations[2]);
        const Vector3 a_Bcm_W(bullet_accelerations[3], bullet_accelerations[4],
                              bullet_accelerations[5]);
        const Vector3 alpha_C = R_WC.transpose() * alpha_W;
        const Vector3 dv_Co_C = R_WC.transpose() * a_Bcm_W - alpha_C.cross(c) -
                                omega_C.cross(v_Co_C + omega_C.cross(c));
        for (int i = 0; i < 3; ++i) {
          a_joint[i] = alpha_C(i);
          a_joint[3 + i] = dv_Co_C(i);
        }
        break;
      }
    }
  }
}

GCBRIDGE_BULLET_NAMESPACE_END
