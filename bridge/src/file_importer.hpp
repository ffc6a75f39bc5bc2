#pragma once
// Private to the bridge: Bullet's .bullet importer, keeping what the file holds that Bullet's own
// importer leaves out or recomputes (bullet_file.cpp reads files with it).

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletFileLoader/btBulletFile.h>
#include <BulletWorldImporter/btMultiBodyWorldImporter.h>

#include <deque>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// btMultiBodyWorldImporter, and then from the file's own records:
/// - each moving rigid body's velocities, damping, sleeping thresholds, deactivation time and
///   state, own gravity, and its inertia as stored (Bullet's importer computes it from the shape,
///   whose dimensions the file stores in single precision even in a double-precision file);
/// - each multibody's base, link and joint names, base velocities, and its links' joint damping,
///   friction, limits, maximum force and velocity (fields a URDF importer sets and Bullet's
///   dynamics never reads).
/// A multibody with a planar link, which Bullet's importer (3.24) leaves unset, is refused:
/// convertAllObjects returns false and refusal() says which.
class KeepingImporter final : public btMultiBodyWorldImporter {
 public:
  explicit KeepingImporter(btMultiBodyDynamicsWorld* world)
      : btMultiBodyWorldImporter(world), world_(world) {}

  bool convertAllObjects(bParse::btBulletFile* file) override;
  /// Why the last convertAllObjects refused the file ("" if it did not).
  const std::string& refusal() const { return refusal_; }
  /// The multibodies it made, in the file's order (Bullet's importer never deletes them).
  const std::vector<btMultiBody*>& multiBodies() const { return multibodies_; }

 private:
  void restoreRigidBodies(bParse::btBulletFile* file, bool double_data);
  template <typename MultiBodyData>
  void restoreMultiBody(btMultiBody& body, const MultiBodyData& data);
  /// The name in the file's record, copied (the record dies with the file), or nullptr.
  const char* keep(const char* name);

  btMultiBodyDynamicsWorld* world_;
  std::deque<std::string> names_;
  std::string refusal_;
  std::vector<btMultiBody*> multibodies_;
};

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
