#include "gcbridge/bridge/contact_reading.hpp"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;

/// A coordinate on a 0.1 mm grid, so that points that differ by round-off sort alike.
long onGrid(double x) { return std::lround(x * 1e4); }

/// The order of readContacts: by link, then by the point in the link frame (x, y, z on the grid).
bool before(const ContactPoint& a, const ContactPoint& b) {
  return std::make_tuple(a.link, onGrid(a.p_LC.x()), onGrid(a.p_LC.y()), onGrid(a.p_LC.z())) <
         std::make_tuple(b.link, onGrid(b.p_LC.x()), onGrid(b.p_LC.y()), onGrid(b.p_LC.z()));
}

}  // namespace

std::vector<ContactPoint> readContacts(const Model& model, const RigidBodyMap& map,
                                       const ContactReadOptions& options) {
  map.validate(model, "readContacts");
  if (!(options.max_distance >= 0.0)) {
    throw InvalidArgumentError("readContacts: max_distance must be >= 0");
  }
  std::vector<ContactPoint> contacts;
  btDispatcher* dispatcher = map.world()->getDispatcher();
  for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(i);
    const int k0 = map.linkOf(manifold->getBody0());
    const int k1 = map.linkOf(manifold->getBody1());
    // One side the model's, the other not.
    if ((k0 < 0) == (k1 < 0)) continue;
    const bool on_a = k0 >= 0;
    const int k = on_a ? k0 : k1;
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      const btManifoldPoint& pt = manifold->getContactPoint(j);
      if (pt.getDistance() > options.max_distance) continue;
      // Bullet's normal points from body B to body A. The point on the link's body as the
      // collision detection found it, in the body's frame (its world position is from before the
      // substep's motion).
      const Vector3 n_BA = fromBullet(pt.m_normalWorldOnB);
      const Vector3 p_BC = fromBullet(on_a ? pt.m_localPointA : pt.m_localPointB);
      ContactPoint c;
      c.link = k;
      c.p_LC = map.X_LB(k).actPoint(p_BC);
      c.n_W = on_a ? n_BA : Vector3(-n_BA);
      c.friction = pt.m_combinedFriction;
      contacts.push_back(c);
    }
  }
  std::sort(contacts.begin(), contacts.end(), before);
  return contacts;
}

std::vector<ContactPoint> readContacts(const Model& model, const RigidBodyMap& map,
                                       ContactFrames& frames, const ContactReadOptions& options) {
  if (frames.model().numLinks() != model.numLinks() || frames.model().nv != model.nv) {
    throw InvalidArgumentError("readContacts: the contact frames were declared on model '" +
                               frames.model().name + "', not on '" + model.name + "'");
  }
  std::vector<ContactPoint> read = readContacts(model, map, options);
  for (int k = 0; k < model.numLinks(); ++k) {
    if (!frames.declares(k)) continue;
    frames.setLinkActive(k, std::any_of(read.begin(), read.end(),
                                        [k](const ContactPoint& c) { return c.link == k; }));
  }
  read.erase(std::remove_if(read.begin(), read.end(),
                            [&frames](const ContactPoint& c) { return frames.declares(c.link); }),
             read.end());
  read.insert(read.begin(), frames.active().begin(), frames.active().end());
  return read;
}

GCBRIDGE_BULLET_NAMESPACE_END
