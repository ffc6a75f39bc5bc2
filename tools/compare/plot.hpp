#pragma once
/// @file
/// Line plots rendered as standalone SVG, for the report of `gcbridge compare`: joint trajectories,
/// energy and constraint violation over time, speed-accuracy curves on log-log axes. Standard
/// library only. The output is deterministic (same plot, same bytes) and small: coordinates are
/// written with 2 decimals and series denser than the plot area's pixel columns are decimated.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gcbridge::compare {

/// How data values map to positions along an axis.
enum class AxisScale {
  Linear,  ///< proportional to the value
  Log10,   ///< proportional to log10 of the value; values <= 0 cannot be drawn
};

/// One axis of a plot: its label and the range of values it shows.
struct Axis {
  std::string label;                    ///< with units, e.g. "time [s]"; empty: no label
  AxisScale scale = AxisScale::Linear;  ///< linear or logarithmic
  /// Fixed lower end of the range (data units). Unset: from the data, with a margin of 5% of the
  /// span on a linear axis and rounded down to a whole decade on a log axis (a log y axis from
  /// the 1st percentile of its values, when there are 100 or more: a few values far below the
  /// rest are clipped rather than stretch the axis). Data outside the range is clipped at the
  /// plot area's edge.
  std::optional<double> min;
  /// Fixed upper end of the range (data units); unset: from the data, as for `min`.
  std::optional<double> max;
};

/// One line of a plot: points (x[i], y[i]) joined in order.
struct Series {
  std::string label;      ///< legend text
  std::vector<double> x;  ///< x values (data units of Plot::x), same size as y
  std::vector<double> y;  ///< y values (data units of Plot::y), same size as x
  bool markers = false;   ///< draw a marker at every point (for sparse data: speed-accuracy points)
  /// The line's dash pattern, an SVG stroke-dasharray ("6 4": the reference); empty: solid.
  std::string dash;
  /// With markers: a short text beside each point (empty: none; else one per point).
  std::vector<std::string> point_labels;
  /// CSS colour; empty: the next colour of a fixed colour-blind-safe palette of 8 colours
  /// (Okabe-Ito), counting only the series with an empty colour and cycling after the 8th.
  std::string color;
};

/// A titled plot of several series on common axes.
struct Plot {
  std::string title;           ///< on top; empty: no title
  Axis x;                      ///< horizontal axis
  Axis y;                      ///< vertical axis
  std::vector<Series> series;  ///< drawn in order (later series on top), one legend entry each
  int width = 720;             ///< of the whole figure, legend included [px]
  int height = 420;            ///< of the whole figure [px]
};

/// The plot as a standalone SVG document: starts with "<svg" (no XML declaration, so it can be
/// inlined into XHTML), has xmlns="http://www.w3.org/2000/svg", width, height and viewBox; it is
/// well-formed XML with all text XML-escaped.
///
/// Each series is one `<path class="series" data-series="LABEL">` per unbroken run of points, plus
/// one `<circle class="marker">` per point if Series::markers. A point whose x or y is not finite,
/// or is <= 0 on a log axis, is not drawn and breaks the line. Lines are clipped to the plot area
/// (the frame), markers to the plot area grown by 4 px so that markers on its edge stay whole. A
/// series with more drawable points than the plot area is wide in pixels is decimated: of each run
/// of points in one pixel column, the first, lowest, highest and last are kept (same envelope).
///
/// Axis ranges not fixed come from the drawable points; a single value gets +-max(1, 10% of it) on
/// a linear axis and the decade(s) around it on a log axis. The legend is a column right of the
/// plot area, one `<g class="legend-entry">` per series (also for series with nothing to draw). A
/// plot without drawable points renders its frame, title, axis labels, legend and "no data".
/// @throws std::invalid_argument if a series' x and y differ in size (the message names the
///   series), if a fixed axis bound is not finite, is <= 0 on a log axis, or min >= max, or if
///   width and height leave a plot area smaller than 40 x 40 px.
std::string renderSvg(const Plot& plot);

/// The text with the five XML special characters replaced: "&" -> "&amp;", "<" -> "&lt;",
/// ">" -> "&gt;", '"' -> "&quot;", "'" -> "&apos;". Control characters that XML 1.0 forbids
/// (below 0x20 except tab, newline and carriage return) become "?". Other bytes (UTF-8) pass.
std::string escapeXml(std::string_view text);

/// Tick positions for the axis range [lo, hi] (data units), ascending, all inside the range.
/// Linear: the multiples of a 1-2-5 step (1, 2 or 5 times a power of 10) in the range, the
/// smallest such step that gives at most 10 ticks (so 4 to 10 ticks). Log10: each decade (every
/// k-th decade if the range spans more than 12, so at most 12 ticks), and if the range spans less
/// than 2 decades also 2 and 5 times each decade; if that gives fewer than 2 ticks (a range
/// inside one decade), the linear ticks.
/// @throws std::invalid_argument if lo, hi or hi - lo is not finite, lo >= hi, or lo <= 0 on a log
///   axis.
std::vector<double> axisTicks(double lo, double hi, AxisScale scale);

/// Tick label text: the value with at most 6 significant digits as printf's "%.6g" writes it in
/// the C locale: "0", "0.5", "-2.5", "2500", "123456", "1e-05", "2.5e+06"; fixed notation for
/// exponents -5 < e < 6, else scientific. Zero (also -0) is "0"; "nan", "inf", "-inf" otherwise.
std::string tickLabel(double value);

}  // namespace gcbridge::compare
