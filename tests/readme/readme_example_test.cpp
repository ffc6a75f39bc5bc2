// The README's "drop it into your Bullet app" example, verbatim between the markers, run on a
// hand-built two-hinge arm: it compiles, the plugin runs every substep, and the PD with gravity
// compensation holds the pose the arm was built in.

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <gtest/gtest.h>

#include <gcbridge/bridge/world_inference.hpp>
#include <gcbridge/dynamics/configuration.hpp>
#include <gcbridge/dynamics/rnea.hpp>
#include <gcbridge/plugin/plugin.hpp>
#include <iostream>
#include <memory>
#include <sstream>

namespace {

TEST(ReadmeExample, DropInPluginHoldsAHandBuiltArm) {
  // The app: an arm of two 5 kg boxes hinged to the static world and to each other, tilted.
  // (Explicit PD needs h Kd / lambda_min(M) < 2: with 1 kg boxes these gains diverge.)
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  auto world_owner =
      std::make_unique<btDiscreteDynamicsWorld>(&dispatcher, &broadphase, &solver, &configuration);
  btDiscreteDynamicsWorld* world = world_owner.get();
  world->setGravity(btVector3(0, 0, -9.81));
  btBoxShape shape(btVector3(0.03, 0.03, 0.15));
  btVector3 inertia;
  shape.calculateLocalInertia(5.0, inertia);
  std::unique_ptr<btRigidBody> upper, lower;
  const btQuaternion tilt(btVector3(0, 1, 0), 0.4);
  for (auto* body : {&upper, &lower}) {
    btRigidBody::btRigidBodyConstructionInfo info(5.0, nullptr, &shape, inertia);
    // The upper box hangs from (0, 0, 1), the lower one from the upper one's bottom.
    const btVector3 top(0, 0, 1.0);
    const btVector3 centre = body == &upper ? top + quatRotate(tilt, btVector3(0, 0, -0.15))
                                            : top + quatRotate(tilt, btVector3(0, 0, -0.45));
    info.m_startWorldTransform = btTransform(tilt, centre);
    *body = std::make_unique<btRigidBody>(info);
    (*body)->setActivationState(DISABLE_DEACTIVATION);
    world->addRigidBody(body->get());
  }
  btHingeConstraint shoulder(*upper, btVector3(0, 0, 0.15), btVector3(0, 1, 0));
  btHingeConstraint elbow(*upper, *lower, btVector3(0, 0, -0.15), btVector3(0, 0, 0.15),
                          btVector3(0, 1, 0), btVector3(0, 1, 0));
  world->addConstraint(&shoulder, true);
  world->addConstraint(&elbow, true);
  std::ostringstream captured;
  std::streambuf* cout_buffer = std::cout.rdbuf(captured.rdbuf());

  // README example begins.
  gcbridge::InferredModel robot = gcbridge::inferModelFromWorld(*world);
  gcbridge::Data data(robot.model);

  // Gravity compensation plus joint PD toward the pose at inference, on the manifold.
  const Eigen::VectorXd q_ref = robot.q;
  auto controller = [&](double, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        Eigen::VectorXd& tau) {
    tau = gcbridge::computeGeneralizedGravity(robot.model, data, q) +
          50.0 * gcbridge::difference(robot.model, q, q_ref) - 5.0 * v;
  };
  auto plugin = gcbridge::attach(*world, robot.model, *robot.map, controller);

  world->stepSimulation(1.0 / 60.0, 10, 1.0 / 240.0);  // the controller runs every substep
  std::cout << plugin->last().q.transpose() << "\n";   // latest q, v, tau, saturation, errors
  // README example ends.

  std::cout.rdbuf(cout_buffer);
  EXPECT_EQ(robot.model.nv, 2);
  EXPECT_EQ(plugin->substeps(), 4);
  EXPECT_FALSE(captured.str().empty());
  // One more second: the arm stays where it was built (without control it swings by radians).
  for (int i = 0; i < 60; ++i) world->stepSimulation(1.0 / 60.0, 10, 1.0 / 240.0);
  EXPECT_LT((plugin->last().q - robot.q).cwiseAbs().maxCoeff(), 1e-3);
  plugin.reset();
  robot.map.reset();
  world->removeConstraint(&elbow);
  world->removeConstraint(&shoulder);
  world->removeRigidBody(lower.get());
  world->removeRigidBody(upper.get());
}

}  // namespace
