#pragma once
// Private to the bridge: the collider a driven btMultiBody link needs (Bullet solves a multibody
// constraint only on a link with one), shared by every set of motors on that link.

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// Takes a share of `link`'s motor collider (a 1 cm sphere that collides with nothing): the first
/// share adds it to the link and the world (a link whose collider the application cleared gets it
/// back). @return false, taking nothing, when the link has a collider of the application's.
/// @throws WorldError when the link's motor collider is in another world (nothing taken).
bool shareMotorCollider(btMultiBodyDynamicsWorld& world, btMultiBody& body, int link);

/// Gives a share back; the last removes the collider from the world and from the link (if the
/// link still points at it). Never throws.
void releaseMotorCollider(btMultiBody& body, int link) noexcept;

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
