#pragma once
/// @file
/// How well a run tracked its reference: the RMS and the largest joint error over the samples it
/// is fed, e = q_ref (-) q on the joint manifold (configuration.hpp: the tangent vector with
/// q (+) e = q_ref, in rad or m per dof of v).
///
///   gcbridge::TrackingError error(model);
///   for (...) { world.step(); error.add(controller); }   // a JointController's last error
///   std::printf("RMS %.3f mrad, max %.3f mrad\n", 1e3 * error.rms(), 1e3 * error.max());

#include <Eigen/Core>

#include "gcbridge/controllers/controller.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Running RMS and largest joint error of a run (file comment). Adding allocates nothing.
class TrackingError {
 public:
  /// Errors of `model`'s dofs, counted on every dof, or only on `dofs` (an nv mask: true counts;
  /// leaving out a floating root's 6, say). @throws InvalidArgumentError for a mask of another
  /// size.
  explicit TrackingError(const Model& model);
  TrackingError(const Model& model, const Eigen::Array<bool, Eigen::Dynamic, 1>& dofs);

  /// Adds the sample e = q_ref (-) q. @throws InvalidArgumentError for a bad q or q_ref (sizes,
  ///   non-finite, a quaternion that is not unit), nothing added.
  void add(const Eigen::VectorXd& q, const Eigen::VectorXd& q_ref);
  /// Adds the error `controller` measured at its last compute() (positionError()).
  /// @throws InvalidArgumentError if it controls a model of another size.
  void add(const JointController& controller);
  /// Adds an error vector e (nv). @throws InvalidArgumentError for a wrong size or non-finite e.
  void addError(const Eigen::VectorXd& e);

  /// Samples added.
  long samples() const { return samples_; }
  /// sqrt of the mean of e_i^2 over the samples and the counted dofs (0 with no sample).
  double rms() const;
  /// The largest |e_i| of a counted dof over the samples.
  double max() const { return max_; }
  /// Per dof: sqrt of the mean of e_i^2 over the samples (nv; 0 for dofs not counted).
  Eigen::VectorXd rmsPerDof() const;
  /// Forgets every sample.
  void reset();

 private:
  const Model* model_;
  Eigen::Array<bool, Eigen::Dynamic, 1> counted_;  // (nv)
  Eigen::VectorXd sum_squares_;                    // per dof (nv)
  Eigen::VectorXd e_;                              // scratch (nv)
  long samples_ = 0;
  double max_ = 0.0;
};

}  // namespace gcbridge
