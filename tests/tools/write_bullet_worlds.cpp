// Writes the .bullet files the command-line tests read, as applications save their worlds
// (btDynamicsWorld::serialize, bodies named): Bullet's own example worlds and two that no tree
// can be inferred from.
//   write_bullet_worlds DIR
// writes DIR/ragdoll.bullet (BenchmarkDemo's ragdoll, spawned off its constraints, with its
// damping and sleeping), DIR/door.bullet (TestHingeTorque's door), DIR/constraint_demo.bullet
// (ConstraintDemo's pieces: several trees), DIR/motor_demo.bullet (MotorDemo's walker and
// stand, saved with their motors on), DIR/loose.bullet (two boxes, no constraint) and
// DIR/multidof.bullet (a btMultiBody as MultiDofDemo builds one, with a fixed-base twin).

#include <iostream>
#include <string>

#include "bullet_apps.hpp"
#include "gcbridge/bridge/bullet_file.hpp"

namespace {

template <typename App>
void save(App& app, const std::string& path) {
  gcbridge::saveBulletFile(app.w.world(), path, app.w.options().body_names);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_bullet_worlds DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  try {
    gcbridge::test::BenchmarkRagdoll ragdoll;
    save(ragdoll, dir + "/ragdoll.bullet");
    gcbridge::test::HingeTorqueDoor door;
    save(door, dir + "/door.bullet");
    gcbridge::test::ConstraintDemoPieces pieces;
    save(pieces, dir + "/constraint_demo.bullet");
    // MotorDemo's two rigs saved mid-run, a quarter second in at 60 Hz: their motors on.
    gcbridge::test::MotorDemoRigs rigs;
    for (int frame = 0; frame < 15; ++frame) {
      rigs.drive(frame / 60.0, 1 / 60.0);
      rigs.w.world().stepSimulation(1 / 60.0, 1, 1 / 60.0);
    }
    save(rigs, dir + "/motor_demo.bullet");
    struct {
      gcbridge::test::TestWorld w;
    } loose;
    const gcbridge::Vector3 size(0.2, 0.2, 0.2);
    loose.w.addBox("left", 1.0, size,
                   gcbridge::Transform(gcbridge::Matrix3::Identity(), gcbridge::Vector3(-1, 0, 1)));
    loose.w.addBox("right", 1.0, size,
                   gcbridge::Transform(gcbridge::Matrix3::Identity(), gcbridge::Vector3(1, 0, 1)));
    save(loose, dir + "/loose.bullet");
    // Two multibodies in one world: the example body (floating, base "torso") and a fixed one
    // without names, moved 2 m aside, its base massless (Bullet's importer fixes a base exactly
    // when it has no mass: the file does not keep the flag).
    gcbridge::test::MultiDofExample multidof(/*fixed_base=*/false, /*links=*/6);
    multidof.body->setJointPos(1, 0.4);
    gcbridge::test::MultiDofExample fixed(/*fixed_base=*/true, /*links=*/6);
    fixed.w->world->removeMultiBody(fixed.body);
    fixed.body->setBaseName(nullptr);
    fixed.body->setBaseMass(0.0);
    fixed.body->setBasePos(btVector3(2, 3, 0));
    multidof.w->world->addMultiBody(fixed.body);
    gcbridge::saveBulletFile(*multidof.w->world, dir + "/multidof.bullet");
    multidof.w->world->removeMultiBody(fixed.body);
    fixed.w->world->addMultiBody(fixed.body);
  } catch (const std::exception& e) {
    std::cerr << "write_bullet_worlds: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
