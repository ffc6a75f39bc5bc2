#pragma once
/// @file
/// The contacts of a model's bodies as a controller needs them (dynamics/contacts.hpp): read from
/// the world's contact manifolds, which Bullet fills during each substep's collision detection.

#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// Which manifold points count as contacts.
struct ContactReadOptions {
  /// Points whose bodies are farther apart than this do not touch [m]. Bullet keeps a manifold
  /// point until the bodies separate by its contact breaking threshold (2 cm by default), and
  /// reports points up to the shapes' margins (4 cm for most convex shapes) before they touch.
  double max_distance = 1e-3;
};

/// The contacts of the map's bodies with bodies that are not the map's (the ground, objects),
/// from the world's manifolds as the last substep left them: per point the model link, the point
/// on the link's body in the link frame (fixed on the body, where the collision detection found
/// it), the normal pointing into the link, and Bullet's combined friction. Sorted by link, then by
/// the point's coordinates in the link frame (on a 0.1 mm grid), so that a resting contact keeps
/// its order from substep to substep. Contacts between two of the map's bodies are internal and
/// left out.
/// @throws WorldError for a map that does not match the model or its world (map.validate);
///   InvalidArgumentError for a max_distance that is negative or NaN.
std::vector<ContactPoint> readContacts(const Model& model, const RigidBodyMap& map,
                                       const ContactReadOptions& options = {});

/// The contacts from declared points (ContactFrames: the corners of a foot's sole), switched by
/// Bullet: the declared points of each link that has some are switched on while Bullet reports
/// that link touching something (readContacts with `options`), off while not. @return the active
/// declared points, then Bullet's points on links without declared ones. What the plugin hands a
/// contact-aware controller when PluginOptions::contact_frames is set.
/// @throws as readContacts; InvalidArgumentError for frames declared on a model of other sizes
///   (the frames unchanged).
std::vector<ContactPoint> readContacts(const Model& model, const RigidBodyMap& map,
                                       ContactFrames& frames,
                                       const ContactReadOptions& options = {});

GCBRIDGE_BULLET_NAMESPACE_END
