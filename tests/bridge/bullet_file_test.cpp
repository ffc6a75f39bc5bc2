// .bullet files: a world saved and read back is the same world (its inferred model equal to
// 1e-12, its spawn violation kept), a btMultiBody saved and read back the same model and state,
// and a file that is missing, not a .bullet file, truncated, without bodies or with a multibody
// Bullet's importer cannot read gives a WorldError naming it.
#include "gcbridge/bridge/bullet_file.hpp"

#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bullet_apps.hpp"
#include "gcbridge/bridge/multibody_inference.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

// What the file stores in the library's precision reads back to round-off.
constexpr double kExact = sizeof(btScalar) == 8 ? 1e-12 : 1e-6;

/// A path in the test's temporary folder.
std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "gcbridge_bullet_file_" + name;
}

/// Expects loadBulletFile(path) to throw a WorldError naming the path and saying `what`.
void expectRefused(const std::string& path, const std::string& what) {
  try {
    loadBulletFile(path);
    ADD_FAILURE() << "no WorldError for " << path;
  } catch (const WorldError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

// BenchmarkDemo's ragdoll saved with its names and read back: the same model (names, sizes; M
// and h at random states), the same configuration and spawn violation. Masses, inertias, poses
// and frames are written in the library's precision; the inertias are the file's, not those
// Bullet's importer recomputes from shape dimensions it stores in single precision (1e-8 off).
TEST(BulletFile, SavedRagdollReadsBackAsTheSameModel) {
  test::BenchmarkRagdoll ragdoll;
  InferenceOptions options = ragdoll.w.options();
  options.root = ragdoll.pelvis;
  const InferredModel original = inferModelFromWorld(ragdoll.w.world(), options);
  const std::string path = tempPath("ragdoll.bullet");
  saveBulletFile(ragdoll.w.world(), path, ragdoll.w.options().body_names);

  const std::unique_ptr<BulletFile> file = loadBulletFile(path);
  EXPECT_EQ(file->bodyNames().size(), 12u);  // the ground and 11 capsules
  EXPECT_TRUE(
      test::matricesNear(test::fromBt(file->world().getGravity()), Vector3(0, -10, 0), 0.0));
  InferenceOptions read_options;
  read_options.body_names = file->bodyNames();
  read_options.root = file->body("pelvis");
  const InferredModel read = inferModelFromWorld(file->world(), read_options);
  ASSERT_EQ(read.model.link_names, original.model.link_names);
  ASSERT_EQ(read.model.nq, original.model.nq);
  EXPECT_TRUE(test::matricesNear(read.q, original.q, kExact));
  for (int k = 0; k < original.model.numLinks(); ++k) {
    EXPECT_NEAR(read.spawn_errors[k].position_error, original.spawn_errors[k].position_error,
                kExact);
  }
  Data data_a(original.model), data_b(read.model);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(original.model, seed);
    const Eigen::VectorXd v = randomVector(original.model.nv, seed);
    EXPECT_TRUE(
        test::matricesNear(crba(read.model, data_b, q), crba(original.model, data_a, q), kExact));
    EXPECT_TRUE(test::matricesNear(nonLinearEffects(read.model, data_b, q, v),
                                   nonLinearEffects(original.model, data_a, q, v), kExact));
  }
  EXPECT_THROW(file->body("tail"), WorldError);
  std::remove(path.c_str());
}

// What Bullet's importer leaves out comes back too: the bodies' velocities, damping, sleeping
// thresholds and deactivation (the ragdoll's 0.05 / 0.85, 1.6 m/s and 2.5 rad/s), a body's own
// gravity, and a body that may never sleep (ConstraintDemo's cone-twist box).
TEST(BulletFile, BodiesKeepTheirVelocitiesAndSettings) {
  test::BenchmarkRagdoll ragdoll;
  InferenceOptions options = ragdoll.w.options();
  options.root = ragdoll.pelvis;
  const InferredModel original = inferModelFromWorld(ragdoll.w.world(), options);
  BridgeData bdata(original.model);
  const Eigen::VectorXd v = randomVector(original.model.nv, 7);
  writeState(original.model, *original.map, bdata, original.q, v);
  ragdoll.pelvis->setGravity(btVector3(0, -9, 0));
  const std::string path = tempPath("moving_ragdoll.bullet");
  saveBulletFile(ragdoll.w.world(), path, ragdoll.w.options().body_names);

  const std::unique_ptr<BulletFile> file = loadBulletFile(path);
  InferenceOptions read_options;
  read_options.body_names = file->bodyNames();
  read_options.root = file->body("pelvis");
  const InferredModel read = inferModelFromWorld(file->world(), read_options);
  BridgeData read_bdata(read.model);
  Eigen::VectorXd q_read, v_read;
  readState(read.model, *read.map, read_bdata, q_read, v_read);
  EXPECT_TRUE(test::matricesNear(v_read, v, kExact));
  for (int k = 0; k < read.model.numLinks(); ++k) {
    const BodySettings& a = original.body_settings[k];
    const BodySettings& b = read.body_settings[k];
    EXPECT_NEAR(b.linear_damping, 0.05, kExact);
    EXPECT_NEAR(b.angular_damping, 0.85, kExact);
    EXPECT_TRUE(b.can_sleep);
    EXPECT_NEAR(b.linear_sleeping_threshold, a.linear_sleeping_threshold, kExact);
    EXPECT_NEAR(b.angular_sleeping_threshold, a.angular_sleeping_threshold, kExact);
    EXPECT_NEAR(file->body(read.model.link_names[k])->getDeactivationTime(),
                original.map->body(k)->getDeactivationTime(), kExact);
  }
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_NE(read.warnings[0].find("'pelvis'"), std::string::npos) << read.warnings[0];
  std::remove(path.c_str());

  test::ConstraintDemoPieces demo;
  ASSERT_EQ(demo.cone_box->getActivationState(), DISABLE_DEACTIVATION);
  const std::string demo_path = tempPath("awake_demo.bullet");
  saveBulletFile(demo.w.world(), demo_path, demo.w.options().body_names);
  const std::unique_ptr<BulletFile> demo_file = loadBulletFile(demo_path);
  EXPECT_EQ(demo_file->body("cone_box")->getActivationState(), DISABLE_DEACTIVATION);
  std::remove(demo_path.c_str());
}

// The model read from a btMultiBody built like Bullet's examples, saved with its names and read
// back: the same links and names, the same M, h and ABA at random states (the same coordinates),
// the same state, base velocity included (Bullet's importer drops it; the file keeps it).
// Lost, as documented: the joint limit (multibody constraints are not saved), the damping and
// clamp (Bullet's defaults come back), and a fixed base with mass comes back floating.
TEST(BulletFile, SavedMultiBodyReadsBackAsTheSameModel) {
  test::MultiDofExample example(/*fixed_base=*/false, /*links=*/6);
  btMultiBody& body = *example.body;
  body.setJointPos(1, 0.4);
  body.setJointVel(4, -0.7);
  body.setBaseVel(btVector3(0.1, -0.2, 0.3));
  body.setBaseOmega(btVector3(-0.5, 0.25, 1.0));
  body.getLink(2).m_jointDamping = 0.3;
  example.add(new btMultiBodyJointLimitConstraint(&body, 1, -1.0, 1.2));
  MultiBodyInferenceOptions options;
  options.world = example.w->world.get();
  const InferredMultiBody original = inferModelFromMultiBody(body, options);
  const std::string path = tempPath("multidof.bullet");
  saveBulletFile(*example.w->world, path);
  const auto file = loadBulletFile(path);
  ASSERT_EQ(file->numMultiBodies(), 1);
  options.world = &file->world();
  const InferredMultiBody read = inferModelFromMultiBody(file->multiBody("torso"), options);
  EXPECT_EQ(&file->multiBody(0), &file->multiBody("torso"));
  EXPECT_EQ(read.model.link_names, original.model.link_names);
  EXPECT_EQ(read.model.joints[read.model.linkIndex("upper_arm")].name, "shoulder");
  EXPECT_TRUE(test::matricesNear(read.q, original.q, kExact));
  EXPECT_TRUE(test::matricesNear(read.v, original.v, kExact));
  EXPECT_EQ(read.model.joints[3].limits.damping, double(btScalar(0.3)));
  EXPECT_EQ(read.model.joints[read.model.linkIndex("upper_arm")].limits.upper, INFINITY);
  EXPECT_EQ(read.warnings.size(), 2u);  // Bullet's default damping and clamp are back
  Data a(original.model), b(read.model);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(original.model, seed);
    const Eigen::VectorXd v = randomVector(original.model.nv, seed + 10, 2.0);
    const Eigen::VectorXd tau = randomVector(original.model.nv, seed + 20, 5.0);
    EXPECT_TRUE(test::matricesNear(crba(read.model, b, q), crba(original.model, a, q), kExact));
    EXPECT_TRUE(test::matricesNear(nonLinearEffects(read.model, b, q, v),
                                   nonLinearEffects(original.model, a, q, v), kExact));
    EXPECT_TRUE(test::matricesNear(aba(read.model, b, q, v, tau),
                                   aba(original.model, a, q, v, tau), kExact));
  }
  test::MultiDofExample fixed(/*fixed_base=*/true, /*links=*/6);
  saveBulletFile(*fixed.w->world, path);
  EXPECT_FALSE(loadBulletFile(path)->multiBody(0).hasFixedBase());
  std::remove(path.c_str());
}

// Bad files: missing, not a .bullet file, truncated, damaged, without bodies, with a multibody
// Bullet's importer cannot read; a multibody the file does not hold; a path that cannot be
// written. Each a WorldError naming the file.
TEST(BulletFile, BadFilesAreRefusedNamingThem) {
  expectRefused(tempPath("missing.bullet"), "cannot read");
  const std::string garbage = tempPath("garbage.bullet");
  std::ofstream(garbage) << "solid cube\nfacet normal 0 0 1\n";
  expectRefused(garbage, "not a .bullet file");
  // A real file cut in half.
  test::HingeTorqueDoor door;
  const std::string whole = tempPath("door.bullet");
  saveBulletFile(door.w.world(), whole);
  std::ifstream in(whole, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  const std::string half = tempPath("half.bullet");
  std::ofstream(half, std::ios::binary).write(bytes.data(), bytes.size() / 2);
  expectRefused(half, "truncated");
  // A damaged structure description (the DNA's count of names made huge): Bullet's reader reads
  // wild memory on it; the file is refused, the process unharmed.
  std::vector<char> damaged = bytes;
  const std::string names = "NAME";
  const auto at = std::search(damaged.begin(), damaged.end(), names.begin(), names.end());
  ASSERT_NE(at, damaged.end());
  std::fill(at + 4, at + 8, '\x7f');
  const std::string broken_dna = tempPath("broken_dna.bullet");
  std::ofstream(broken_dna, std::ios::binary).write(damaged.data(), damaged.size());
  expectRefused(broken_dna, "corrupt");
  // A world without bodies.
  test::TestWorld empty;
  const std::string nothing = tempPath("empty.bullet");
  saveBulletFile(empty.world(), nothing);
  expectRefused(nothing, "holds no rigid body or multibody");
  // A multibody with a planar link, which Bullet's importer leaves unset.
  test::MultiDofExample planar(false);
  const std::string with_planar = tempPath("planar.bullet");
  saveBulletFile(*planar.w->world, with_planar);
  expectRefused(with_planar, "multibody 0's link (link 6) has a planar joint");
  try {
    test::MultiDofExample example(false, 6);
    const std::string path = tempPath("multidof.bullet");
    saveBulletFile(*example.w->world, path);
    const auto file = loadBulletFile(path);
    std::remove(path.c_str());
    file->multiBody("arm");
    ADD_FAILURE() << "no WorldError";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("no multibody's base is named 'arm' (its multibodies' "
                                         "bases: torso)"),
              std::string::npos)
        << e.what();
  }
  // A folder that does not exist: nothing written, the error names the path.
  const std::string nowhere = tempPath("no_such_folder/door.bullet");
  try {
    saveBulletFile(door.w.world(), nowhere);
    ADD_FAILURE() << "no WorldError";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find(nowhere), std::string::npos) << e.what();
  }
  for (const std::string& path : {garbage, whole, half, broken_dna, nothing, with_planar}) {
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace gcbridge
