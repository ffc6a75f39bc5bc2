#pragma once
// Private to gcbridge::controllers: argument checks shared by the controllers and trajectories.
// Each throws InvalidArgumentError naming the argument; none allocates unless it throws.

#include <Eigen/Core>
#include <cmath>
#include <string>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::detail {

/// @throws InvalidArgumentError unless x is finite.
inline void checkFinite(double x, const char* what) {
  if (!std::isfinite(x)) {
    throw InvalidArgumentError(std::string(what) + " is not finite (" + std::to_string(x) + ")");
  }
}

/// @throws InvalidArgumentError "<what> must be >= 0 and finite, got x" unless it is.
inline void checkNonNegativeFinite(double x, const char* what) {
  if (!(x >= 0.0) || !std::isfinite(x)) {
    throw InvalidArgumentError(std::string(what) + " must be >= 0 and finite, got " +
                               std::to_string(x));
  }
}

/// @throws InvalidArgumentError unless x has `size` entries, all finite (and >= 0 if asked).
inline void checkVector(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Index size,
                        const char* what, bool nonnegative = false) {
  if (x.size() != size) {
    throw InvalidArgumentError(std::string(what) + " has size " + std::to_string(x.size()) +
                               ", needs " + std::to_string(size));
  }
  for (Eigen::Index i = 0; i < size; ++i) {
    if (!std::isfinite(x[i])) {
      throw InvalidArgumentError(std::string(what) + "[" + std::to_string(i) + "] is not finite");
    }
    if (nonnegative && x[i] < 0.0) {
      throw InvalidArgumentError(std::string(what) + "[" + std::to_string(i) +
                                 "] = " + std::to_string(x[i]) + " is negative");
    }
  }
}

/// validateConfiguration with the argument's name in the message.
inline void checkConfiguration(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                               const char* what) {
  try {
    validateConfiguration(model, q);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(std::string(what) + ": " + e.what());
  }
}

}  // namespace gcbridge::detail
