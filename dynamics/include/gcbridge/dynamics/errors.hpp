#pragma once
/// @file
/// The typed exceptions gcbridge throws. Every message names the thing that is wrong (file and
/// element, link, joint or argument) and what is wrong with it. A function that throws leaves its
/// outputs and every object it was given unchanged.

#include <stdexcept>
#include <string>

namespace gcbridge {

/// Base class of every error gcbridge throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument passed to the API is unusable: wrong size, NaN/Inf, a zero or far-from-unit
/// quaternion, an index out of range.
class InvalidArgumentError : public Error {
 public:
  using Error::Error;
};

/// A robot description cannot become a model: a loop, two parents for one link, a missing or
/// duplicate name, no root, a negative mass, an inertia that is not positive semi-definite, ...
class ModelError : public Error {
 public:
  using Error::Error;
};

/// A URDF file (or string) is unreadable or malformed. The message starts with `file:line:`.
class UrdfError : public ModelError {
 public:
  using ModelError::ModelError;
};

/// A Bullet world and a model's map of it disagree, or the world holds something the bridge
/// cannot use (thrown by gcbridge::bridge and gcbridge::plugin): a body removed from the world,
/// claimed by another map, or whose mass changed since the map was made; a constraint removed or
/// disabled; a NaN in a body's state; a constraint graph that is not a tree, or a constraint type
/// the bridge does not support. The message names the link, joint, body or constraint. The
/// function that throws has written nothing to the world.
class WorldError : public Error {
 public:
  using Error::Error;
};

/// A quantity cannot be computed at this configuration (e.g. Euler-angle rates at gimbal lock).
class SingularityError : public Error {
 public:
  using Error::Error;
};

}  // namespace gcbridge
