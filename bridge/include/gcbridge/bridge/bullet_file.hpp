#pragma once
/// @file
/// Bullet's own world files: `.bullet`, written by btDefaultSerializer (btDynamicsWorld::serialize)
/// and read back by btMultiBodyWorldImporter. An application's saved world becomes a world here,
/// ready for inferModelFromWorld (rigid bodies and constraints) or inferModelFromMultiBody (its
/// btMultiBodys); a world gcbridge built can be saved for the application or for Bullet's own
/// tools.
///
/// What a file keeps of a btMultiBody (Bullet 3.24's serializer and importer, measured): its links'
/// joint types, parents, masses, inertias, frames, axes, joint positions and velocities, base pose,
/// mass and inertia, colliders, and, restored here from the file's records where Bullet's importer
/// drops them, the base, link and joint names and base velocities. Lost for good: multibody
/// constraints (joint limits, motors), the fixed-base flag (Bullet's importer fixes a base exactly
/// when its mass is 0), damping and the velocity clamp (Bullet's defaults come back). A planar link
/// is not read by Bullet's importer: such a file is refused.

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {
class KeepingImporter;
}

/// A Bullet world read from a .bullet file, which owns the world and everything the importer
/// made for it (shapes, bodies, constraints, multibodies and their colliders). Gravity is the
/// file's.
class BulletFile {
 public:
  ~BulletFile();
  BulletFile(const BulletFile&) = delete;
  BulletFile& operator=(const BulletFile&) = delete;

  btMultiBodyDynamicsWorld& world() { return *world_; }
  /// The path it was read from.
  const std::string& path() const { return path_; }
  /// The rigid bodies' names in the file (registered with the serializer), as
  /// InferenceOptions::body_names takes them; unnamed bodies are left out.
  const std::vector<std::pair<const btRigidBody*, std::string>>& bodyNames() const {
    return names_;
  }
  /// The rigid body named `name`. @throws WorldError naming the file and the name when there is
  ///   none, listing the names there are.
  btRigidBody* body(const std::string& name) const;

  /// The file's btMultiBodys, in its order (in world(), which may hold the application's own too).
  int numMultiBodies() const;
  /// Multibody `index`. @throws WorldError naming the file for an index it does not hold.
  btMultiBody& multiBody(int index) const;
  /// The multibody whose base is named `base_name`. @throws WorldError naming the file and the
  ///   name when there is none, listing the bases' names.
  btMultiBody& multiBody(const std::string& base_name) const;

 private:
  friend std::unique_ptr<BulletFile> loadBulletFile(const std::string& path);
  explicit BulletFile(std::string path);

  std::string path_;
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btMultiBodyConstraintSolver> solver_;
  std::unique_ptr<btMultiBodyDynamicsWorld> world_;
  std::unique_ptr<detail::KeepingImporter> importer_;
  std::vector<std::pair<const btRigidBody*, std::string>> names_;
};

/// Reads the .bullet file at `path` into a new world. The file is checked before Bullet's
/// importer sees it: its header (BULLET, precision, pointer size, byte order) and every chunk's
/// length against the file's, the DNA chunk (written last) present. Then Bullet's importer reads
/// it in a child process (fork), because Bullet's reader reads wild memory on a damaged structure
/// description; the child hands back the world as Bullet's own serializer writes it, and that
/// well-formed file is what is read here (a few milliseconds more than reading it directly). A
/// child that takes longer than 3 s (and 1 s per 10 MB) is stopped: a damaged count can make
/// Bullet's reader loop for minutes.
/// @throws WorldError naming the file for one that cannot be read, is not a .bullet file, was
///   written on a machine of the other byte order, is truncated or corrupt (a chunk running past
///   the end, no DNA chunk, a damaged one that crashes or hangs Bullet's reader), that the
///   importer rejects, that holds a multibody with a planar link (naming it), or that holds no
///   rigid body and no multibody.
std::unique_ptr<BulletFile> loadBulletFile(const std::string& path);

/// Writes `world` (shapes, bodies, constraints, gravity) to `path` as a .bullet file, with the
/// bodies' names (InferenceOptions::body_names' form) registered so that they read back.
/// @throws WorldError naming the path when it cannot be written (the file is then not left
///   half-written: it is written whole or not at all).
void saveBulletFile(btDynamicsWorld& world, const std::string& path,
                    const std::vector<std::pair<const btRigidBody*, std::string>>& names = {});

GCBRIDGE_BULLET_NAMESPACE_END
