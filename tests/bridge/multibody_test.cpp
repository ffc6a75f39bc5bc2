// The btMultiBody made from a model: state round trips, link poses against gcbridge's forward
// kinematics, Bullet's conventions for spherical joints (and what its spherical motor takes), and
// one Bullet time step against gcbridge's ABA (Bullet's Featherstone implementation as an
// independent check of ours).

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodySphericalJointMotor.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Tolerances in Bullet's precision: round trips and poses (a few operations per link), and the
// accelerations of two ABA implementations (relative to the largest entry, floor 1).
constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kStateTolerance = kDouble ? 1e-12 : 1e-5;
constexpr double kDynamicsTolerance = kDouble ? 1e-9 : 1e-3;

// Bullet's time step for the dynamics checks [s].
constexpr double kStep = 1e-3;

struct Case {
  std::string label;
  Model model;
};

Model shipped(const std::string& file, bool floating) {
  ModelOptions options;
  options.floating_base = floating;
  return loadUrdf(test::modelPath(file), options);
}

// A root on a ball joint away from the world origin, with a revolute child: Bullet gets a
// massless fixed base and the root as its link 0.
Model ballRootModel() {
  ModelBuilder b("ball_root");
  const Matrix3 I = Vector3(0.02, 0.03, 0.04).asDiagonal();
  b.addLink("upper", 1.5, Vector3(0.05, -0.02, -0.3), I);
  b.addLink("lower", 0.7, Vector3(0.0, 0.01, -0.2), 0.5 * I);
  b.addBall("shoulder", "world", "upper",
            Transform(rotationFromRpy(Vector3(0.3, -0.2, 0.5)), Vector3(0.1, 0.2, 1.0)));
  b.addRevolute("elbow", "upper", "lower", Transform(Matrix3::Identity(), Vector3(0, 0, -0.6)),
                Vector3(1, 1, 0).normalized());
  return b.build();
}

// A massless, inertia-less link between two joints (a URDF "virtual" link): a revolute joint
// carries it, a ball joint and a massive link hang from it; the root has no mass either.
Model masslessLinkModel() {
  ModelBuilder b("massless_link");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("virtual", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("body", 2.0, Vector3(0.1, 0.0, -0.4), Vector3(0.05, 0.06, 0.02).asDiagonal());
  b.addFixed("weld", "world", "base", Transform(Matrix3::Identity(), Vector3(0, 0, 2)));
  b.addRevolute("hinge", "base", "virtual", Transform(), Vector3::UnitY());
  b.addBall("ball", "virtual", "body", Transform(Matrix3::Identity(), Vector3(0.2, 0, 0)));
  ModelOptions options;
  options.merge_fixed_joints = false;
  return b.build(options);
}

// Every shipped model as it is meant to be loaded, a ball root, and random trees (revolute,
// prismatic, ball and fixed joints, non-diagonal inertias), fixed and floating.
std::vector<Case> cases() {
  std::vector<Case> result;
  for (const test::ShippedModel& s : test::shippedModels()) {
    result.push_back({s.file, shipped(s.file, s.floating)});
  }
  result.push_back({"ball root", ballRootModel()});
  result.push_back({"planar mechanism", test::planarMechanismModel(false)});
  result.push_back({"planar mechanism floating", test::planarMechanismModel(true)});
  result.push_back({"massless link", masslessLinkModel()});
  result.push_back({"forest", test::forestModel()});
  for (bool floating : {false, true}) {
    for (int nlinks : {5, 12, 30}) {
      const std::uint64_t seed = 100 + nlinks + (floating ? 1 : 0);
      result.push_back(
          {"random tree " + std::to_string(nlinks) + (floating ? " floating" : " fixed"),
           test::randomTreeModel(seed, nlinks, BallParametrization::Quaternion, floating)});
    }
  }
  result.push_back(
      {"random tree merged",
       test::randomTreeModel(7, 20, BallParametrization::Quaternion, true, /*merge_fixed=*/true)});
  return result;
}

// A property name for RecordProperty: letters, digits and underscores.
std::string propertyName(const std::string& label, const char* what) {
  std::string name = label + "_" + what;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

// A number for RecordProperty, e.g. "3.2e-14".
std::string scientific(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", x);
  return text;
}

// q with each quaternion's sign flipped where it disagrees with `reference`'s.
Eigen::VectorXd alignQuaternionSigns(const Model& model, Eigen::VectorXd q,
                                     const Eigen::VectorXd& reference) {
  for (const Joint& joint : model.joints) {
    const int start = joint.type == JointType::Free   ? joint.idx_q + 3
                      : joint.type == JointType::Ball ? joint.idx_q
                                                      : -1;
    if (start < 0) continue;
    if (q.segment<4>(start).dot(reference.segment<4>(start)) < 0.0) q.segment<4>(start) *= -1.0;
  }
  return q;
}

// |a - b|_inf / max(1, |b|_inf).
double relativeError(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// Bullet's velocity vector (base omega and COM velocity in W, joint rates), in double.
Eigen::VectorXd bulletVelocities(const btMultiBody& body) {
  const int n = 6 + body.getNumDofs();
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = body.getVelocityVector()[i];
  return v;
}

// Bullet's pose of model link k (its B frame) in the world, after body.forwardKinematics.
Transform bulletPose(const MultiBodyLayout& layout, const btMultiBody& body, int k) {
  const int b = layout.bulletLink(k);
  const btTransform X =
      b < 0 ? body.getBaseWorldTransform() : body.getLink(b).m_cachedWorldTransform;
  Matrix3 R;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) R(i, j) = X.getBasis()[i][j];
  }
  const btVector3& p = X.getOrigin();
  return Transform(R, Vector3(p.x(), p.y(), p.z()));
}

TEST(MultiBody, StateRoundTrip) {
  for (const Case& c : cases()) {
    const auto w = buildMultiBody(c.model);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(c.model, seed);
      const Eigen::VectorXd v = randomVector(c.model.nv, seed + 10, 2.0);
      setMultiBodyState(c.model, w->layout, *w->body, q, v);
      Eigen::VectorXd q_out, v_out;
      getMultiBodyState(c.model, w->layout, *w->body, q_out, v_out);
      EXPECT_TRUE(matricesNear(alignQuaternionSigns(c.model, q_out, q), q, kStateTolerance))
          << c.label << " q, seed " << seed;
      EXPECT_TRUE(matricesNear(v_out, v, kStateTolerance)) << c.label << " v, seed " << seed;
    }
  }
}

// The builder places the body at a given state; a bad one is refused.
TEST(MultiBody, BuiltAtAGivenState) {
  for (const Case& c : cases()) {
    const Eigen::VectorXd q = randomConfiguration(c.model, 21);
    const Eigen::VectorXd v = randomVector(c.model.nv, 22);
    const auto w = buildMultiBody(c.model, {}, q, v);
    Eigen::VectorXd q_out, v_out;
    getMultiBodyState(c.model, w->layout, *w->body, q_out, v_out);
    EXPECT_TRUE(matricesNear(alignQuaternionSigns(c.model, q_out, q), q, kStateTolerance))
        << c.label;
    EXPECT_TRUE(matricesNear(v_out, v, kStateTolerance)) << c.label;
    EXPECT_THROW(buildMultiBody(c.model, {}, Eigen::VectorXd::Zero(c.model.nq + 1)),
                 InvalidArgumentError);
  }
}

TEST(MultiBody, LinkPosesMatchForwardKinematics) {
  for (const Case& c : cases()) {
    const auto w = buildMultiBody(c.model);
    Data data(c.model);
    btAlignedObjectArray<btQuaternion> world_to_local;
    btAlignedObjectArray<btVector3> local_origin;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(c.model, seed);
      setMultiBodyState(c.model, w->layout, *w->body, q, Eigen::VectorXd::Zero(c.model.nv));
      w->body->forwardKinematics(world_to_local, local_origin);
      forwardKinematics(c.model, data, q);
      for (int k = 0; k < c.model.numLinks(); ++k) {
        // gcbridge's pose of Bullet's frame: the link's COM with principal axes.
        const Transform X_WB = data.X_WB[k] * w->layout.X_LB[k];
        const Transform bullet = bulletPose(w->layout, *w->body, k);
        EXPECT_TRUE(matricesNear(bullet.rotation(), X_WB.rotation(), kStateTolerance))
            << c.label << " link " << c.model.link_names[k] << " rotation, seed " << seed;
        EXPECT_TRUE(matricesNear(bullet.translation(), X_WB.translation(), kStateTolerance))
            << c.label << " link " << c.model.link_names[k] << " position, seed " << seed;
      }
    }
  }
}

TEST(MultiBody, PrincipalFramesDiagonalizeTheInertia) {
  const Model model = test::randomTreeModel(3, 8, BallParametrization::Quaternion, true);
  const MultiBodyLayout layout = makeMultiBodyLayout(model);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Matrix3& R_LB = layout.X_LB[k].rotation();
    EXPECT_NEAR(R_LB.determinant(), 1.0, 1e-15);
    EXPECT_TRUE(matricesNear(layout.X_LB[k].translation(), model.inertias[k].com(), 0.0));
    const Matrix3 I_B = R_LB.transpose() * model.inertias[k].inertiaAboutCom() * R_LB;
    EXPECT_TRUE(matricesNear(I_B, Matrix3(layout.I_Bcm_B[k].asDiagonal()), 1e-15)) << k;
  }
  // An inertia already diagonal in the link frame keeps the link's axes exactly.
  const Model iiwa = shipped("kuka_iiwa/model.urdf", false);
  const MultiBodyLayout iiwa_layout = makeMultiBodyLayout(iiwa);
  for (int k = 0; k < iiwa.numLinks(); ++k) {
    EXPECT_TRUE(iiwa_layout.X_LB[k].rotation() == Matrix3::Identity()) << k;
  }
}

// Bullet's spherical joint, read from its sources: quaternion (x, y, z, w) of the child's
// rotation in the joint frame, velocity = child angular velocity relative to the parent in the
// child frame. Checked on one link whose inertia is diagonal (Bullet's frame has the link's axes).
TEST(MultiBody, SphericalJointConventions) {
  ModelBuilder b("ball");
  b.addLink("link", 2.0, Vector3(0.0, 0.0, -0.5), Vector3(0.1, 0.2, 0.3).asDiagonal());
  b.addBall("ball", "world", "link", Transform(Matrix3::Identity(), Vector3(0, 0, 1)));
  const Model model = b.build();
  const auto w = buildMultiBody(model);
  // A quarter turn about x: Bullet's joint position is the same (x, y, z, w).
  const double s = std::sin(M_PI / 4), co = std::cos(M_PI / 4);
  Eigen::VectorXd q(4), v(3);
  q << s, 0.0, 0.0, co;
  v << 0.0, 0.0, 1.0;  // spin about the child's z axis, which is world -y after the quarter turn
  setMultiBodyState(model, w->layout, *w->body, q, v);
  const btScalar* qb = w->body->getJointPosMultiDof(0);
  EXPECT_TRUE(matricesNear(Eigen::Vector4d(qb[0], qb[1], qb[2], qb[3]), Eigen::Vector4d(q),
                           kStateTolerance));
  const btScalar* vb = w->body->getJointVelMultiDof(0);
  EXPECT_TRUE(
      matricesNear(Eigen::Vector3d(vb[0], vb[1], vb[2]), Eigen::Vector3d(v), kStateTolerance));
  // The COM hangs 0.5 m from the pivot along the child's -z, which points along world +y.
  btAlignedObjectArray<btQuaternion> world_to_local;
  btAlignedObjectArray<btVector3> local_origin;
  w->body->forwardKinematics(world_to_local, local_origin);
  EXPECT_TRUE(matricesNear(bulletPose(w->layout, *w->body, 0).translation(), Vector3(0.0, 0.5, 1.0),
                           kStateTolerance));
  // Without gravity the spin about the child's z is steady and turns the child about world -y:
  // Bullet integrates the quaternion as Q exp(omega_C dt), omega in the child frame.
  w->world->setGravity(btVector3(0, 0, 0));
  w->world->stepSimulation(0.1, 0);
  Eigen::VectorXd q1, v1;
  getMultiBodyState(model, w->layout, *w->body, q1, v1);
  const Quaternion expected = quaternionFromCoeffs(q.data()) * quaternionExp(Vector3(0, 0, 0.1));
  EXPECT_TRUE(matricesNear(alignQuaternionSigns(model, q1, expected.coeffs()),
                           Eigen::Vector4d(expected.coeffs()), kStateTolerance));
  EXPECT_TRUE(matricesNear(v1, v, kStateTolerance));
}

// Bullet's spherical joint motor (pybullet's setJointMotorControlMultiDof on a ball joint) takes
// only a position target: one substep of 1/240 s from rest without gravity, wanting the angular
// velocity w, it leaves the joint at rest under a velocity target w (kd 1, kp 0), moves it at
// w / 5 under the position target q (+) h w with kp 1 (the solver's erp is 0.2), and at w with
// kp 1 / erp. The servo's error is the XYZ Euler angles of the rotation to the target, which are
// its rotation vector to second order: 2e-3 rad/s here. (docs/bullet-notes.md)
TEST(MultiBody, SphericalMotorTakesOnlyAPositionTarget) {
  ModelBuilder b("ball");
  b.addLink("link", 2.0, Vector3(0.0, 0.0, -0.5), Vector3(0.1, 0.2, 0.3).asDiagonal());
  b.addBall("ball", "world", "link", Transform(Matrix3::Identity(), Vector3(0, 0, 1)));
  const Model model = b.build();
  const btScalar h = btScalar(1.0 / 240.0);
  const btVector3 w(btScalar(0.7), btScalar(-0.4), btScalar(0.2));
  const btQuaternion step(w.normalized(), w.length() * h);
  struct Drive {
    bool position;
    btScalar kp;
    btVector3 expected;
  };
  for (const Drive& drive :
       {Drive{false, 0, btVector3(0, 0, 0)}, Drive{true, 1, w / 5}, Drive{true, 5, w}}) {
    const auto world = buildMultiBody(model);
    world->world->setGravity(btVector3(0, 0, 0));
    const int link = world->layout.bulletLink(0);
    btSphereShape shape(btScalar(0.01));
    btMultiBodyLinkCollider collider(world->body.get(), link);
    collider.setCollisionShape(&shape);
    world->body->getLink(link).m_collider = &collider;
    world->world->addCollisionObject(&collider, 0, 0);
    btMultiBodySphericalJointMotor motor(world->body.get(), link, btScalar(1e6));
    if (drive.position) {
      motor.setPositionTarget(step, drive.kp);
      motor.setVelocityTarget(btVector3(0, 0, 0), 0);
    } else {
      motor.setPositionTarget(btQuaternion::getIdentity(), 0);
      motor.setVelocityTarget(w, 1);
    }
    world->world->addMultiBodyConstraint(&motor);
    world->world->stepSimulation(h, 1, h);
    const btScalar* v = world->body->getJointVelMultiDof(link);
    EXPECT_LT((btVector3(v[0], v[1], v[2]) - drive.expected).length(), 2e-3)
        << drive.position << " " << drive.kp;
    world->world->removeMultiBodyConstraint(&motor);
    world->world->removeCollisionObject(&collider);
    world->body->getLink(link).m_collider = nullptr;
  }
}

// Bullet steps positions with the new velocities (semi-implicit Euler); for joints below the root
// that is gcbridge's integrate(q0, v1, h) on the manifold, quaternions included.
TEST(MultiBody, PositionStepIntegratesJointsOnTheManifold) {
  for (const Case& c : cases()) {
    if (c.model.joints[0].type == JointType::Free) continue;  // Bullet moves the COM linearly
    // Bullet's planar joint moves its COM along velocities turned by the new angle (its own
    // coordinates, joints/planar.hpp of the bridge): integrate's to O(h^2) only.
    const bool planar = std::any_of(c.model.joints.begin(), c.model.joints.end(),
                                    [](const Joint& j) { return j.type == JointType::Planar; });
    if (planar) continue;
    const auto w = buildMultiBody(c.model);
    const Eigen::VectorXd q0 = randomConfiguration(c.model, 5);
    const Eigen::VectorXd v0 = randomVector(c.model.nv, 6, 2.0);
    setMultiBodyState(c.model, w->layout, *w->body, q0, v0);
    w->world->stepSimulation(kStep, 0);
    Eigen::VectorXd q1, v1;
    getMultiBodyState(c.model, w->layout, *w->body, q1, v1);
    const Eigen::VectorXd expected = integrate(c.model, q0, v1, kStep);
    EXPECT_TRUE(
        matricesNear(alignQuaternionSigns(c.model, q1, expected), expected, kStateTolerance))
        << c.label;
  }
}

// One Bullet step of size h from (q0, v0) under tau; (v1 - v0)/h in gcbridge's coordinates.
Eigen::VectorXd accelerationOfOneStep(const Model& model, MultiBodyWorld& w,
                                      const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                                      const Eigen::VectorXd& tau, bool fixed_substep) {
  setMultiBodyState(model, w.layout, *w.body, q0, v0);
  setMultiBodyJointTorques(model, w.layout, *w.body, tau);
  const Eigen::VectorXd before = bulletVelocities(*w.body);
  const int substeps =
      fixed_substep ? w.world->stepSimulation(kStep, 1, kStep) : w.world->stepSimulation(kStep, 0);
  EXPECT_EQ(substeps, 1);
  const Eigen::VectorXd change = (bulletVelocities(*w.body) - before) / kStep;
  // Converted at the state the accelerations belong to.
  setMultiBodyState(model, w.layout, *w.body, q0, v0);
  const std::vector<btScalar> bullet(change.data(), change.data() + change.size());
  Eigen::VectorXd a;
  getMultiBodyAcceleration(model, w.layout, *w.body, bullet.data(), a);
  return a;
}

TEST(MultiBody, OneWorldStepMatchesAba) {
  for (const Case& c : cases()) {
    Data data(c.model);
    for (bool fixed_substep : {false, true}) {
      const auto w = buildMultiBody(c.model);
      double worst = 0.0;
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const Eigen::VectorXd q = randomConfiguration(c.model, seed);
        const Eigen::VectorXd v = randomVector(c.model.nv, seed + 20, 2.0);
        const Eigen::VectorXd tau = randomVector(c.model.nv, seed + 30, 10.0);
        const Eigen::VectorXd a_bullet =
            accelerationOfOneStep(c.model, *w, q, v, tau, fixed_substep);
        const Eigen::VectorXd& a = aba(c.model, data, q, v, tau);
        EXPECT_TRUE(matricesNear(a_bullet, a, kDynamicsTolerance))
            << c.label << (fixed_substep ? ", stepSimulation(h, 1, h)" : ", stepSimulation(h, 0)")
            << ", seed " << seed;
        worst = std::max(worst, relativeError(a_bullet, a));
      }
      RecordProperty(propertyName(c.label, fixed_substep ? "step_fixed" : "step_variable"),
                     scientific(worst));
    }
  }
}

// Bullet's ABA called directly, as the benchmark does: gravity added as forces at the COMs (the
// world does that in each step), dt = 0 so the velocities stay.
TEST(MultiBody, DirectAbaCallMatchesAba) {
  btAlignedObjectArray<btScalar> scratch_r;
  btAlignedObjectArray<btVector3> scratch_v;
  btAlignedObjectArray<btMatrix3x3> scratch_m;
  for (const Case& c : cases()) {
    const auto w = buildMultiBody(c.model);
    btMultiBody& body = *w->body;
    Data data(c.model);
    double worst = 0.0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(c.model, seed);
      const Eigen::VectorXd v = randomVector(c.model.nv, seed + 40, 2.0);
      const Eigen::VectorXd tau = randomVector(c.model.nv, seed + 50, 10.0);
      setMultiBodyState(c.model, w->layout, body, q, v);
      body.clearForcesAndTorques();
      setMultiBodyJointTorques(c.model, w->layout, body, tau);
      const btVector3 g = w->world->getGravity();
      body.addBaseForce(g * body.getBaseMass());
      for (int i = 0; i < body.getNumLinks(); ++i) body.addLinkForce(i, g * body.getLinkMass(i));
      const Eigen::VectorXd before = bulletVelocities(body);
      body.computeAccelerationsArticulatedBodyAlgorithmMultiDof(0.0, scratch_r, scratch_v,
                                                                scratch_m, false, false, false);
      EXPECT_TRUE(bulletVelocities(body) == before) << c.label;
      Eigen::VectorXd a_bullet;
      getMultiBodyAcceleration(c.model, w->layout, body, &scratch_r[body.getNumDofs()], a_bullet);
      const Eigen::VectorXd& a = aba(c.model, data, q, v, tau);
      EXPECT_TRUE(matricesNear(a_bullet, a, kDynamicsTolerance)) << c.label << ", seed " << seed;
      worst = std::max(worst, relativeError(a_bullet, a));
    }
    RecordProperty(propertyName(c.label, "direct_aba"), scientific(worst));
  }
}

// Bullet 3.24 keeps the forces and torques of a stepSimulation call through all its substeps and
// clears them after the last one (BT_USE_VIRTUAL_CLEARFORCES_AND_GRAVITY), gravity included.
TEST(MultiBody, TorquesAndGravityActDuringEverySubstep) {
  ModelBuilder b("wheel");
  b.addLink("wheel", 1.0, Vector3(0.5, 0.0, 0.0), Vector3(0.5, 0.5, 0.5).asDiagonal());
  b.addRevolute("axle", "world", "wheel", Transform(), Vector3::UnitY());
  const Model model = b.build();
  const auto w = buildMultiBody(model);
  // About the axle, I = 0.5 + 1 * 0.5^2 = 0.75 kg m^2; gravity pulls the COM down 0.5 m away.
  const double inertia = 0.75, gravity_torque = 0.5 * 9.81;
  setMultiBodyJointTorques(model, w->layout, *w->body, Eigen::VectorXd::Constant(1, 1.5));
  EXPECT_EQ(w->world->stepSimulation(2 * kStep, 2, kStep), 2);
  const double qdd = (1.5 + gravity_torque) / inertia;
  EXPECT_NEAR(w->body->getJointVel(0), 2 * kStep * qdd, kStateTolerance);
  EXPECT_EQ(w->body->getJointTorque(0), 0.0);
  EXPECT_EQ(w->body->getLinkForce(0).length(), 0.0);
}

TEST(MultiBody, OptionsSetBulletsDampingAndClamps) {
  const Model model = shipped("kuka_iiwa/model.urdf", false);
  const auto w = buildMultiBody(model);
  EXPECT_EQ(w->body->getLinearDamping(), 0.0);
  EXPECT_EQ(w->body->getAngularDamping(), 0.0);
  EXPECT_EQ(w->body->getMaxCoordinateVelocity(), btScalar(BT_LARGE_FLOAT));
  EXPECT_EQ(w->body->getMaxAppliedImpulse(), btScalar(BT_LARGE_FLOAT));
  EXPECT_TRUE(w->body->getUseGyroTerm());
  EXPECT_FALSE(w->body->getCanSleep());
  EXPECT_TRUE(w->body->hasFixedBase());
  const btVector3 g = w->world->getGravity();
  EXPECT_TRUE(matricesNear(Vector3(g.x(), g.y(), g.z()), model.gravity_W, kStateTolerance));

  MultiBodyOptions bullet_defaults;
  bullet_defaults.clamp_defaults = true;
  const auto d = buildMultiBody(model, bullet_defaults);
  EXPECT_EQ(d->body->getLinearDamping(), btScalar(0.04f));
  EXPECT_EQ(d->body->getAngularDamping(), btScalar(0.04f));
  EXPECT_EQ(d->body->getMaxCoordinateVelocity(), btScalar(100));
  EXPECT_EQ(d->body->getMaxAppliedImpulse(), btScalar(1000));
}

TEST(MultiBody, BuildsTheNeutralConfigurationAtRest) {
  for (const Case& c : cases()) {
    const auto w = buildMultiBody(c.model);
    EXPECT_EQ(w->body->hasFixedBase(), c.model.joints[0].type != JointType::Free) << c.label;
    Eigen::VectorXd q, v;
    getMultiBodyState(c.model, w->layout, *w->body, q, v);
    const Eigen::VectorXd neutral = neutralConfiguration(c.model);
    EXPECT_TRUE(matricesNear(alignQuaternionSigns(c.model, q, neutral), neutral, kStateTolerance))
        << c.label;
    EXPECT_TRUE(matricesNear(v, Eigen::VectorXd::Zero(c.model.nv), 0.0)) << c.label;
  }
}

// The message of the InvalidArgumentError `f` throws ("" if it throws none).
template <typename F>
std::string invalidArgumentMessage(F&& f) {
  try {
    f();
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

TEST(MultiBody, RejectsBallParametrizationsOtherThanQuaternion) {
  for (BallParametrization ball : {BallParametrization::ExpMap, BallParametrization::EulerXYZ}) {
    ModelOptions options;
    options.floating_base = true;
    options.ball = ball;
    const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
    const std::string message = invalidArgumentMessage([&] { buildMultiBody(model); });
    int first_ball = 0;
    while (model.joints[first_ball].type != JointType::Ball) ++first_ball;
    EXPECT_NE(message.find("'" + model.joints[first_ball].name + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find(toString(ball)), std::string::npos) << message;
  }
}

// btMultiBody's planar joint integrates its translation right only when the axis, in the child's
// principal-axes frame, is perpendicular to that frame's x axis (or is x): a tilted one, and -x
// (Bullet's b1 = n x x vanishes), are refused, naming the joint. The planar mechanism of cases()
// is accepted and matches ABA.
TEST(MultiBody, RejectsAPlanarAxisBulletWouldScale) {
  for (const Vector3& axis : {Vector3(Vector3(0.3, -0.8, 0.5).normalized()), Vector3(-1, 0, 0)}) {
    ModelBuilder b("tilted_plane");
    b.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
    b.addLink("puck", 1.0, Vector3(0.1, 0, 0), Vector3(0.01, 0.02, 0.03).asDiagonal());
    JointDescription j;
    j.name = "plane";
    j.type = JointType::Planar;
    j.parent = "base";
    j.child = "puck";
    j.axis = axis;
    b.addJoint(j);
    const Model model = b.build();
    const std::string message = invalidArgumentMessage([&] { buildMultiBody(model); });
    EXPECT_NE(message.find("planar joint 'plane'"), std::string::npos) << message;
    EXPECT_NE(message.find("perpendicular"), std::string::npos) << message;
  }
}

// Several roots hang from a massless fixed base (the forest is among the cases above); a free
// joint cannot be one of them.
TEST(MultiBody, SeveralRootsHangFromAFixedBaseButNoneFree) {
  EXPECT_FALSE(makeMultiBodyLayout(test::forestModel()).root_is_base);
  ModelBuilder b("two_roots");
  b.addLink("a", 1.0, Vector3::Zero(), Matrix3::Identity() * 0.1);
  b.addLink("b", 1.0, Vector3::Zero(), Matrix3::Identity() * 0.1);
  b.addFree("ja", "world", "a");
  b.addRevolute("jb", "world", "b", Transform(), Vector3::UnitX());
  const Model model = b.build();
  ASSERT_EQ(model.numLinks(), 2);
  const std::string message = invalidArgumentMessage([&] { buildMultiBody(model); });
  EXPECT_NE(message.find("'ja'"), std::string::npos) << message;
  EXPECT_NE(message.find("several roots"), std::string::npos) << message;
}

TEST(MultiBody, RejectsBadInputsAndLeavesTheBodyUnchanged) {
  const Model model = shipped("humanoid_deepmimic/humanoid.urdf", true);
  const auto w = buildMultiBody(model);
  const Eigen::VectorXd q = randomConfiguration(model, 9), v = randomVector(model.nv, 10);
  setMultiBodyState(model, w->layout, *w->body, q, v);
  // Wrong sizes, a NaN, a zero quaternion: nothing is written.
  Eigen::VectorXd bad_q = q;
  bad_q.segment<4>(3).setZero();
  Eigen::VectorXd nan_v = v;
  nan_v(7) = std::nan("");
  EXPECT_THROW(setMultiBodyState(model, w->layout, *w->body, q.head(5), v), InvalidArgumentError);
  EXPECT_THROW(setMultiBodyState(model, w->layout, *w->body, bad_q, v), InvalidArgumentError);
  EXPECT_THROW(setMultiBodyState(model, w->layout, *w->body, q, nan_v), InvalidArgumentError);
  EXPECT_THROW(setMultiBodyJointTorques(model, w->layout, *w->body, v.head(3)),
               InvalidArgumentError);
  Eigen::VectorXd q_out, v_out;
  getMultiBodyState(model, w->layout, *w->body, q_out, v_out);
  EXPECT_TRUE(matricesNear(alignQuaternionSigns(model, q_out, q), q, kStateTolerance));
  EXPECT_TRUE(matricesNear(v_out, v, kStateTolerance));
  // A body or layout made from another model.
  const Model iiwa = shipped("kuka_iiwa/model.urdf", false);
  const auto other = buildMultiBody(iiwa);
  EXPECT_THROW(setMultiBodyState(model, w->layout, *other->body, q, v), InvalidArgumentError);
  EXPECT_THROW(getMultiBodyState(model, other->layout, *w->body, q_out, v_out),
               InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
