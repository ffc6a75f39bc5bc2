#pragma once
/// @file
/// Bullet's own world files: `.bullet`, written by btDefaultSerializer (btDynamicsWorld::serialize)
/// and read back by btBulletWorldImporter. An application's saved world becomes a world here,
/// ready for inferModelFromWorld; a world gcbridge built can be saved for the application or for
/// Bullet's own tools.

#include <btBulletDynamicsCommon.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"

class btBulletWorldImporter;

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// A Bullet world read from a .bullet file, which owns the world and everything the importer
/// made for it (shapes, bodies, constraints). Gravity is the file's.
class BulletFile {
 public:
  ~BulletFile();
  BulletFile(const BulletFile&) = delete;
  BulletFile& operator=(const BulletFile&) = delete;

  btDiscreteDynamicsWorld& world() { return *world_; }
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

 private:
  friend std::unique_ptr<BulletFile> loadBulletFile(const std::string& path);
  explicit BulletFile(std::string path);

  std::string path_;
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::unique_ptr<btBulletWorldImporter> importer_;
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
///   importer rejects, or that holds no rigid body.
std::unique_ptr<BulletFile> loadBulletFile(const std::string& path);

/// Writes `world` (shapes, bodies, constraints, gravity) to `path` as a .bullet file, with the
/// bodies' names (InferenceOptions::body_names' form) registered so that they read back.
/// @throws WorldError naming the path when it cannot be written (the file is then not left
///   half-written: it is written whole or not at all).
void saveBulletFile(btDynamicsWorld& world, const std::string& path,
                    const std::vector<std::pair<const btRigidBody*, std::string>>& names = {});

GCBRIDGE_BULLET_NAMESPACE_END
