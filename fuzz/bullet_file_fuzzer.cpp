// .bullet files, corrupted: a valid file of a small world (a static base, a box on a hinge and a
// sphere on a point-to-point) with its bytes overwritten and cut where the input says. Loading it
// must give a world or a gcbridge::WorldError naming the file, never a crash, a hang or a
// sanitizer report; a world it gives must infer to a model or a typed error.
#include <btBulletDynamicsCommon.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_file.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace {

/// The bytes of the valid file every input starts from.
std::vector<char> validFile(const std::string& path) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  btBoxShape box(btVector3(0.1, 0.1, 0.3));
  btSphereShape ball(0.1);
  btVector3 inertia_box, inertia_ball;
  box.calculateLocalInertia(1.0, inertia_box);
  ball.calculateLocalInertia(0.5, inertia_ball);
  btRigidBody::btRigidBodyConstructionInfo base_info(0.0, nullptr, &box);
  btRigidBody base(base_info);
  btRigidBody::btRigidBodyConstructionInfo arm_info(1.0, nullptr, &box, inertia_box);
  arm_info.m_startWorldTransform.setOrigin(btVector3(0, 0, -0.6));
  btRigidBody arm(arm_info);
  btRigidBody::btRigidBodyConstructionInfo tip_info(0.5, nullptr, &ball, inertia_ball);
  tip_info.m_startWorldTransform.setOrigin(btVector3(0, 0, -1.0));
  btRigidBody tip(tip_info);
  for (btRigidBody* body : {&base, &arm, &tip}) world.addRigidBody(body);
  btHingeConstraint hinge(base, arm, btVector3(0, 0, -0.3), btVector3(0, 0, 0.3),
                          btVector3(1, 0, 0), btVector3(1, 0, 0));
  btPoint2PointConstraint p2p(arm, tip, btVector3(0, 0, -0.3), btVector3(0, 0, 0.1));
  world.addConstraint(&hinge, true);
  world.addConstraint(&p2p, true);
  gcbridge::saveBulletFile(world, path, {{&base, "base"}, {&arm, "arm"}, {&tip, "tip"}});
  world.removeConstraint(&p2p);
  world.removeConstraint(&hinge);
  for (btRigidBody* body : {&base, &arm, &tip}) world.removeRigidBody(body);
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/gcbridge_bullet_file_fuzzer_" + std::to_string(getpid());
  static const std::vector<char> valid = validFile(path + ".valid");
  FuzzedDataProvider in(data, size);
  std::vector<char> bytes = valid;
  if (in.ConsumeBool()) bytes.resize(in.ConsumeIntegralInRange<size_t>(0, bytes.size()));
  while (in.remaining_bytes() > 1 && !bytes.empty()) {
    bytes[in.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1)] = in.ConsumeIntegral<char>();
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  try {
    const std::unique_ptr<gcbridge::BulletFile> file = gcbridge::loadBulletFile(path);
    gcbridge::InferenceOptions options;
    options.body_names = file->bodyNames();
    gcbridge::inferModelFromWorld(file->world(), options);
  } catch (const gcbridge::Error&) {
  }
  return 0;
}
