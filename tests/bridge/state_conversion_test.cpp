// State conversion between a rigid-body Bullet world and generalized coordinates: round trips on
// every shipped model and on random trees with every joint type and ball parametrization, the
// three velocity methods (Liu & Jain eq. 60-66) against each other and on inconsistent velocities,
// revolute unwrapping, joint-error diagnostics, a real simulation, and bad input.

#include "gcbridge/bridge/state_conversion.hpp"

#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Round trips go through Bullet's btScalar poses and velocities: a few products per link in
// double precision; single precision stores 7 digits. Velocities of long chains accumulate one
// rounding per link, hence the looser single-precision figure.
constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kTolerance = kDouble ? 1e-12 : 2e-5;
constexpr double kVelocityTolerance = kDouble ? 1e-12 : 1e-4;

TEST(StateConversion, PositionsAndVelocitiesRoundTripOnEveryModel) {
  for (const Model& model : test::bridgeTestModels(22, 21)) {
    SCOPED_TRACE(model.name);
    const Eigen::VectorXd q = test::safeConfiguration(model, 5);
    const Eigen::VectorXd v = randomVector(model.nv, 6);
    auto w = buildRigidBodyWorld(model, {}, q, v);
    // A fresh workspace: no previous q to unwrap against.
    BridgeData bdata(model);
    Eigen::VectorXd q_read;
    readPositions(model, *w->map, bdata, q_read);
    EXPECT_TRUE(
        matricesNear(difference(model, q, q_read), Eigen::VectorXd::Zero(model.nv), kTolerance));
    // Each method within 1e-12 of v (5e-14 at most measured) and of the sparse one.
    Eigen::VectorXd v_sparse;
    for (VelocityMethod method :
         {VelocityMethod::Sparse, VelocityMethod::PseudoInverse, VelocityMethod::MassWeighted}) {
      SCOPED_TRACE(toString(method));
      Eigen::VectorXd v_read;
      readVelocities(model, *w->map, bdata, v_read, method, /*residual=*/true);
      EXPECT_TRUE(matricesNear(v_read, v, kVelocityTolerance));
      if (method == VelocityMethod::Sparse) v_sparse = v_read;
      EXPECT_TRUE(matricesNear(v_read, v_sparse, kVelocityTolerance));
      EXPECT_LT(bdata.velocity_residual.maxCoeff(), kVelocityTolerance);
    }
    // Every joint exactly satisfied.
    EXPECT_LT(computeJointErrors(model, *w->map, bdata), kTolerance);
  }
}

// Written q come back exactly (not modulo 2 pi) through the same workspace, and a hinge turning
// past pi keeps counting.
TEST(StateConversion, RevoluteAnglesUnwrapContinuously) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model);
  BridgeData writer(model), reader(model);
  Eigen::VectorXd q = neutralConfiguration(model), q_read;
  q.setConstant(10.0);
  writeState(model, *w->map, writer, q, Eigen::VectorXd::Zero(model.nv));
  readPositions(model, *w->map, writer, q_read);
  EXPECT_TRUE(matricesNear(q_read, q, 1e3 * kTolerance));
  // A fresh reader starts in (-pi, pi], then follows 3 revolutions in steps of 0.3 rad.
  readPositions(model, *w->map, reader, q_read);
  EXPECT_NEAR(q_read(0), std::remainder(10.0, 2 * M_PI), 1e3 * kTolerance);
  const double start = q_read(0);
  for (int i = 1; i <= 63; ++i) {
    q.setConstant(10.0 + 0.3 * i);
    writeState(model, *w->map, writer, q, Eigen::VectorXd::Zero(model.nv));
    readPositions(model, *w->map, reader, q_read);
    EXPECT_NEAR(q_read(0), start + 0.3 * i, 1e4 * kTolerance);
  }
}

// A free root whose joint frame is turned and offset from the world's, with a hinged link on
// it: q and v come back through Bullet (the quaternion as the same rotation).
TEST(StateConversion, FreeRootInATurnedJointFrame) {
  ModelBuilder b("drone_and_arm");
  b.addLink("drone", 1.0, Vector3(0.02, -0.01, 0.03), Vector3(0.01, 0.02, 0.03).asDiagonal());
  b.addLink("arm", 2.0, Vector3(0.1, 0.0, -0.3), Vector3(0.05, 0.04, 0.01).asDiagonal());
  b.addFree("float", "world", "drone",
            Transform(rotationFromRpy(Vector3(0.3, -0.5, 1.2)), Vector3(0.2, 0.1, -0.6)));
  b.addRevolute("shoulder", "drone", "arm", Transform::Identity(), Vector3::UnitY());
  const Model model = b.build();
  ASSERT_EQ(model.joints[0].type, JointType::Free);
  ASSERT_FALSE(model.joints[0].X_PJ.rotation().isIdentity(1e-3));
  const Eigen::VectorXd q = randomConfiguration(model, 11);
  const Eigen::VectorXd v = randomVector(model.nv, 12);
  auto w = buildRigidBodyWorld(model, {}, q, v);
  BridgeData bdata(model);
  Eigen::VectorXd q_read, v_read;
  readState(model, *w->map, bdata, q_read, v_read);
  EXPECT_TRUE(
      matricesNear(difference(model, q, q_read), Eigen::VectorXd::Zero(model.nv), kTolerance));
  EXPECT_TRUE(matricesNear(v_read, v, kVelocityTolerance));
}

// The exp-map coordinates come out with angle <= pi; quaternions stay on one side.
TEST(StateConversion, BallParametrizationsFromTheRelativeRotation) {
  const Model exp_model = test::randomTreeModel(3, 6, BallParametrization::ExpMap, false);
  Eigen::VectorXd q = neutralConfiguration(exp_model);
  int ball = -1;
  for (int k = 0; k < exp_model.numLinks(); ++k) {
    if (exp_model.joints[k].type == JointType::Ball) ball = k;
  }
  ASSERT_GE(ball, 0);
  const int i = exp_model.joints[ball].idx_q;
  // A rotation vector of angle 4 rad reads back as the same rotation with angle 2 pi - 4.
  const Vector3 axis = Vector3(1, 2, -2).normalized();
  q.segment<3>(i) = 4.0 * axis;
  auto w = buildRigidBodyWorld(exp_model, {}, q);
  BridgeData bdata(exp_model);
  Eigen::VectorXd q_read;
  readPositions(exp_model, *w->map, bdata, q_read);
  EXPECT_TRUE(matricesNear(Eigen::VectorXd(q_read.segment<3>(i)),
                           Eigen::VectorXd((4.0 - 2 * M_PI) * axis), 1e3 * kTolerance));
}

// Velocities the joints cannot produce: the three methods part ways as documented.
TEST(StateConversion, InconsistentVelocitiesResidualAndMomentum) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  const Eigen::VectorXd q = randomConfiguration(model, 2);
  const Eigen::VectorXd v = randomVector(model.nv, 3);
  auto w = buildRigidBodyWorld(model, {}, q, v);
  BridgeData bdata(model);
  Eigen::VectorXd q_read, v_sparse, v_pinv, v_mass;
  readPositions(model, *w->map, bdata, q_read);
  // Push link 4's COM sideways by 0.1 m/s: no joint velocity explains it.
  btRigidBody* body = w->map->body(4);
  body->setLinearVelocity(body->getLinearVelocity() + btVector3(0.1, -0.05, 0.02));
  readVelocities(model, *w->map, bdata, v_sparse, VelocityMethod::Sparse, true);
  const double sparse_residual = bdata.velocity_residual.norm();
  readVelocities(model, *w->map, bdata, v_pinv, VelocityMethod::PseudoInverse);
  const double pinv_residual = bdata.velocity_residual.norm();
  readVelocities(model, *w->map, bdata, v_mass, VelocityMethod::MassWeighted);
  EXPECT_GT(pinv_residual, 1e-3);
  // The pseudo-inverse minimizes the stacked residual: the others cannot do better.
  EXPECT_LE(pinv_residual, sparse_residual + 1e-12);
  EXPECT_GT((v_pinv - v_mass).norm(), 1e-4);
  // The sparse method reads each joint from its two bodies only: link 4's COM velocity does not
  // enter joints away from it whose bodies' angular velocities are unchanged.
  EXPECT_NEAR(v_sparse(0), v(0), kVelocityTolerance);
  // Mass-weighted: M v equals the generalized momentum J^T M_c V of the maximal state.
  Data data(model);
  crba(model, data, q_read);
  computeJointJacobians(model, data, q_read);
  Eigen::VectorXd momentum = Eigen::VectorXd::Zero(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    Eigen::MatrixXd Jv(3, model.nv), Jw(3, model.nv);
    linkComJacobian(model, data, k, Jv, Jw);
    const btRigidBody* b = w->map->body(k);
    const Vector3 v_W(b->getLinearVelocity().x(), b->getLinearVelocity().y(),
                      b->getLinearVelocity().z());
    const Vector3 w_W(b->getAngularVelocity().x(), b->getAngularVelocity().y(),
                      b->getAngularVelocity().z());
    const Matrix3& R = data.X_WB[k].rotation();
    const Matrix3 I_W = R * model.inertias[k].inertiaAboutCom() * R.transpose();
    if (b->isStaticObject()) continue;
    momentum += Jv.transpose() * (model.inertias[k].mass() * v_W) + Jw.transpose() * (I_W * w_W);
  }
  EXPECT_TRUE(matricesNear(data.M * v_mass, momentum, kVelocityTolerance));
  EXPECT_FALSE(matricesNear(data.M * v_pinv, momentum, 1e-6));
}

TEST(StateConversion, JointErrorsMeasurePivotSeparationAndAxisMisalignment) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model, {}, randomConfiguration(model, 4));
  BridgeData bdata(model);
  EXPECT_LT(computeJointErrors(model, *w->map, bdata), kTolerance);
  // Move link 2 by 1 mm and tilt it by 2 mrad about an axis normal to its hinge.
  btRigidBody* body = w->map->body(2);
  btTransform X = body->getCenterOfMassTransform();
  const Matrix3 R_WJ = bdata.X_WL[2].rotation();
  const Vector3 hinge_W = R_WJ * model.joints[2].axis;
  const Vector3 normal_W = hinge_W.unitOrthogonal();
  X.setOrigin(X.getOrigin() + btVector3(0.001, 0, 0));
  const btQuaternion tilt(btVector3(normal_W.x(), normal_W.y(), normal_W.z()), 0.002);
  // Tilt about the joint origin so that the pivot stays 1 mm off.
  const btVector3 pivot(bdata.X_WL[2].translation().x() + 0.001, bdata.X_WL[2].translation().y(),
                        bdata.X_WL[2].translation().z());
  const btTransform about_pivot(tilt, pivot - quatRotate(tilt, pivot));
  body->setCenterOfMassTransform(about_pivot * X);
  const double worst = computeJointErrors(model, *w->map, bdata);
  double largest = 0.0;
  for (const JointError& e : bdata.joint_errors) largest = std::max(largest, e.position_error);
  EXPECT_EQ(worst, largest);
  EXPECT_NEAR(bdata.joint_errors[2].position_error, 0.001, 1e-9);
  EXPECT_NEAR(bdata.joint_errors[2].rotation_error, 0.002, 1e-9);
  // The child joint sees its parent moved (and tilted about the pivot: more than 1 mm).
  EXPECT_GT(bdata.joint_errors[3].position_error, 1e-3);
  EXPECT_LT(bdata.joint_errors[1].position_error, kTolerance);
}

// A real simulation: a pendulum chain released under gravity. The three methods agree up to
// Bullet's joint error, the residual and the joint errors are small but not zero.
TEST(StateConversion, ReadsASimulatedChain) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  Eigen::VectorXd q0 = neutralConfiguration(model);
  q0.setConstant(0.3);
  auto w = buildRigidBodyWorld(model, {}, q0);
  BridgeData bdata(model);
  Eigen::VectorXd q, v_sparse, v_pinv, v_mass;
  double worst_error = 0.0;
  for (int step = 0; step < 240; ++step) {
    w->step();
    readPositions(model, *w->map, bdata, q);
    worst_error = std::max(worst_error, computeJointErrors(model, *w->map, bdata));
  }
  readVelocities(model, *w->map, bdata, v_sparse, VelocityMethod::Sparse, true);
  readVelocities(model, *w->map, bdata, v_pinv, VelocityMethod::PseudoInverse);
  readVelocities(model, *w->map, bdata, v_mass, VelocityMethod::MassWeighted);
  // The chain moved, and Bullet's joints hold to a few mm (bullet-facts.md).
  EXPECT_GT((q - q0).norm(), 0.1);
  EXPECT_GT(v_sparse.norm(), 0.5);
  EXPECT_GT(worst_error, 1e-9);
  EXPECT_LT(worst_error, 0.02);
  // The methods differ by about the constraint error relative to the motion.
  EXPECT_LT((v_sparse - v_pinv).norm(), 0.1 * v_sparse.norm());
  EXPECT_LT((v_mass - v_pinv).norm(), 0.1 * v_sparse.norm());
  EXPECT_GT(bdata.velocity_residual.maxCoeff(), 1e-9);
}

// readState reads each joint's q and v in one visit where it can (a universal joint's and an
// exp-map or Euler-angle ball's velocity needs the q just read: those joints' velocities are read
// after it). Either way it reads what readPositions then readVelocities(Sparse) read, bit for
// bit (the same kernels on the same inputs, built without fused multiply-adds), on every model:
// first with nothing to unwrap against, then again, in a world that steps in between (its joints a
// little apart, as Bullet leaves them).
TEST(StateConversion, ReadStateReadsWhatReadPositionsThenReadVelocitiesRead) {
  for (const Model& model : test::bridgeTestModels(22, 21)) {
    SCOPED_TRACE(model.name);
    auto w = buildRigidBodyWorld(model, {}, test::safeConfiguration(model, 7),
                                 randomVector(model.nv, 8));
    BridgeData one_call(model), two_calls(model);
    for (int read = 0; read < 2; ++read) {
      for (int substep = 0; substep < 3; ++substep) w->step();
      Eigen::VectorXd q_one, v_one, q_two, v_two;
      readState(model, *w->map, one_call, q_one, v_one);
      readPositions(model, *w->map, two_calls, q_two);
      readVelocities(model, *w->map, two_calls, v_two);
      EXPECT_TRUE(q_one == q_two) << read;
      EXPECT_TRUE(v_one == v_two) << read;
      EXPECT_TRUE(one_call.q_previous == q_one);
      EXPECT_TRUE(one_call.velocity_residual.isZero(0.0));
      EXPECT_GT(v_one.norm(), 0.0);
    }
  }
}

// At an Euler-angle ball's singularity readState stores q, as readPositions does, then refuses
// the velocities and leaves v as it was. The ball hangs from the world, so the rotation read back
// is at the singularity in either precision.
TEST(StateConversion, ReadStateAtASingularBallStoresQAndLeavesV) {
  ModelBuilder builder("singular_ball");
  builder.addLink("bob", 1.0, Vector3(0.0, 0.0, -0.5), Matrix3::Identity() * 0.01);
  builder.addBall("shoulder", "world", "bob", Transform::Identity());
  ModelOptions options;
  options.ball = BallParametrization::EulerXYZ;
  const Model model = builder.build(options);
  const Eigen::Vector3d q(0.3, M_PI / 2, -0.4);
  auto w = buildRigidBodyWorld(model, {}, q);
  BridgeData bdata(model), positions_only(model);
  Eigen::VectorXd q_read, v_read = Eigen::VectorXd::Constant(model.nv, 7.0), q_positions;
  EXPECT_THROW(readState(model, *w->map, bdata, q_read, v_read), SingularityError);
  readPositions(model, *w->map, positions_only, q_positions);
  EXPECT_TRUE(q_read == q_positions);
  EXPECT_TRUE(bdata.has_previous);
  EXPECT_TRUE(bdata.q_previous == q_read);
  EXPECT_TRUE(v_read == Eigen::VectorXd::Constant(model.nv, 7.0));
}

TEST(StateConversion, BadWorldStateIsRejectedAndNothingChanges) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model, {}, randomConfiguration(model, 9));
  BridgeData bdata(model);
  Eigen::VectorXd q, v;
  readState(model, *w->map, bdata, q, v);
  const Eigen::VectorXd q_before = q;
  // Another body moved since that read: a refused read that kept anything it read would show.
  btRigidBody* moved = w->map->body(1);
  const btTransform moved_pose = moved->getCenterOfMassTransform();
  const btVector3 moved_velocity = moved->getLinearVelocity();
  moved->setCenterOfMassTransform(
      btTransform(moved_pose.getBasis(), moved_pose.getOrigin() + btVector3(0.1, 0, 0)));
  moved->setLinearVelocity(moved_velocity + btVector3(0, 0.2, 0));
  // What a refused read must leave as it was besides q and v: the poses and body velocities.
  const std::vector<Transform> X_WL_before = bdata.X_WL;
  const std::vector<Vector3> omega_before = bdata.omega_WB_W;
  const std::vector<Vector3> v_Bcm_before = bdata.v_WBcm_W;
  const auto expectBridgeDataUnchanged = [&](const std::string& what) {
    EXPECT_EQ(bdata.q_previous, q_before) << what;
    for (int k = 0; k < model.numLinks(); ++k) {
      EXPECT_EQ(bdata.X_WL[k].toMatrix(), X_WL_before[k].toMatrix()) << what << ", link " << k;
      EXPECT_EQ(bdata.omega_WB_W[k], omega_before[k]) << what << ", link " << k;
      EXPECT_EQ(bdata.v_WBcm_W[k], v_Bcm_before[k]) << what << ", link " << k;
    }
  };
  const auto expectWorldError = [&](const std::string& needle) {
    Eigen::VectorXd q_out = q_before;
    try {
      readPositions(model, *w->map, bdata, q_out);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_EQ(q_out, q_before);
    expectBridgeDataUnchanged(needle);
    EXPECT_THROW(computeJointErrors(model, *w->map, bdata), WorldError) << needle;
    expectBridgeDataUnchanged(needle + " (computeJointErrors)");
  };
  // A NaN velocity in one body.
  btRigidBody* body = w->map->body(3);
  const btVector3 velocity = body->getLinearVelocity();
  body->setLinearVelocity(btVector3(std::nan(""), 0, 0));
  expectWorldError("'" + model.link_names[3] + "' has a NaN");
  body->setLinearVelocity(velocity);
  // A NaN in a body's position, then a NaN or an infinity in any one entry of its rotation (the
  // read tests the link origins it computes; an entry that meets a zero of the body's offset to
  // the link origin gives inf * 0).
  const btTransform pose = body->getCenterOfMassTransform();
  btTransform bad_pose = pose;
  bad_pose.getOrigin().setY(std::nan(""));
  body->setCenterOfMassTransform(bad_pose);
  expectWorldError("'" + model.link_names[3] + "' has a NaN or infinite pose");
  const btScalar kInfinity = std::numeric_limits<btScalar>::infinity();
  for (const btScalar bad : {btScalar(std::nan("")), kInfinity, -kInfinity}) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        bad_pose = pose;
        bad_pose.getBasis()[i][j] = bad;
        body->setCenterOfMassTransform(bad_pose);
        expectWorldError("'" + model.link_names[3] + "' has a NaN or infinite pose");
      }
    }
  }
  body->setCenterOfMassTransform(pose);
  // A non-finite angular velocity, through readVelocities (its own check) and readState (its
  // readPositions' check): q and v unchanged.
  const Eigen::VectorXd v_before = v;
  const auto expectVelocityRefused = [&](const char* what, const std::function<void()>& read) {
    try {
      read();
      ADD_FAILURE() << what << " read a non-finite velocity";
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + model.link_names[3] + "' has a NaN or infinite"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(q, q_before) << what;
    EXPECT_EQ(v, v_before) << what;
    expectBridgeDataUnchanged(what);
  };
  const btVector3 angular_velocity = body->getAngularVelocity();
  body->setAngularVelocity(btVector3(0, std::nan(""), 0));
  expectVelocityRefused("readVelocities", [&] { readVelocities(model, *w->map, bdata, v); });
  body->setAngularVelocity(btVector3(0, 0, std::numeric_limits<btScalar>::infinity()));
  expectVelocityRefused("readState", [&] { readState(model, *w->map, bdata, q, v); });
  body->setAngularVelocity(angular_velocity);
  // A disabled (broken) constraint, then a removed one.
  btTypedConstraint* c = w->map->constraint(2);
  c->setEnabled(false);
  expectWorldError("'" + model.joints[2].name + "' is disabled");
  c->setEnabled(true);
  w->world->removeConstraint(c);
  expectWorldError("'" + model.joints[2].name + "' is no longer in the world");
  w->world->addConstraint(c, true);
  // A mass changed since the map was made.
  const btScalar inverse_mass = body->getInvMass();
  body->setMassProps(2.0 / inverse_mass, body->getLocalInertia());
  expectWorldError("inverse mass");
  body->setMassProps(1.0 / inverse_mass, body->getLocalInertia());
  // A removed body.
  w->world->removeRigidBody(body);
  expectWorldError("no longer in the world");
  w->world->addRigidBody(body);
  // All back: reading works again (constraint order changed: the map finds it).
  moved->setCenterOfMassTransform(moved_pose);
  moved->setLinearVelocity(moved_velocity);
  Eigen::VectorXd q_again;
  readPositions(model, *w->map, bdata, q_again);
  EXPECT_TRUE(matricesNear(q_again, q_before, kTolerance));
}

TEST(StateConversion, BadInputWritesNothing) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  auto w = buildRigidBodyWorld(model, {}, randomConfiguration(model, 1));
  BridgeData bdata(model);
  const btTransform X_before = w->map->body(3)->getCenterOfMassTransform();
  Eigen::VectorXd q = neutralConfiguration(model);
  q(2) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(writeState(model, *w->map, bdata, q, Eigen::VectorXd::Zero(model.nv)),
               InvalidArgumentError);
  EXPECT_THROW(writeState(model, *w->map, bdata, neutralConfiguration(model),
                          Eigen::VectorXd::Zero(model.nv + 1)),
               InvalidArgumentError);
  EXPECT_TRUE(w->map->body(3)->getCenterOfMassTransform() == X_before);
  // Velocities need a configuration first.
  Eigen::VectorXd v;
  EXPECT_THROW(readVelocities(model, *w->map, bdata, v), InvalidArgumentError);
  // A map for another model.
  const Model other = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  BridgeData other_data(other);
  Eigen::VectorXd q_other;
  EXPECT_THROW(readPositions(other, *w->map, other_data, q_other), WorldError);
}

// The fixed- and floating-base models of one URDF share a name and a link count: the map tells
// them apart by their joints. A workspace made for another model is refused before it is
// touched (it would be written beyond its ends).
TEST(StateConversion, AnotherModelOrItsWorkspaceIsRefused) {
  const std::string path = test::modelPath("kuka_iiwa/model.urdf");
  const Model fixed = loadUrdf(path);
  ModelOptions options;
  options.floating_base = true;
  const Model floating = loadUrdf(path, options);
  ASSERT_EQ(floating.name, fixed.name);
  ASSERT_EQ(floating.numLinks(), fixed.numLinks());
  auto w = buildRigidBodyWorld(fixed, {}, randomConfiguration(fixed, 4));
  BridgeData floating_data(floating);
  Eigen::VectorXd q;
  try {
    readPositions(floating, *w->map, floating_data, q);
    ADD_FAILURE() << "the floating-base model was accepted for the fixed-base map";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("free joint to the world"), std::string::npos) << e.what();
  }
  // The same model but one link's mass, or one link's parent: the link named.
  Model heavier = fixed;
  heavier.inertias[4] = Inertia(2.0 * fixed.inertias[4].mass(), fixed.inertias[4].com(),
                                fixed.inertias[4].inertiaAboutCom());
  Model rewired = fixed;
  rewired.parents[5] = 3;
  for (const Model* other : {&heavier, &rewired}) {
    BridgeData other_data(*other);
    const int k = other == &heavier ? 4 : 5;
    try {
      readPositions(*other, *w->map, other_data, q);
      ADD_FAILURE() << "a changed link " << k << " was accepted";
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find("link '" + fixed.link_names[k] + "' of model"),
                std::string::npos)
          << e.what();
    }
  }
  // A pendulum's workspace (holding a configuration, so only the model check can refuse it) with
  // the iiwa: every entry point refuses it, the bodies untouched.
  const Model pendulum = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto pendulum_world = buildRigidBodyWorld(pendulum);
  BridgeData pendulum_data(pendulum);
  Eigen::VectorXd q_pendulum;
  readPositions(pendulum, *pendulum_world->map, pendulum_data, q_pendulum);
  const btTransform X_before = w->map->body(3)->getCenterOfMassTransform();
  const btVector3 omega_before = w->map->body(3)->getAngularVelocity();
  Eigen::VectorXd v, Q;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(fixed.nv);
  const auto expectRefused = [&](const char* function, const std::function<void()>& call) {
    try {
      call();
      ADD_FAILURE() << function << " accepted a pendulum's BridgeData for the iiwa";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(function) +
                                           ": the BridgeData was made for model 'pendulum'"),
                std::string::npos)
          << e.what();
    }
  };
  expectRefused("readPositions", [&] { readPositions(fixed, *w->map, pendulum_data, q); });
  expectRefused("readVelocities", [&] { readVelocities(fixed, *w->map, pendulum_data, v); });
  expectRefused("writeState", [&] {
    writeState(fixed, *w->map, pendulum_data, neutralConfiguration(fixed), zero);
  });
  expectRefused("computeJointErrors", [&] { computeJointErrors(fixed, *w->map, pendulum_data); });
  expectRefused("applyJointImpulses",
                [&] { applyJointImpulses(fixed, *w->map, pendulum_data, zero, 1e-3); });
  expectRefused("addJointForces", [&] { addJointForces(fixed, *w->map, pendulum_data, zero); });
  expectRefused("removeJointForces", [&] { removeJointForces(fixed, *w->map, pendulum_data); });
  expectRefused("generalizedForceFromBodyForces",
                [&] { generalizedForceFromBodyForces(fixed, *w->map, pendulum_data, Q); });
  EXPECT_TRUE(w->map->body(3)->getCenterOfMassTransform() == X_before);
  EXPECT_TRUE(w->map->body(3)->getAngularVelocity() == omega_before);
}

// Two maps over one body: the second is refused while the first lives.
TEST(StateConversion, ABodyBelongsToOneMap) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model);
  std::vector<btRigidBody*> bodies;
  std::vector<Transform> X_LB;
  std::vector<btTypedConstraint*> constraints;
  for (int k = 0; k < model.numLinks(); ++k) {
    bodies.push_back(w->map->body(k));
    X_LB.push_back(w->map->X_LB(k));
    constraints.push_back(w->map->constraint(k));
  }
  const std::vector<bool> parent_is_a(model.numLinks(), false);
  try {
    RigidBodyMap second(model, w->world.get(), bodies, X_LB, constraints, parent_is_a);
    FAIL() << "a second map over the same bodies was accepted";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("already belongs to model"), std::string::npos)
        << e.what();
  }
  w->map.reset();
  RigidBodyMap second(model, w->world.get(), bodies, X_LB, constraints, parent_is_a);
  EXPECT_EQ(second.body(1), bodies[1]);
}

}  // namespace
}  // namespace gcbridge
