#pragma once
/// @file
/// The CSV files `gcbridge compare` reads in place of a scenario's own program: a recorded torque
/// sequence (--torques) and a tracking reference given by waypoints (--trajectory). Both are rows
/// `t,x_1,...,x_n` with an optional header row (a row that is not all numbers before the first
/// that is), '#' comment lines and blank lines ignored.

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::compare {

/// A recorded torque program: tau(t) linearly interpolated between samples, held after the last.
struct TorqueSequence {
  std::vector<double> t;             ///< sample times [s], increasing, first >= 0
  std::vector<Eigen::VectorXd> tau;  ///< generalized forces at each time (nv each)
  std::string source;                ///< file it was read from
  /// tau at time t (before the first sample: the first sample).
  void evaluate(double t, Eigen::VectorXd& tau) const;
};

/// Reads a CSV torque sequence: one row per sample, `t,tau_1,...,tau_nv` [s, N m or N].
/// @throws InvalidArgumentError naming the file and line: unreadable file, wrong number of
///   values (it must be 1 + nv), a non-number or non-finite value, times not increasing or
///   negative, no rows.
TorqueSequence readTorqueSequence(const std::string& path, int nv);

/// A tracking reference read from waypoints, and what it is.
struct WaypointReference {
  /// The natural cubic spline through the waypoints (CubicSpline: per dof in the tangent space
  /// of the first waypoint; at rest at the first waypoint before its time and at the last after
  /// its time). One waypoint is a pose held from t = 0.
  std::shared_ptr<const Trajectory> trajectory;
  int waypoints = 0;  ///< rows read
  double end = 0.0;   ///< the last waypoint's time [s]
};

/// Reads a CSV file of waypoints: one row per waypoint, `t,q_1,...,q_nq` [s; rad, m, quaternions
/// (x, y, z, w) as the model's configuration has them], times increasing from >= 0 and at least
/// 1 us apart. Quaternions within kQuaternionNormTolerance of unit norm are normalized.
/// @throws InvalidArgumentError naming the file and line: as readTorqueSequence (1 + nq values
///   per row), waypoints closer than 1 us, a configuration the model cannot take (a zero or
///   far-from-unit quaternion, naming the joint), and a ball or free joint turned more than
///   0.9 pi rad from the first waypoint (the spline interpolates about it; naming the joint).
WaypointReference readWaypoints(const std::string& path, const Model& model);

}  // namespace gcbridge::compare
