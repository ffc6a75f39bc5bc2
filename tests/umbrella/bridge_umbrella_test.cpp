// gcbridge/bridge.hpp alone gives the whole library (and gcbridge/dynamics.hpp, which it builds
// on): this file includes nothing else of gcbridge and calls one function of every public header
// behind it, on the KUKA iiwa in Bullet's rigid bodies and as a btMultiBody.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <gcbridge/bridge.hpp>
#include <gcbridge/dynamics.hpp>

namespace gcbridge {
namespace {

Model iiwa() { return loadUrdf(std::string(GCBRIDGE_MODELS_DIR) + "/kuka_iiwa/model.urdf"); }

// Rigid bodies: the world, its map, state and forces, contacts, motors, inference, .bullet files.
TEST(BridgeUmbrella, RigidBodies) {
  EXPECT_EQ(bulletScalarSize(), static_cast<int>(sizeof(btScalar)));  // bullet_precision.hpp
  const Model model = iiwa();
  const Eigen::VectorXd q0 = randomConfiguration(model, 7);
  auto world = buildRigidBodyWorld(model, RigidBodyOptions{}, q0);  // rigid_body_world.hpp
  BridgeData bdata(model);                                         // rigid_body_map.hpp
  Eigen::VectorXd q, v;
  readState(model, *world->map, bdata, q, v);  // state_conversion.hpp
  EXPECT_LT(difference(model, q0, q).norm(), sizeof(btScalar) == 8 ? 1e-9 : 2e-5);
  addJointForces(model, *world->map, bdata, Eigen::VectorXd::Ones(model.nv));  // force_conversion.hpp
  removeJointForces(model, *world->map, bdata);
  EXPECT_TRUE(readContacts(model, *world->map).empty());  // contact_reading.hpp
  JointMotors motors(model, *world->map);                  // joint_motors.hpp
  // The world's bodies are the built model's until its map goes; then read a model out of them.
  world->map.reset();
  const InferredModel inferred = inferModelFromWorld(*world->world);  // world_inference.hpp
  EXPECT_EQ(inferred.model.nv, model.nv);
  const std::string path = ::testing::TempDir() + "bridge_umbrella.bullet";
  saveBulletFile(*world->world, path);  // bullet_file.hpp
  EXPECT_GT(loadBulletFile(path)->world().getNumCollisionObjects(), 0);
  std::remove(path.c_str());
}

// btMultiBody: the builder, its motors and reading a model back.
TEST(BridgeUmbrella, MultiBody) {
  const Model model = iiwa();
  auto multibody = buildMultiBody(model);  // multibody_builder.hpp
  MultiBodyMotors motors(model, multibody->layout, *multibody->body,
                         *multibody->world);  // multibody_motors.hpp
  const InferredMultiBody inferred = inferModelFromMultiBody(*multibody->body);  // multibody_inference.hpp
  EXPECT_EQ(inferred.model.nv, model.nv);
}

}  // namespace
}  // namespace gcbridge
