#pragma once
// Private to the bridge: the one place where a joint's type chooses its bridge kernel
// (site.hpp). The universal joint is not a type: the conversions recognise it by the massless
// link without a body and use joints/universal.hpp.

#include "ball.hpp"
#include "fixed.hpp"
#include "free.hpp"
#include "planar.hpp"
#include "prismatic.hpp"
#include "revolute.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

/// f(kernel) for the bridge kernel of `joint`.
template <typename F>
decltype(auto) dispatch(const Joint& joint, F&& f) {
  switch (joint.type) {
    case JointType::Fixed:
      return f(Fixed{});
    case JointType::Revolute:
      return f(Revolute{});
    case JointType::Prismatic:
      return f(Prismatic{});
    case JointType::Planar:
      return f(Planar{});
    case JointType::Free:
      return f(Free{});
    case JointType::Ball:
      break;
  }
  switch (joint.ball) {
    case BallParametrization::ExpMap:
      return f(BallExpMap{});
    case BallParametrization::EulerXYZ:
      return f(BallEulerXYZ{});
    case BallParametrization::Quaternion:
      break;
  }
  return f(BallQuaternion{});
}

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
