#include "motor_colliders.hpp"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {
namespace {

/// Radius of a motor collider [m].
constexpr double kColliderRadius = 0.01;

/// One link's motor collider, its world and how many motor sets share it.
struct SharedCollider {
  btMultiBodyDynamicsWorld* world = nullptr;
  std::unique_ptr<btSphereShape> shape;
  std::unique_ptr<btMultiBodyLinkCollider> collider;
  int shares = 0;
};

using Key = std::pair<const btMultiBody*, int>;

// Never destroyed: motors held by static objects may give their shares back during exit.
std::mutex& registryMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

std::map<Key, SharedCollider>& registry() {
  static auto* colliders = new std::map<Key, SharedCollider>;
  return *colliders;
}

}  // namespace

bool shareMotorCollider(btMultiBodyDynamicsWorld& world, btMultiBody& body, int link) {
  std::lock_guard<std::mutex> lock(registryMutex());
  btMultibodyLink& bullet_link = body.getLink(link);
  auto found = registry().find(Key(&body, link));
  if (found != registry().end()) {
    SharedCollider& shared = found->second;
    if (shared.world != &world) {
      throw WorldError("MultiBodyMotors: link " + std::to_string(link) +
                       " of the btMultiBody has its motor collider in another world");
    }
    if (bullet_link.m_collider != nullptr && bullet_link.m_collider != shared.collider.get()) {
      return false;
    }
    // Ours, or cleared by the application since: the link points at it again.
    bullet_link.m_collider = shared.collider.get();
    ++shared.shares;
    return true;
  }
  if (bullet_link.m_collider != nullptr) return false;
  SharedCollider shared;
  shared.world = &world;
  shared.shape = std::make_unique<btSphereShape>(btScalar(kColliderRadius));
  shared.collider = std::make_unique<btMultiBodyLinkCollider>(&body, link);
  shared.collider->setCollisionShape(shared.shape.get());
  shared.shares = 1;
  btMultiBodyLinkCollider* collider = shared.collider.get();
  auto added = registry().emplace(Key(&body, link), std::move(shared)).first;
  try {
    world.addCollisionObject(collider, 0, 0);
  } catch (...) {
    registry().erase(added);
    throw;
  }
  bullet_link.m_collider = collider;
  return true;
}

void releaseMotorCollider(btMultiBody& body, int link) noexcept {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto found = registry().find(Key(&body, link));
  if (found == registry().end() || --found->second.shares > 0) return;
  SharedCollider& shared = found->second;
  shared.world->removeCollisionObject(shared.collider.get());
  btMultibodyLink& bullet_link = body.getLink(link);
  if (bullet_link.m_collider == shared.collider.get()) bullet_link.m_collider = nullptr;
  registry().erase(found);
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
