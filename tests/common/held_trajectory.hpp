#pragma once
// A trajectory held between a clock's ticks, as an application that computes its targets from a
// clock in whole milliseconds gives them (Bullet's MotorDemo).

#include <cmath>
#include <memory>
#include <utility>

#include "gcbridge/controllers/trajectory.hpp"

namespace gcbridge::test {

/// `smooth` held between ticks every `period` from 0: at t, smooth at the last tick (the 1e-9 puts
/// a time that is a tick up to rounding on that tick).
class HeldTrajectory : public Trajectory {
 public:
  HeldTrajectory(std::shared_ptr<const Trajectory> smooth, double period)
      : Trajectory(smooth->model()), smooth_(std::move(smooth)), period_(period) {}
  void evaluate(double t, JointReference& ref) const override {
    smooth_->evaluate(std::floor(t / period_ + 1e-9) * period_, ref);
  }

 private:
  std::shared_ptr<const Trajectory> smooth_;
  double period_;
};

}  // namespace gcbridge::test
