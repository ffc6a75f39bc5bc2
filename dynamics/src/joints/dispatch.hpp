#pragma once
// Private to gcbridge::dynamics: the one place where a joint's type chooses its kernel.
//
//     joints::dispatch(joint, [&](auto kernel) {
//       using K = decltype(kernel);
//       K::addSubspaceTimes(joint, data, v_joint, V);
//     });
//
// The lambda is compiled once per kernel and the switch picks one, so an algorithm's loop runs
// each joint's own code with nothing virtual in between. Adding a joint type: a kernel file in
// this folder, its enumerator in joint.hpp, its case here and its names in joint.cpp.

#include "ball_euler_xyz.hpp"
#include "ball_expmap.hpp"
#include "ball_quaternion.hpp"
#include "fixed.hpp"
#include "free.hpp"
#include "planar.hpp"
#include "prismatic.hpp"
#include "revolute.hpp"

namespace gcbridge::joints {

/// f(kernel) for the kernel of a joint of this type and ball parametrization.
template <typename F>
decltype(auto) dispatch(JointType type, BallParametrization ball, F&& f) {
  switch (type) {
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
  switch (ball) {
    case BallParametrization::ExpMap:
      return f(BallExpMap{});
    case BallParametrization::EulerXYZ:
      return f(BallEulerXYZ{});
    case BallParametrization::Quaternion:
      break;
  }
  return f(BallQuaternion{});
}

/// f(kernel) for the kernel of `joint`.
template <typename F>
decltype(auto) dispatch(const Joint& joint, F&& f) {
  return dispatch(joint.type, joint.ball, std::forward<F>(f));
}

}  // namespace gcbridge::joints
