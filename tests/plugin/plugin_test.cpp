// The plugin in real Bullet worlds: forces act exactly once per substep whatever the number of
// substeps, the application's callbacks and user pointer survive attach and detach, two robots
// share a world, worlds stepped in turn and on threads of their own, the zero-order hold, variable
// and zero-substep steps, one controller on three engines (rigid bodies, btMultiBody, gcbridge's
// integrators), and bad controllers.

#include "gcbridge/plugin/plugin.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/joint_motors.hpp"
#include "gcbridge/bridge/multibody_motors.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kTolerance = kDouble ? 1e-12 : 1e-5;
// A substep that is exact in binary (1/256 s), so that several substeps per call add up exactly in
// single precision too (Bullet counts substeps from its accumulated btScalar time).
constexpr double kH = 1.0 / 256.0;

// A free box (no joints: no solver error) in zero gravity.
Model freeBox() {
  ModelBuilder b("box");
  b.addLink("box", 2.0, Vector3::Zero(), Vector3(0.02, 0.03, 0.04).asDiagonal());
  ModelOptions options;
  options.floating_base = true;
  options.gravity_W = Vector3::Zero();
  return b.build(options);
}

// A gravity-compensation controller: tau = g(q).
ControlFunction gravityCompensation(const Model& model) {
  auto data = std::make_shared<Data>(model);
  return [&model, data](double, const Eigen::VectorXd& q, const Eigen::VectorXd&,
                        Eigen::VectorXd& tau) { tau = computeGeneralizedGravity(model, *data, q); };
}

// Inside the world's post-tick, after the plugins' post-tick work (the dispatcher calls the
// application's post-tick last): how far each body's accumulated force and torque are from
// gravity alone (Bullet's m g, applied at the start of stepSimulation). Reading the accumulators
// after stepSimulation would prove nothing: Bullet clears them at its end.
struct ForceProbe {
  std::vector<const btRigidBody*> bodies;
  int substeps = 0;
  double worst = 0.0;  // largest |F - m g| or |torque| seen [N, N m]
  void look() {
    ++substeps;
    for (const btRigidBody* body : bodies) {
      const btVector3 gravity_force = body->getGravity() / body->getInvMass();
      worst = std::max<double>(worst, (body->getTotalForce() - gravity_force).length());
      worst = std::max<double>(worst, body->getTotalTorque().length());
    }
  }
};
void probePostTick(btDynamicsWorld* world, btScalar) {
  static_cast<ForceProbe*>(world->getWorldUserInfo())->look();
}
ForceProbe probeOf(const RigidBodyMap& map) {
  ForceProbe probe;
  for (int k = 0; k < map.numLinks(); ++k) {
    if (map.body(k) != nullptr) probe.bodies.push_back(map.body(k));
  }
  return probe;
}

// A controller applying a constant tau.
ControlFunction constant(const Eigen::VectorXd& tau) {
  return [tau](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& out) {
    out = tau;
  };
}

// A body-frame force of `fx` [N] along x on the free box (no torque: no gyroscopic effect).
Eigen::VectorXd pushX(double fx) {
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(6);
  tau(3) = fx;
  return tau;
}

// Forces act during exactly the substeps they are for: with 4 substeps per call, each substep's
// velocity change is h a, not 1, 2, 3, 4 times that (bullet-facts.md's accumulation).
TEST(Plugin, ForcesActOncePerSubstep) {
  const Model model = freeBox();
  RigidBodyOptions world_options;
  world_options.collision_shapes = false;
  auto w = buildRigidBodyWorld(model, world_options);
  // A constant body-frame force along x (no torque: no gyroscopic effect).
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(6);
  tau(3) = 3.0;
  std::vector<Eigen::VectorXd> v_log;
  PluginOptions options;
  options.log = [&](const SubstepRecord& r) { v_log.push_back(r.v); };
  ForceProbe probe = probeOf(*w->map);
  w->world->setInternalTickCallback(probePostTick, &probe, /*isPreTick=*/false);
  auto plugin = attach(
      *w->world, model, *w->map,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& out) {
        out = tau;
      },
      options);
  for (int call = 0; call < 3; ++call) w->world->stepSimulation(4 * kH, 4, kH);
  ASSERT_EQ(v_log.size(), 12u);
  EXPECT_EQ(plugin->substeps(), 12);
  EXPECT_NEAR(plugin->time(), 12 * kH, kTolerance);
  // v at the start of substep i is i h F/m.
  for (std::size_t i = 0; i < v_log.size(); ++i) {
    EXPECT_NEAR(v_log[i](3), i * kH * 3.0 / 2.0, kTolerance) << "substep " << i;
  }
  // After each substep's post-tick nothing of the plugin is left in the accumulators (zero
  // gravity here: they must be empty).
  EXPECT_EQ(probe.substeps, 12);
  EXPECT_LT(probe.worst, kTolerance);
}

// The application's callbacks and user pointer keep working while plugins come and go.
struct AppState {
  int pre = 0, post = 0;
  ForceProbe probe;  // looked through by appPostTickProbe
};
void appPreTick(btDynamicsWorld* world, btScalar) {
  ++static_cast<AppState*>(world->getWorldUserInfo())->pre;
}
void appPostTick(btDynamicsWorld* world, btScalar) {
  ++static_cast<AppState*>(world->getWorldUserInfo())->post;
}
void appPostTickProbe(btDynamicsWorld* world, btScalar) {
  AppState* app = static_cast<AppState*>(world->getWorldUserInfo());
  ++app->post;
  app->probe.look();
}

// The application re-installs its post-tick while a plugin runs; a second plugin attaching then
// takes that slot back and keeps the application's pre-tick, which the dispatcher still holds.
TEST(Plugin, AttachKeepsTheApplicationsOtherCallback) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model);
  AppState app;
  w->world->setInternalTickCallback(appPreTick, &app, true);
  w->world->setInternalTickCallback(appPostTick, &app, false);
  auto first = attach(*w->world, model, *w->map, gravityCompensation(model));
  w->world->setInternalTickCallback(appPostTick, &app, false);
  auto second = attach(*w->world, model, *w->map, gravityCompensation(model));
  w->world->stepSimulation(2 * kH, 2, kH);
  EXPECT_EQ(app.pre, 2);
  EXPECT_EQ(app.post, 2);
  EXPECT_EQ(second->errorCount(), 0);
  // Both detached: the application's two callbacks are back.
  first->detach();
  second->detach();
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_EQ(app.pre, 3);
  EXPECT_EQ(app.post, 3);
}

TEST(Plugin, ChainsTheApplicationsCallbacks) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model);
  AppState app;
  w->world->setInternalTickCallback(appPreTick, &app, true);
  w->world->setInternalTickCallback(appPostTick, &app, false);
  int controller_calls = 0;
  auto plugin = attach(
      *w->world, model, *w->map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        ++controller_calls;
        gravityCompensation(model)(t, q, v, tau);
      });
  EXPECT_TRUE(plugin->isRunning());
  w->world->stepSimulation(3 * kH, 3, kH);
  EXPECT_EQ(app.pre, 3);
  EXPECT_EQ(app.post, 3);
  EXPECT_EQ(controller_calls, 3);
  EXPECT_EQ(w->world->getWorldUserInfo(), &app);
  plugin->detach();
  EXPECT_FALSE(plugin->isRunning());
  w->world->stepSimulation(2 * kH, 2, kH);
  EXPECT_EQ(app.pre, 5);
  EXPECT_EQ(app.post, 5);
  EXPECT_EQ(controller_calls, 3);
  // Re-attached, then the application replaces only the post-tick callback (Bullet's default
  // slot): the plugin must not apply forces it could not take out; it says so and records it.
  // The application's new post-tick sees only gravity in the accumulators (the plugin's g(q)
  // would be there otherwise: the pendulum is not at q = 0 after the uncontrolled steps).
  {
    auto plugin2 = attach(*w->world, model, *w->map, gravityCompensation(model));
    app.probe = probeOf(*w->map);
    w->world->setInternalTickCallback(appPostTickProbe, &app);
    EXPECT_FALSE(plugin2->isRunning());
    w->world->stepSimulation(kH, 1, kH);
    EXPECT_EQ(app.pre, 6);
    EXPECT_EQ(app.post, 6);
    EXPECT_EQ(plugin2->errorCount(), 1);
    EXPECT_NE(plugin2->last().error.find("post-tick"), std::string::npos);
    EXPECT_EQ(app.probe.substeps, 1);
    EXPECT_LT(app.probe.worst, 1e-9);
  }
  // Re-attached, then the application installs a new callback: the plugin stops, says so, and
  // detaching leaves the application's callback.
  auto again = attach(*w->world, model, *w->map, gravityCompensation(model));
  w->world->setInternalTickCallback(appPreTick, &app, true);
  EXPECT_FALSE(again->isRunning());
  again->detach();
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_EQ(app.pre, 7);
  EXPECT_EQ(app.post, 7);
}

// Two pendulums an application builds by hand in one world: 1 kg boxes hanging 0.2 m below
// pivots at x = 0 and x = 1 (z = 1), tilted 0.5 rad about y, each hinged to the world about y.
// The bodies keep Bullet's default activation (they may fall asleep).
struct TwoHandBuiltPendulums {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btBoxShape shape{btVector3(0.05, 0.05, 0.2)};
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btTypedConstraint>> hinges;

  TwoHandBuiltPendulums() {
    world.setGravity(btVector3(0, 0, -9.81));
    for (int robot = 0; robot < 2; ++robot) {
      btVector3 inertia;
      shape.calculateLocalInertia(1.0, inertia);
      btRigidBody::btRigidBodyConstructionInfo info(1.0, nullptr, &shape, inertia);
      const btVector3 pivot(robot * 1.0, 0, 1.0);
      const btQuaternion tilt(btVector3(0, 1, 0), 0.5);
      info.m_startWorldTransform =
          btTransform(tilt, pivot + quatRotate(tilt, btVector3(0, 0, -0.2)));
      bodies.push_back(std::make_unique<btRigidBody>(info));
      world.addRigidBody(bodies.back().get());
      hinges.push_back(std::make_unique<btHingeConstraint>(*bodies.back(), btVector3(0, 0, 0.2),
                                                           btVector3(0, 1, 0)));
      world.addConstraint(hinges.back().get());
    }
  }
  ~TwoHandBuiltPendulums() {
    for (auto& hinge : hinges) world.removeConstraint(hinge.get());
    for (auto& body : bodies) world.removeRigidBody(body.get());
  }
  /// Pendulum `robot`'s model and map, inferred from the world.
  InferredModel infer(int robot) {
    InferenceOptions options;
    options.start = bodies[robot].get();
    return inferModelFromWorld(world, options);
  }
};

// Two pendulums built by hand in one world, each its own model and plugin holding it still.
TEST(Plugin, TwoRobotsShareAWorld) {
  TwoHandBuiltPendulums p;
  p.world.getSolverInfo().m_numIterations = 100;
  for (auto& body : p.bodies) body->setActivationState(DISABLE_DEACTIVATION);
  std::vector<InferredModel> robots;
  std::vector<std::unique_ptr<Plugin>> plugins;
  for (int robot = 0; robot < 2; ++robot) robots.push_back(p.infer(robot));
  for (int robot = 0; robot < 2; ++robot) {
    plugins.push_back(attach(p.world, robots[robot].model, *robots[robot].map,
                             gravityCompensation(robots[robot].model)));
  }
  const btTransform start0 = p.bodies[0]->getCenterOfMassTransform();
  for (int call = 0; call < 240; ++call) p.world.stepSimulation(kH, 1, kH);
  // Both held (without control each would swing by radians in 1 s).
  for (int robot = 0; robot < 2; ++robot) {
    EXPECT_EQ(plugins[robot]->substeps(), 240);
    EXPECT_LT((plugins[robot]->last().q - robots[robot].q).cwiseAbs().maxCoeff(),
              kDouble ? 1e-6 : 1e-3);
  }
  EXPECT_LT((p.bodies[0]->getCenterOfMassPosition() - start0.getOrigin()).length(),
            kDouble ? 1e-6 : 1e-3);
}

// The world is checked once a substep, when the state is read: a controller that disables its
// own joint's constraint still has its forces applied in that substep, and the next substep's
// read reports the constraint and applies nothing.
TEST(Plugin, AWorldChangedByTheControllerIsCaughtAtTheNextRead) {
  TwoHandBuiltPendulums p;
  InferredModel robot = p.infer(0);
  const ControlFunction hold = gravityCompensation(robot.model);
  int calls = 0;
  std::vector<std::string> errors;
  PluginOptions options;
  options.on_error = [&](const std::string& message) { errors.push_back(message); };
  auto plugin = attach(
      p.world, robot.model, *robot.map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        hold(t, q, v, tau);
        if (++calls == 2) p.hinges[0]->setEnabled(false);
      },
      options);
  for (int call = 0; call < 2; ++call) p.world.stepSimulation(kH, 1, kH);
  EXPECT_EQ(plugin->errorCount(), 0);
  EXPECT_FALSE(plugin->last().tau.isZero(0.0));
  p.world.stepSimulation(kH, 1, kH);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("disabled"), std::string::npos) << errors[0];
  EXPECT_TRUE(plugin->last().tau.isZero(0.0));
}

// Zero-order hold: with a control period of 4 substeps the controller runs every 4th one.
TEST(Plugin, ZeroOrderHoldAtTheControlPeriod) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  auto w = buildRigidBodyWorld(model);
  int calls = 0;
  PluginOptions options;
  options.control_period = 4 * kH;
  std::vector<bool> ran;
  options.log = [&](const SubstepRecord& r) { ran.push_back(r.controller_ran); };
  auto plugin = attach(
      *w->world, model, *w->map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        ++calls;
        gravityCompensation(model)(t, q, v, tau);
      },
      options);
  for (int call = 0; call < 12; ++call) w->world->stepSimulation(kH, 1, kH);
  EXPECT_EQ(calls, 3);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(ran[i], i % 4 == 0) << i;
}

// Variable steps run one substep of the given length; a call shorter than the fixed substep runs
// none, and then nothing happens and nothing is left applied.
TEST(Plugin, VariableAndZeroSubstepCalls) {
  const Model model = freeBox();
  RigidBodyOptions world_options;
  world_options.collision_shapes = false;
  auto w = buildRigidBodyWorld(model, world_options);
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(6);
  tau(4) = 1.0;
  int calls = 0;
  auto plugin =
      attach(*w->world, model, *w->map,
             [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& out) {
               ++calls;
               out = tau;
             });
  w->world->stepSimulation(0.01, 0);  // one variable substep of 10 ms
  EXPECT_EQ(plugin->substeps(), 1);
  EXPECT_NEAR(plugin->time(), 0.01, kTolerance);
  EXPECT_NEAR(w->map->body(0)->getLinearVelocity().y(), 0.01 * 1.0 / 2.0, kTolerance);
  // Accumulates h / 4, runs no substep: the controller is not called, nothing moves.
  w->world->stepSimulation(0.25 * kH, 1, kH);
  EXPECT_EQ(plugin->substeps(), 1);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(w->map->body(0)->getLinearVelocity().y(), 0.005, kTolerance);
  // The next call runs one substep (h / 4 + 3 h / 4, exact in binary) of exactly h F/m: nothing
  // was left over.
  w->world->stepSimulation(0.75 * kH, 1, kH);
  EXPECT_EQ(plugin->substeps(), 2);
  EXPECT_EQ(calls, 2);
  EXPECT_NEAR(w->map->body(0)->getLinearVelocity().y(), 0.005 + kH * 1.0 / 2.0, kTolerance);
}

// One controller, three engines: gravity compensation holds the iiwa in a rigid-body world, in
// its btMultiBody and in gcbridge's RK4 integrator.
TEST(Plugin, OneControllerThreeEngines) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  Eigen::VectorXd q0 = neutralConfiguration(model);
  q0 << 0.3, 0.8, -0.4, -1.2, 0.5, 0.9, 0.1;
  const ControlFunction controller = gravityCompensation(model);
  // Rigid bodies, 1 s at 1 kHz, 4 substeps per call, 200 solver iterations.
  RigidBodyOptions rigid_options;
  rigid_options.substep = 1e-3;
  rigid_options.solver_iterations = 200;
  auto rigid = buildRigidBodyWorld(model, rigid_options, q0);
  auto rigid_plugin = attach(*rigid->world, model, *rigid->map, controller);
  for (int call = 0; call < 250; ++call) rigid->world->stepSimulation(4e-3, 4, 1e-3);
  EXPECT_TRUE(matricesNear(rigid_plugin->last().q, q0, kDouble ? 1e-9 : 1e-2));
  // btMultiBody.
  auto multibody = buildMultiBody(model, {}, q0);
  auto mb_plugin =
      attachMultiBody(*multibody->world, model, multibody->layout, *multibody->body, controller);
  for (int call = 0; call < 250; ++call) multibody->world->stepSimulation(4e-3, 4, 1e-3);
  EXPECT_EQ(mb_plugin->substeps(), 1000);
  EXPECT_TRUE(matricesNear(mb_plugin->last().q, q0, kDouble ? 1e-9 : 1e-2));
  // gcbridge's RK4.
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(model.nv);
  const TorqueFunction torque = asTorqueFunction(model, controller);
  for (int i = 0; i < 1000; ++i) rungeKutta4Step(model, ws, i * 1e-3, q, v, 1e-3, torque);
  EXPECT_TRUE(matricesNear(q, q0, 1e-9));
}

// The same with a floating base (the free root's wrench: added to the btMultiBody's base and
// taken out again) and a moving start: computed torque toward q_target, tau = RNEA(q, v, a*)
// with a* = Kp (q_target - q) - Kd v on the manifold, so that in every engine the error follows
// e'' + Kd e' + Kp e = 0. The three trajectories agree with each other while the base moves.
TEST(Plugin, OneControllerThreeEnginesFloatingBaseMoving) {
  // A floating 3 kg box carrying a three-link arm (joints about z, y, y), with gravity.
  ModelBuilder b("floating_arm");
  const Matrix3 I = Vector3(0.02, 0.03, 0.04).asDiagonal();
  b.addLink("base", 3.0, Vector3::Zero(), I);
  b.addLink("upper", 1.5, Vector3(0.0, 0.0, 0.15), 0.3 * I);
  b.addLink("lower", 1.0, Vector3(0.0, 0.0, 0.15), 0.2 * I);
  b.addLink("hand", 0.5, Vector3(0.05, 0.0, 0.05), 0.1 * I);
  b.addRevolute("yaw", "base", "upper", Transform(Matrix3::Identity(), Vector3(0, 0, 0.1)),
                Vector3::UnitZ());
  b.addRevolute("shoulder", "upper", "lower", Transform(Matrix3::Identity(), Vector3(0, 0, 0.3)),
                Vector3::UnitY());
  b.addRevolute("elbow", "lower", "hand", Transform(Matrix3::Identity(), Vector3(0, 0, 0.3)),
                Vector3::UnitY());
  ModelOptions model_options;
  model_options.floating_base = true;
  const Model model = b.build(model_options);
  ASSERT_EQ(model.nv, 9);
  Eigen::VectorXd q_target = neutralConfiguration(model);
  q_target.tail(3) << 0.3, 0.8, -0.4;
  const Eigen::VectorXd q0 = integrate(model, q_target, randomVector(model.nv, 7, 0.2), 1.0);
  const Eigen::VectorXd v0 = randomVector(model.nv, 8, 0.5);
  const double kp = 100.0, kd = 20.0;
  auto data = std::make_shared<Data>(model);
  const ControlFunction controller = [&model, data, q_target, kp, kd](
                                         double, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                         Eigen::VectorXd& tau) {
    const Eigen::VectorXd a = kp * difference(model, q, q_target) - kd * v;
    tau = rnea(model, *data, q, v, a);
  };
  const double h = 1e-3;
  const int n = 600;
  // Rigid bodies.
  RigidBodyOptions rigid_options;
  rigid_options.substep = h;
  rigid_options.solver_iterations = 200;
  rigid_options.collision_shapes = false;
  auto rigid = buildRigidBodyWorld(model, rigid_options, q0, v0);
  auto rigid_plugin = attach(*rigid->world, model, *rigid->map, controller);
  for (int call = 0; call < n / 4; ++call) rigid->world->stepSimulation(4 * h, 4, h);
  Eigen::VectorXd q_rigid, v_rigid;
  BridgeData bdata(model);
  readState(model, *rigid->map, bdata, q_rigid, v_rigid);
  // btMultiBody.
  auto multibody = buildMultiBody(model, {}, q0, v0);
  auto mb_plugin =
      attachMultiBody(*multibody->world, model, multibody->layout, *multibody->body, controller);
  for (int call = 0; call < n / 4; ++call) multibody->world->stepSimulation(4 * h, 4, h);
  EXPECT_EQ(mb_plugin->substeps(), n);
  Eigen::VectorXd q_mb, v_mb;
  getMultiBodyState(model, multibody->layout, *multibody->body, q_mb, v_mb);
  // gcbridge's RK4.
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = q0, v = v0;
  const TorqueFunction torque = asTorqueFunction(model, controller);
  for (int i = 0; i < n; ++i) rungeKutta4Step(model, ws, i * h, q, v, h, torque);
  // The base moved (27 cm) and the error decayed (0.44 to 0.008) in every engine; the engines
  // agree to the first-order integrators' O(h) (Bullet's semi-implicit Euler against RK4:
  // 1.6e-4 measured for both).
  EXPECT_GT((q0.head(3) - q.head(3)).norm(), 0.1);
  const double e0 = difference(model, q0, q_target).norm();
  for (const Eigen::VectorXd* end : {&q_rigid, &q_mb, &q}) {
    EXPECT_LT(difference(model, *end, q_target).norm(), 0.2 * e0);
  }
  EXPECT_LT(difference(model, q, q_mb).norm(), kDouble ? 5e-4 : 5e-3);
  EXPECT_LT(difference(model, q, q_rigid).norm(), kDouble ? 5e-4 : 5e-3);
}

// A bad controller: nothing applied that substep (not even the last good tau: the hold is not
// used), the error recorded, the world not poisoned.
TEST(Plugin, BadControllerOutputAppliesNothing) {
  const Model model = freeBox();
  RigidBodyOptions world_options;
  world_options.collision_shapes = false;
  auto w = buildRigidBodyWorld(model, world_options);
  btRigidBody* body = w->map->body(0);
  int mode = 0;  // 0: fine (3 N along x), 1: NaN, 2: wrong size, 3: throws
  std::vector<std::string> errors;
  PluginOptions options;
  options.on_error = [&](const std::string& message) { errors.push_back(message); };
  auto plugin = attach(
      *w->world, model, *w->map,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
        tau = pushX(3.0);
        if (mode == 1) tau(2) = std::nan("");
        if (mode == 2) tau.resize(3);
        if (mode == 3) throw std::runtime_error("controller failed");
      },
      options);
  // A good substep first: the held tau is 3 N, so "nothing applied" differs from "the last tau
  // applied again" by h F/m in the velocity.
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_EQ(plugin->errorCount(), 0);
  const double v_good = body->getLinearVelocity().x();
  EXPECT_NEAR(v_good, kH * 3.0 / 2.0, kTolerance);
  for (mode = 1; mode <= 3; ++mode) {
    w->world->stepSimulation(kH, 1, kH);
    EXPECT_EQ(plugin->errorCount(), mode);
    EXPECT_FALSE(plugin->last().error.empty());
    EXPECT_TRUE(plugin->last().tau.isZero(0.0));
    EXPECT_EQ(body->getLinearVelocity().x(), v_good) << "mode " << mode;
    EXPECT_TRUE(std::isfinite(body->getLinearVelocity().length()));
    EXPECT_TRUE(std::isfinite(body->getCenterOfMassPosition().length()));
  }
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("NaN"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("returned 3 values"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("controller failed"), std::string::npos) << errors[2];
  // Good again: the new tau acts.
  mode = 0;
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_NEAR(body->getLinearVelocity().x(), v_good + kH * 3.0 / 2.0, kTolerance);
}

// Configured to throw: the exception leaves stepSimulation with the world's forces cleared, as
// the end of stepSimulation would have (gravity included).
TEST(Plugin, ThrowOnErrorClearsTheForces) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto w = buildRigidBodyWorld(model);
  PluginOptions options;
  options.throw_on_error = true;
  auto throwing = attach(
      *w->world, model, *w->map,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
        tau = Eigen::VectorXd::Constant(3, 1.0);
      },
      options);
  EXPECT_THROW(w->world->stepSimulation(kH, 1, kH), Error);
  // The world is left as the end of stepSimulation leaves it: no force remains.
  for (int k = 0; k < model.numLinks(); ++k) {
    EXPECT_TRUE(w->map->body(k)->getTotalForce().length() == 0);
    EXPECT_TRUE(w->map->body(k)->getTotalTorque().length() == 0);
  }
}

TEST(Plugin, AttachRefusesAMismatch) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  const Model other = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  auto w = buildRigidBodyWorld(model);
  auto other_world = buildRigidBodyWorld(other);
  const ControlFunction none = [](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd& tau) { tau.setZero(); };
  EXPECT_THROW(attach(*w->world, other, *w->map, none), WorldError);
  EXPECT_THROW(attach(*other_world->world, model, *w->map, none), WorldError);
  EXPECT_THROW(attach(*w->world, model, *w->map, nullptr), InvalidArgumentError);
  PluginOptions options;
  options.torque_limits = Eigen::VectorXd::Ones(2);
  EXPECT_THROW(attach(*w->world, model, *w->map, none, options), InvalidArgumentError);
  // Torque limits clamp and report.
  options.torque_limits = effortLimits(model).cwiseMin(0.5);
  auto plugin = attach(
      *w->world, model, *w->map,
      [](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
        tau = Eigen::VectorXd::Constant(5, 2.0);
      },
      options);
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_EQ(plugin->last().saturated, 5);
  EXPECT_TRUE(matricesNear(plugin->last().tau, Eigen::VectorXd::Constant(5, 0.5), 0.0));
}

// A free box in zero gravity with collision shapes off: velocity changes are exactly h F/m.
std::unique_ptr<RigidBodyWorld> freeBoxWorld(const Model& model) {
  RigidBodyOptions world_options;
  world_options.collision_shapes = false;
  return buildRigidBodyWorld(model, world_options);
}

// An on_error handler that throws leaves stepSimulation like throw_on_error: the forces the
// plugins had applied in that substep are taken out and the world's forces are cleared, so the
// next step applies each force once.
TEST(Plugin, ThrowingErrorHandlerLeavesNoForces) {
  const Model model = freeBox();
  auto w = freeBoxWorld(model);
  btRigidBody* body = w->map->body(0);
  // The first plugin pushes with 3 N; the second one's controller fails, and its handler throws.
  auto pushing = attach(*w->world, model, *w->map, constant(pushX(3.0)));
  bool bad = true;
  PluginOptions options;
  options.on_error = [](const std::string& message) { throw std::runtime_error(message); };
  auto failing = attach(
      *w->world, model, *w->map,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
        tau = Eigen::VectorXd::Zero(6);
        if (bad) tau(0) = std::nan("");
      },
      options);
  EXPECT_THROW(w->world->stepSimulation(kH, 1, kH), std::runtime_error);
  EXPECT_EQ(body->getTotalForce().length(), 0.0);
  EXPECT_EQ(body->getTotalTorque().length(), 0.0);
  EXPECT_EQ(body->getLinearVelocity().length(), 0.0);  // the substep never ran
  EXPECT_EQ(failing->errorCount(), 1);
  // The next step pushes once (a force left behind would push twice).
  bad = false;
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_NEAR(body->getLinearVelocity().x(), kH * 3.0 / 2.0, kTolerance);
  EXPECT_EQ(pushing->substeps(), 1);
  EXPECT_EQ(failing->substeps(), 1);
}

// A log callback that throws: every plugin still finishes the substep (takes its forces out and
// counts it), then the exception leaves stepSimulation with the world's forces cleared.
TEST(Plugin, ThrowingLogLeavesNoForces) {
  const Model model = freeBox();
  auto w = freeBoxWorld(model);
  btRigidBody* body = w->map->body(0);
  bool throw_from_log = true;
  PluginOptions options;
  options.log = [&](const SubstepRecord&) {
    if (throw_from_log) throw std::runtime_error("log failed");
  };
  auto logging = attach(*w->world, model, *w->map, constant(Eigen::VectorXd::Zero(6)), options);
  auto pushing = attach(*w->world, model, *w->map, constant(pushX(3.0)));
  // The application's own force, which the end of stepSimulation would clear: so must the abort.
  body->applyCentralForce(btVector3(0, 1, 0));
  EXPECT_THROW(w->world->stepSimulation(kH, 1, kH), std::runtime_error);
  EXPECT_EQ(body->getTotalForce().length(), 0.0);
  EXPECT_EQ(body->getTotalTorque().length(), 0.0);
  // The substep itself ran (the log comes after it): both plugins counted it.
  EXPECT_NEAR(body->getLinearVelocity().x(), kH * 3.0 / 2.0, kTolerance);
  EXPECT_EQ(logging->substeps(), 1);
  EXPECT_EQ(pushing->substeps(), 1);
  EXPECT_NEAR(pushing->time(), kH, kTolerance);
  throw_from_log = false;
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_NEAR(body->getLinearVelocity().x(), 2 * kH * 3.0 / 2.0, kTolerance);
  EXPECT_EQ(pushing->substeps(), 2);
}

// A plugin that detaches itself from its log callback (post-tick) or its controller (pre-tick)
// skips none of the plugins after it in that phase, and leaves no force of its own.
TEST(Plugin, DetachFromACallbackSkipsNobody) {
  const Model model = freeBox();
  {
    auto w = freeBoxWorld(model);
    std::unique_ptr<Plugin> leaving;
    PluginOptions options;
    options.log = [&](const SubstepRecord&) { leaving->detach(); };
    leaving = attach(*w->world, model, *w->map, constant(Eigen::VectorXd::Zero(6)), options);
    auto staying = attach(*w->world, model, *w->map, constant(pushX(3.0)));
    w->world->stepSimulation(2 * kH, 2, kH);
    EXPECT_FALSE(leaving->isRunning());
    EXPECT_EQ(leaving->substeps(), 1);
    EXPECT_EQ(staying->substeps(), 2);
    // Pushed once per substep (a skipped post-tick would leave its force for a second push).
    EXPECT_NEAR(w->map->body(0)->getLinearVelocity().x(), 2 * kH * 3.0 / 2.0, kTolerance);
  }
  {
    auto w = freeBoxWorld(model);
    std::unique_ptr<Plugin> leaving;
    leaving =
        attach(*w->world, model, *w->map,
               [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
                 tau = pushX(5.0);
                 leaving->detach();
               });
    int staying_calls = 0;
    auto staying =
        attach(*w->world, model, *w->map,
               [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
                 ++staying_calls;
                 tau = pushX(3.0);
               });
    w->world->stepSimulation(2 * kH, 2, kH);
    EXPECT_EQ(staying_calls, 2);
    EXPECT_EQ(staying->substeps(), 2);
    // Only the staying plugin's 3 N acted: the leaving one's 5 N was never applied.
    EXPECT_NEAR(w->map->body(0)->getLinearVelocity().x(), 2 * kH * 3.0 / 2.0, kTolerance);
  }
}

// Each world's callbacks find that world's plugins: worlds stepped in turn on one thread, worlds
// made and destroyed (a new one may take a freed one's address), a world whose last plugin left,
// and worlds stepped on threads of their own while another thread attaches and detaches.
TEST(Plugin, EveryWorldRunsItsOwnPlugins) {
  const Model model = freeBox();
  const auto pushes = [&](double fx) { return constant(pushX(fx)); };
  const auto velocity = [](const RigidBodyWorld& w) {
    return static_cast<double>(w.map->body(0)->getLinearVelocity().x());
  };
  auto kept = freeBoxWorld(model);
  auto kept_plugin = attach(*kept->world, model, *kept->map, pushes(2.0));
  for (int round = 1; round <= 6; ++round) {
    auto w = freeBoxWorld(model);
    auto plugin = attach(*w->world, model, *w->map, pushes(round));
    for (int i = 0; i < 3; ++i) {
      kept->world->stepSimulation(kH, 1, kH);
      w->world->stepSimulation(kH, 1, kH);
    }
    EXPECT_EQ(plugin->substeps(), 3);
    EXPECT_NEAR(velocity(*w), 3 * kH * round / 2.0, kTolerance) << "round " << round;
    // Alone again: the world steps without a plugin.
    auto other = freeBoxWorld(model);
    plugin->detach();
    w->world->stepSimulation(kH, 1, kH);
    EXPECT_EQ(plugin->substeps(), 3);
    EXPECT_NEAR(velocity(*w), 3 * kH * round / 2.0, kTolerance) << "round " << round;
    // Another world's plugin (whose hub may take the freed one's place), then one for w again.
    auto other_plugin = attach(*other->world, model, *other->map, pushes(1.0));
    auto again = attach(*w->world, model, *w->map, pushes(-round));
    w->world->stepSimulation(kH, 1, kH);
    EXPECT_EQ(again->substeps(), 1);
    EXPECT_EQ(other_plugin->substeps(), 0);
    EXPECT_NEAR(velocity(*w), 2 * kH * round / 2.0, kTolerance) << "round " << round;
  }
  EXPECT_EQ(kept_plugin->substeps(), 18);
  EXPECT_NEAR(velocity(*kept), 18 * kH * 2.0 / 2.0, kTolerance);
  // Alone from here: each attach below makes the world's hub and each detach drops it.
  kept_plugin->detach();

  // Two worlds on threads of their own, while this one attaches and detaches on a third.
  constexpr int kSubsteps = 400;
  std::vector<std::unique_ptr<RigidBodyWorld>> worlds;
  std::vector<std::unique_ptr<Plugin>> plugins;
  for (int i = 0; i < 2; ++i) {
    worlds.push_back(freeBoxWorld(model));
    plugins.push_back(attach(*worlds[i]->world, model, *worlds[i]->map, pushes(1.0 + i)));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < kSubsteps; ++n) worlds[i]->world->stepSimulation(kH, 1, kH);
    });
  }
  for (int n = 0; n < 200; ++n) {
    auto plugin = attach(*kept->world, model, *kept->map, pushes(0.0));
    kept->world->stepSimulation(kH, 1, kH);
    EXPECT_EQ(plugin->substeps(), 1);
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(plugins[i]->substeps(), kSubsteps);
    EXPECT_NEAR(velocity(*worlds[i]), kSubsteps * kH * (1.0 + i) / 2.0, 1e3 * kTolerance);
  }
}

// The zero-order hold keeps a fixed schedule: a 10 ms period with 1/240 s substeps (2.4 substeps
// per period) runs the controller 100 times per second, not 80 (rounding each period up to 3
// substeps), and the held tau acts on the substeps in between.
TEST(Plugin, ZeroOrderHoldKeepsItsRate) {
  const Model model = freeBox();
  auto w = freeBoxWorld(model);
  const double h = 1.0 / 240.0;
  PluginOptions options;
  options.control_period = 0.01;
  struct Substep {
    bool ran;
    double tau_x, v_x;
  };
  std::vector<Substep> log;
  options.log = [&](const SubstepRecord& r) {
    log.push_back({r.controller_ran, r.tau(3), r.v(3)});
  };
  int calls = 0;
  auto plugin = attach(
      *w->world, model, *w->map,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
        tau = pushX(1.0 + calls % 3);  // 1, 2, 3, 1, ... N: each run differs from the last
        ++calls;
      },
      options);
  const int n = 2400;                                          // 10 s
  for (int i = 0; i < n; ++i) w->world->stepSimulation(h, 0);  // one substep of h each
  ASSERT_EQ(static_cast<int>(log.size()), n);
  EXPECT_EQ(calls, 1000);
  // Run k is due at k * 10 ms: the first substep i with i / 240 >= k / 100, i.e. 5 i >= 12 k.
  std::vector<bool> due(n, false);
  for (int k = 0; (12 * k + 4) / 5 < n; ++k) due[(12 * k + 4) / 5] = true;
  double held = 0.0;
  int runs = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(log[i].ran, due[i]) << "substep " << i;
    if (log[i].ran) held = 1.0 + runs++ % 3;
    EXPECT_EQ(log[i].tau_x, held) << "substep " << i;
    // What acted: the velocity change over the substep is h tau / m (m = 2 kg).
    const double v_next = i + 1 < n ? log[i + 1].v_x : w->map->body(0)->getLinearVelocity().x();
    EXPECT_NEAR(v_next - log[i].v_x, h * held / 2.0, kDouble ? 1e-12 : 1e-5) << "substep " << i;
  }
}

// Controlled bodies do not fall asleep: a slow motion (0.05 rad/s, far below Bullet's sleeping
// thresholds) of a pendulum the application built with default activation keeps being tracked
// after Bullet's 2 s deactivation time; detach gives each body back its own sleeping rule.
TEST(Plugin, ControlledBodiesStayAwake) {
  TwoHandBuiltPendulums p;
  // Robot 0 keeps Bullet's default (it may sleep); the application keeps robot 1 awake itself.
  ASSERT_EQ(p.bodies[0]->getActivationState(), ACTIVE_TAG);
  p.bodies[1]->setActivationState(DISABLE_DEACTIVATION);
  std::vector<InferredModel> robots;
  for (int robot = 0; robot < 2; ++robot) robots.push_back(p.infer(robot));
  // Robot 0 follows q_ref = 0.05 t (gravity compensation plus PD), robot 1 is held.
  const Model& model = robots[0].model;
  auto data = std::make_shared<Data>(model);
  auto tracking = attach(p.world, model, *robots[0].map,
                         [&model, data](double t, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
                           tau = computeGeneralizedGravity(model, *data, q);
                           tau(0) += 50.0 * (0.05 * t - q(0)) + 10.0 * (0.05 - v(0));
                         });
  auto holding =
      attach(p.world, robots[1].model, *robots[1].map, gravityCompensation(robots[1].model));
  EXPECT_EQ(p.bodies[0]->getActivationState(), DISABLE_DEACTIVATION);
  for (int call = 0; call < 4 * 256; ++call) p.world.stepSimulation(kH, 1, kH);  // 4 s
  // Still tracking at 4 s (asleep from about 2 s it would stop near 0.1 rad).
  const double t = tracking->time();
  EXPECT_NEAR(t, 4.0, 1e-9);
  EXPECT_NEAR(tracking->last().q(0), 0.05 * (t - kH), 2e-3);
  tracking->detach();
  holding->detach();
  EXPECT_EQ(p.bodies[0]->getActivationState(), ACTIVE_TAG);
  EXPECT_EQ(p.bodies[1]->getActivationState(), DISABLE_DEACTIVATION);
}

// attachMultiBody refuses a btMultiBody that is not in the world it is given and the projection
// options, and keeps the one
// it drives awake while attached (btMultiBody::setCanSleep), as it was after detach.
TEST(Plugin, AttachMultiBodyChecksTheWorld) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  auto one = buildMultiBody(model);
  auto other = buildMultiBody(model);
  const ControlFunction none = [](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd& tau) { tau.setZero(); };
  EXPECT_THROW(attachMultiBody(*one->world, model, other->layout, *other->body, none), WorldError);
  // A btMultiBody always satisfies its joints: nothing to project.
  for (int every : {0, 3}) {
    PluginOptions projecting;
    projecting.project_on_attach = every == 0;
    projecting.project_every = every;
    EXPECT_THROW(attachMultiBody(*one->world, model, one->layout, *one->body, none, projecting),
                 InvalidArgumentError);
  }
  one->body->setCanSleep(true);
  auto plugin = attachMultiBody(*one->world, model, one->layout, *one->body, none);
  EXPECT_FALSE(one->body->getCanSleep());
  plugin->detach();
  EXPECT_TRUE(one->body->getCanSleep());
}

// On a btMultiBody the plugin adds its joint torques to the application's and takes out exactly
// its own: a torque the application sets before stepSimulation acts on every substep as it
// would without the plugin (Bullet keeps joint torques until the end of stepSimulation).
TEST(Plugin, MultiBodyKeepsTheApplicationsTorques) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  Eigen::VectorXd q0 = neutralConfiguration(model);
  q0 << 0.3, -0.2, 0.4, 0.1, -0.5;
  auto with_plugin = buildMultiBody(model, {}, q0);
  auto reference = buildMultiBody(model, {}, q0);
  const Eigen::VectorXd tau_plugin = (Eigen::VectorXd(5) << 0.5, -0.3, 0.2, 0.1, -0.05).finished();
  const Eigen::VectorXd tau_app = (Eigen::VectorXd(5) << 0.0, 0.4, 0.0, -0.2, 0.0).finished();
  auto plugin = attachMultiBody(*with_plugin->world, model, with_plugin->layout, *with_plugin->body,
                                constant(tau_plugin));
  Eigen::VectorXd q1, v1, q2, v2;
  for (int call = 0; call < 50; ++call) {
    // The application's torques, set before each call; the reference gets both sums itself.
    setMultiBodyJointTorques(model, with_plugin->layout, *with_plugin->body, tau_app);
    setMultiBodyJointTorques(model, reference->layout, *reference->body, tau_app + tau_plugin);
    with_plugin->world->stepSimulation(4 * kH, 4, kH);
    reference->world->stepSimulation(4 * kH, 4, kH);
  }
  EXPECT_EQ(plugin->substeps(), 200);
  getMultiBodyState(model, with_plugin->layout, *with_plugin->body, q1, v1);
  getMultiBodyState(model, reference->layout, *reference->body, q2, v2);
  EXPECT_TRUE(matricesNear(q1, q2, kDouble ? 1e-12 : 1e-4));
  EXPECT_TRUE(matricesNear(v1, v2, kDouble ? 1e-12 : 1e-4));
  EXPECT_GT((q1 - q0).norm(), 0.1);  // it moved: the comparison is not of two resting bodies
}

// A controller that applies no torque and aims at fixed accelerations (Controller::
// targetAcceleration), as a contact-aware law would on a body whose contacts ABA does not know.
class AimingController final : public Controller {
 public:
  AimingController(const Model& model, Eigen::VectorXd qdd) : Controller(model), qdd_(qdd) {}
  const Eigen::VectorXd& compute(double, const Eigen::VectorXd&, const Eigen::VectorXd&) override {
    tau_unsaturated_ = Eigen::VectorXd::Zero(model().nv);
    return finishTorque();
  }
  const Eigen::VectorXd* targetAcceleration() const override { return &qdd_; }

 private:
  Eigen::VectorXd qdd_;
};

// On a btMultiBody, Actuation::JointMotors drives the MultiBodyMotors (revolute, prismatic and
// ball joints of a random tree) to v + h qdd*: one substep through the plugin is the substep of
// the same world whose motors are driven so directly, and detaching takes the motors and their
// colliders out of the world.
TEST(Plugin, MultiBodyJointMotorsAimAtTheControllersAccelerations) {
  const Model model = test::randomTreeModel(21, 7, BallParametrization::Quaternion, false);
  const Eigen::VectorXd q0 = randomConfiguration(model, 22);
  const Eigen::VectorXd v0 = Eigen::VectorXd::LinSpaced(model.nv, -0.4, 0.5);
  const Eigen::VectorXd qdd = Eigen::VectorXd::LinSpaced(model.nv, 2.0, -3.0);
  const Eigen::VectorXd unbounded = Eigen::VectorXd::Constant(model.nv, 1e30);
  auto direct = buildMultiBody(model, {}, q0, v0);
  {
    MultiBodyMotors direct_motors(model, direct->layout, *direct->body, *direct->world);
    direct_motors.drive(v0 + kH * qdd, unbounded, kH);
    direct->world->stepSimulation(kH, 1, kH);
  }
  auto world = buildMultiBody(model, {}, q0, v0);
  const int objects = world->world->getNumCollisionObjects();
  PluginOptions motors;
  motors.actuation = Actuation::JointMotors;
  AimingController aiming(model, qdd);
  auto plugin = attachMultiBody(*world->world, model, world->layout, *world->body, aiming, motors);
  EXPECT_GT(world->world->getNumCollisionObjects(), objects);
  world->world->stepSimulation(kH, 1, kH);
  Eigen::VectorXd q1, v1, q2, v2;
  getMultiBodyState(model, world->layout, *world->body, q1, v1);
  getMultiBodyState(model, direct->layout, *direct->body, q2, v2);
  EXPECT_TRUE(matricesNear(v1, v2, kTolerance));
  EXPECT_TRUE(matricesNear(q1, q2, kTolerance));
  // Near the target (the solver's iterations leave a chain short of it; a ball's motor aims at
  // its turn's Euler angles), and far from where the passive step goes.
  Data data(model);
  const Eigen::VectorXd passive =
      v0 + kH * aba(model, data, q0, v0, Eigen::VectorXd::Zero(model.nv));
  EXPECT_LT((v1 - (v0 + kH * qdd)).norm(), 0.5 * (passive - (v0 + kH * qdd)).norm());
  plugin.reset();
  EXPECT_EQ(world->world->getNumCollisionObjects(), objects);
  EXPECT_EQ(world->world->getNumMultiBodyConstraints(), 0);
}

// Actuation::JointMotors aims the motors at the controller's own accelerations when it has them
// (attach with a Controller) or PluginOptions::motor_accelerations gives them: one unbounded
// substep of the pendulum's five hinges is the substep of the same world whose motors
// (JointMotors) are driven to v + h qdd* directly, and at most half as far from that target as
// the free fall ABA(q, v, 0) would aim at (Bullet's solver leaves three of the five hinges about
// 1e-2 rad/s off it, with 2000 iterations too: measured).
// motor_accelerations without the motors is refused; a wrong-sized one applies nothing.
TEST(Plugin, JointMotorsAimAtTheControllersAccelerations) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  Eigen::VectorXd q0 = neutralConfiguration(model);
  q0 << 0.3, -0.2, 0.4, 0.1, -0.5;
  const Eigen::VectorXd v0 = (Eigen::VectorXd(5) << 0.2, -0.1, 0.3, 0.0, 0.1).finished();
  const Eigen::VectorXd qdd = (Eigen::VectorXd(5) << 2.0, -1.0, 0.5, 3.0, -2.5).finished();
  RigidBodyOptions world_options;
  world_options.substep = kH;
  world_options.collision_shapes = false;
  PluginOptions motors;
  motors.actuation = Actuation::JointMotors;
  AimingController aiming(model, qdd);
  Data data(model);
  const Eigen::VectorXd free_fall = aba(model, data, q0, v0, Eigen::VectorXd::Zero(5));
  auto driven = buildRigidBodyWorld(model, world_options, q0, v0);
  JointMotors driven_motors(model, *driven->map);
  driven_motors.drive(v0 + kH * qdd, Eigen::VectorXd::Constant(5, 1e30), kH);
  driven->step();
  BridgeData driven_data(model);
  Eigen::VectorXd q_driven, v_driven;
  readState(model, *driven->map, driven_data, q_driven, v_driven);
  for (bool by_option : {false, true}) {
    SCOPED_TRACE(by_option ? "motor_accelerations" : "Controller::targetAcceleration");
    auto world = buildRigidBodyWorld(model, world_options, q0, v0);
    std::unique_ptr<Plugin> plugin;
    if (by_option) {
      PluginOptions options = motors;
      options.motor_accelerations = [&qdd]() -> const Eigen::VectorXd& { return qdd; };
      plugin =
          attach(*world->world, model, *world->map, constant(Eigen::VectorXd::Zero(5)), options);
    } else {
      plugin = attach(*world->world, model, *world->map, aiming, motors);
    }
    world->step();
    BridgeData bdata(model);
    Eigen::VectorXd q1, v1;
    readState(model, *world->map, bdata, q1, v1);
    EXPECT_TRUE(matricesNear(v1, v_driven, kTolerance));
    EXPECT_TRUE(matricesNear(q1, q_driven, kTolerance));
    const Eigen::VectorXd target = v0 + kH * qdd;
    EXPECT_LT((v1 - target).norm(), 0.5 * (v0 + kH * free_fall - target).norm());
  }
  auto world = buildRigidBodyWorld(model, world_options, q0, v0);
  PluginOptions forces;
  forces.motor_accelerations = [&qdd]() -> const Eigen::VectorXd& { return qdd; };
  EXPECT_THROW(
      attach(*world->world, model, *world->map, constant(Eigen::VectorXd::Zero(5)), forces),
      InvalidArgumentError);
  // A good substep turns the motors on; a wrong-sized target then applies nothing and turns them
  // off.
  bool short_target = false;
  const Eigen::VectorXd short_qdd = qdd.head(4);
  PluginOptions wrong = motors;
  wrong.motor_accelerations = [&]() -> const Eigen::VectorXd& {
    return short_target ? short_qdd : qdd;
  };
  auto plugin =
      attach(*world->world, model, *world->map, constant(Eigen::VectorXd::Zero(5)), wrong);
  world->step();
  EXPECT_EQ(plugin->errorCount(), 0);
  for (const auto& constraint : world->constraints) {
    EXPECT_TRUE(static_cast<btHingeConstraint*>(constraint.get())->getEnableAngularMotor());
  }
  short_target = true;
  world->step();
  EXPECT_EQ(plugin->errorCount(), 1);
  EXPECT_NE(plugin->last().error.find("motor_accelerations returned 4 values"), std::string::npos)
      << plugin->last().error;
  for (const auto& constraint : world->constraints) {
    EXPECT_FALSE(static_cast<btHingeConstraint*>(constraint.get())->getEnableAngularMotor());
  }
  EXPECT_TRUE(plugin->last().tau.isZero(0.0));
}

// Diagnostics: the velocity residual ||J_k v - V_k|| is near zero in a world whose velocities
// satisfy the joints, and large after an impulse on one body that the joints cannot explain.
TEST(Plugin, DiagnosticsSeeAVelocityThatBreaksAJoint) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  Eigen::VectorXd q0 = neutralConfiguration(model);
  q0 << 0.3, -0.2, 0.4, 0.1, -0.5;
  RigidBodyOptions world_options;
  world_options.solver_iterations = 100;
  auto w = buildRigidBodyWorld(model, world_options, q0);
  PluginOptions options;
  options.diagnostics = true;
  auto plugin = attach(*w->world, model, *w->map, gravityCompensation(model), options);
  for (int call = 0; call < 64; ++call) w->world->stepSimulation(kH, 1, kH);
  const double consistent = plugin->last().velocity_residual;
  EXPECT_LT(consistent, kDouble ? 1e-6 : 1e-3);
  // 0.5 N s on link 2's body (2.16 kg) along x, the hinges' axis: 0.23 m/s no joint motion
  // produces.
  w->map->body(2)->applyCentralImpulse(btVector3(0.5, 0, 0));
  w->world->stepSimulation(kH, 1, kH);
  EXPECT_GT(plugin->last().velocity_residual, 0.1);
  EXPECT_TRUE(plugin->last().error.empty());
}

// A gcbridge Controller attaches as it is: the same substeps, the same torques and the same
// motion as the callable form, on rigid bodies and on a btMultiBody; a controller made for
// another model is refused naming both.
TEST(Plugin, AttachesAControllerAsTheCallableForm) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  const Eigen::VectorXd q0 = randomConfiguration(model, 5);
  const auto trajectory = std::make_shared<Sinusoid>(
      model, q0, Eigen::VectorXd::Constant(model.nv, 0.3), Eigen::VectorXd::Constant(model.nv, 3.0),
      Eigen::VectorXd::Zero(model.nv));
  const auto make = [&] {
    auto controller =
        std::make_unique<ComputedTorque>(model, Eigen::VectorXd::Constant(model.nv, 400.0),
                                         Eigen::VectorXd::Constant(model.nv, 40.0));
    controller->setTrajectory(trajectory);
    return controller;
  };
  auto direct = make(), wrapped = make();
  auto world_a = buildRigidBodyWorld(model, {}, q0);
  auto world_b = buildRigidBodyWorld(model, {}, q0);
  auto plugin_a = attach(*world_a->world, model, *world_a->map, *direct);
  auto plugin_b = attach(*world_b->world, model, *world_b->map,
                         [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             Eigen::VectorXd& tau) { tau = wrapped->compute(t, q, v); });
  for (int i = 0; i < 100; ++i) {
    world_a->step();
    world_b->step();
  }
  EXPECT_EQ(plugin_a->substeps(), 100);
  EXPECT_EQ(plugin_a->errorCount(), 0);
  EXPECT_EQ(plugin_a->last().q, plugin_b->last().q);
  EXPECT_EQ(plugin_a->last().tau, plugin_b->last().tau);

  auto multibody = buildMultiBody(model, {}, q0);
  auto mb_controller = make();
  auto mb_plugin = attachMultiBody(*multibody->world, model, multibody->layout, *multibody->body,
                                   *mb_controller);
  multibody->world->stepSimulation(1.0 / 240.0, 1, 1.0 / 240.0);
  EXPECT_EQ(mb_plugin->substeps(), 1);
  EXPECT_EQ(mb_plugin->errorCount(), 0);

  ModelBuilder other_builder("other");
  other_builder.addLink("a", 1.0, Vector3::Zero(), 0.01 * Matrix3::Identity());
  other_builder.addRevolute("j", "world", "a", Transform::Identity(), Vector3::UnitZ());
  const Model other = other_builder.build();
  ComputedTorque foreign(other, Eigen::VectorXd::Constant(1, 1.0),
                         Eigen::VectorXd::Constant(1, 1.0));
  try {
    attach(*world_a->world, model, *world_a->map, foreign);
    ADD_FAILURE() << "no InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'other'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + model.name + "'"), std::string::npos) << e.what();
  }
}

// A contact-aware controller attached to a world: the plugin reads the feet's contacts from
// Bullet before each run (declared sole corners, switched on while Bullet reports the foot
// touching, or Bullet's own points), the controller stands the humanoid on joint torques alone,
// and its message reaches the substep record.
TEST(Plugin, HandsTheContactsToAContactAwareController) {
  ModelOptions model_options;
  model_options.floating_base = true;
  const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), model_options);
  Eigen::VectorXd q = neutralConfiguration(model);
  q.segment<7>(0) << 0.0, 0.0, 3.5257, std::sin(M_PI_4), 0.0, 0.0, std::cos(M_PI_4);
  ContactFrames soles(model);
  Data data(model);
  for (const char* foot : {"left_ankle", "right_ankle"}) {
    const std::vector<ContactPoint> corners =
        boxSoleCorners(model, data, q, model.linkIndex(foot), Vector3::UnitZ(), 0.25);
    for (std::size_t i = 0; i < corners.size(); ++i) {
      soles.add(foot + std::to_string(i), corners[i]);
    }
  }
  // Declared corners and Bullet's points as forces; declared corners through the knees' and
  // elbows' joint motors, aimed at ABA of the controller's torques (without aimAtStepEnd it gives
  // no accelerations of its own, docs/plugin.md) and at its integrated plan (aimAtStepEnd; the
  // ball joints' torques as forces).
  for (const auto& [declared, motors, aim] : {std::tuple{true, false, false},
                                              {false, false, false},
                                              {true, true, false},
                                              {true, true, true}}) {
    SCOPED_TRACE(std::string(declared ? "declared corners" : "Bullet's points") +
                 (motors ? ", joint motors" : "") + (aim ? " aimed at the plan" : ""));
    RigidBodyOptions world_options;
    world_options.ground_plane = true;
    auto world = buildRigidBodyWorld(model, world_options, q);
    FloatingBaseController controller(model, FloatingBaseSolver::Qp);
    controller.setSetPoint(q);
    if (aim) controller.aimAtStepEnd(world_options.substep);
    PluginOptions options;
    if (declared) options.contact_frames = &soles;
    if (motors) options.actuation = Actuation::JointMotors;
    std::size_t most_contacts = 0;
    options.log = [&](const SubstepRecord& r) {
      most_contacts = std::max(most_contacts, controller.contacts().size());
      EXPECT_EQ(r.controller_message, controller.message());
      EXPECT_TRUE(r.tau.head<6>().isZero(0.0));
    };
    auto plugin = attach(*world->world, model, *world->map, controller, options);
    EXPECT_EQ(controller.targetAcceleration() != nullptr, aim);
    const double start = world->map->body(0)->getCenterOfMassPosition().z();
    for (int i = 0; i < 480; ++i) world->step();
    EXPECT_EQ(plugin->errorCount(), 0);
    if (declared) {
      // Both feet flat on the plane: their 8 corners, and the reference's COM over them.
      EXPECT_EQ(most_contacts, 8u);
      EXPECT_EQ(controller.status(), FloatingBaseStatus::Ok) << controller.message();
    } else {
      // Bullet's manifolds hold up to 4 points per foot (measured: 7 at most here), inside the
      // soles' edges: the reference's COM may be outside their hull (then the target is moved).
      EXPECT_GE(most_contacts, 6u);
      EXPECT_NE(controller.status(), FloatingBaseStatus::NoContacts);
    }
    EXPECT_NEAR(world->map->body(0)->getCenterOfMassPosition().z(), start, 0.01);
  }
  // Bad options: refused when attaching, the world left alone.
  {
    RigidBodyOptions world_options;
    world_options.ground_plane = true;
    auto world = buildRigidBodyWorld(model, world_options, q);
    FloatingBaseController controller(model, FloatingBaseSolver::Qp);
    PluginOptions bad;
    bad.contact_reading.max_distance = NAN;
    EXPECT_THROW(attach(*world->world, model, *world->map, controller, bad), InvalidArgumentError);
    bad = {};
    bad.contact_frames = &soles;
    bad.read_contacts = false;
    EXPECT_THROW(attach(*world->world, model, *world->map, controller, bad), InvalidArgumentError);
    // Frames declared on another model.
    const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
    ContactFrames others(iiwa);
    EXPECT_THROW(readContacts(model, *world->map, others), InvalidArgumentError);
    bad = {};
    bad.contact_frames = &others;
    EXPECT_THROW(attach(*world->world, model, *world->map, controller, bad), InvalidArgumentError);
  }
  // A btMultiBody's manifolds are not read: the application gives the contacts.
  auto multibody = buildMultiBody(model, {}, q);
  FloatingBaseController controller(model, FloatingBaseSolver::Qp);
  EXPECT_THROW(
      attachMultiBody(*multibody->world, model, multibody->layout, *multibody->body, controller),
      InvalidArgumentError);
  PluginOptions given;
  given.read_contacts = false;
  EXPECT_NO_THROW(attachMultiBody(*multibody->world, model, multibody->layout, *multibody->body,
                                  controller, given));
}

}  // namespace
}  // namespace gcbridge
