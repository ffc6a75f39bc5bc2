#pragma once
/// @file
/// What `gcbridge compare` writes: the summary table (stdout), CSV files of every time series,
/// SVG plots and a self-contained HTML report that embeds them.
///
/// Files in the output folder:
/// - `summary.csv`: one row per engine, rate and controller, the columns of RunSummary;
/// - `reference.csv`: the reference's time series;
/// - `<engine>_<rate>hz[_<controller>].csv`: one engine's time series (columns:
///   timeSeriesHeader), the controller's name when several ran;
/// - `<plot>.svg`: each figure of the report as its own file;
/// - `report.html`: everything above in one page; opens offline (no script, no fetch).

#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/output_folder.hpp"
#include "compare/plot.hpp"

namespace gcbridge::compare {

/// The run's settings, for the report's header.
struct RunDescription {
  std::string command_line;  ///< as typed
  std::string model_path;    ///< the URDF
  RigidBodySettings rigid;   ///< the rigid-body engine's settings
};

/// A figure: its file name (without .svg), the plot and a caption.
struct Figure {
  std::string name;
  Plot plot;
  std::string caption;
};

/// "1/240" for an integer rate's step, in seconds.
std::string stepText(int rate_hz);

/// The summary as a fixed-width text table (one row per run; failures say why below it).
std::string summaryTable(const Scenario& scenario, const Comparison& comparison);

/// Column names of a time-series CSV: t, q_<joint>[_k] (nq), v_<joint>[_k] (nv), error,
/// tracking_error, energy_change, momentum_{wx,wy,wz,x,y,z}, pivot_separation, axis_error,
/// velocity_residual. Units in docs/compare.md and the report.
std::vector<std::string> timeSeriesHeader(const Model& model);

/// Rotation vectors along a trajectory made continuous: each (theta axis, theta in [0, pi])
/// becomes the equivalent (theta + 2 pi k) axis nearest the previous one, so that a rotation
/// through pi goes on instead of jumping to the other side.
std::vector<Vector3> unwrapRotations(const std::vector<Vector3>& vectors);

/// What the joint plots show of velocity coordinate `dof` along `samples`: a one-coordinate
/// joint's q, any other joint's rotation (translation) from q0 in that coordinate, a ball or
/// free joint's rotation unwrapped (unwrapRotations).
std::vector<double> jointCoordinateSeries(const Model& model, const Eigen::VectorXd& q0,
                                          const std::vector<Sample>& samples, int dof);

/// The report's figures (which depend on the scenario: momentum for zero_gravity, tracking error
/// for tracking, constraint violation when the rigid-body engine ran, speed vs accuracy when
/// there are several rates).
std::vector<Figure> makeFigures(const Scenario& scenario, const Comparison& comparison);

/// Writes every file of the file comment into `folder`, which then holds only this run's files
/// (OutputFolder::commit), and returns their paths.
/// @throws std::runtime_error naming the path that cannot be written.
std::vector<std::string> writeOutputs(OutputFolder& folder, const Scenario& scenario,
                                      const Comparison& comparison,
                                      const RunDescription& description);

}  // namespace gcbridge::compare
