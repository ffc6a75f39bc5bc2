// SVG line plots: axis ranges and ticks, the data-to-pixel mapping, decimation and the markup.

#include "compare/plot.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gcbridge::compare {
namespace {

// Okabe-Ito colour-blind-safe palette, the colours that contrast most on white first.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};

// Layout [px].
constexpr int kCharWidth = 7;        // estimated width of one character at font size 12
constexpr int kTickLength = 5;       // tick marks, outside the frame
constexpr int kLegendGap = 16;       // between the plot area and the legend
constexpr int kLegendSample = 24;    // length of a legend entry's line sample
constexpr int kLegendRow = 18;       // height of a legend entry
constexpr int kLegendLine = 14;      // height of each further line of a wrapped legend label
constexpr int kLegendPadding = 8;    // right of the legend's labels
constexpr int kMinPlotArea = 40;     // smallest plot area width and height
constexpr int kMarkerRadius = 3;     // of the circles marking points
constexpr double kMaxPixel = 1.0e5;  // pixel coordinates are clamped to +-this

// Log10 of a positive value, snapped to the nearest integer within 1e-9 (so log10(1e-6) is -6).
double snappedLog10(double value) {
  const double exponent = std::log10(value);
  const double nearest = std::round(exponent);
  return std::abs(exponent - nearest) < 1e-9 ? nearest : exponent;
}

// m * 10^k, dividing for negative k so that e.g. 7 * 10^-1 is the double nearest to 0.7.
double scaledPower(double m, int k) {
  return k >= 0 ? m * std::pow(10.0, k) : m / std::pow(10.0, -k);
}

// Whether a value can be placed on an axis of the given scale.
bool drawable(double value, AxisScale scale) {
  return std::isfinite(value) && (scale == AxisScale::Linear || value > 0.0);
}

// A pixel coordinate with 2 decimals, without trailing zeros or a negative zero: "12.5", "-3", "0".
std::string formatPixel(double value) {
  std::array<char, 32> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::fixed, 2);
  std::string text(buffer.data(), result.ptr);
  // Trim "12.50" to "12.5" and "12.00" to "12"
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

// Estimated rendered width of a text [px]: kCharWidth per UTF-8 code point.
int textWidth(std::string_view text) {
  const auto points = std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  });
  return static_cast<int>(points) * kCharWidth;
}

// 1-2-5 ticks in [lo, hi]: the smallest step with at most 10 multiples in the range.
std::vector<double> linearTicks(double lo, double hi) {
  // Start with a step a hundredth of the span's decade (100 or more ticks) and grow it
  for (int k = static_cast<int>(std::floor(std::log10(hi - lo))) - 2;; ++k) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double step = scaledPower(m, k);
      const double first = std::ceil(lo / step - 1e-9);
      const double last = std::floor(hi / step + 1e-9);
      if (last - first + 1.0 > 10.0) continue;
      std::vector<double> ticks;
      for (int n = 0; first + n <= last; ++n) ticks.push_back(scaledPower((first + n) * m, k));
      return ticks;
    }
  }
}

// Decade ticks in [lo, hi] (lo > 0), with 2 and 5 times each decade on ranges below 2 decades.
std::vector<double> logTicks(double lo, double hi) {
  const double eLo = snappedLog10(lo);
  const double eHi = snappedLog10(hi);
  std::vector<double> ticks;
  if (eHi - eLo < 2.0) {
    // 1, 2 and 5 times each decade that overlaps the range
    for (int e = static_cast<int>(std::floor(eLo)); e <= static_cast<int>(std::floor(eHi)); ++e) {
      for (const double m : {1.0, 2.0, 5.0}) {
        const double exponent = e + std::log10(m);
        if (exponent >= eLo - 1e-9 && exponent <= eHi + 1e-9) ticks.push_back(scaledPower(m, e));
      }
    }
  } else {
    // Every stride-th decade, at multiples of the stride, at most 12 ticks
    const int first = static_cast<int>(std::ceil(eLo));
    const int last = static_cast<int>(std::floor(eHi));
    const int stride = (last - first + 12) / 12;
    const int aligned = static_cast<int>(std::ceil(static_cast<double>(first) / stride)) * stride;
    for (int e = aligned; e <= last; e += stride) ticks.push_back(scaledPower(1.0, e));
  }
  return ticks.size() >= 2 ? ticks : linearTicks(lo, hi);
}

// The range [lo, hi] of an axis [data units].
struct Range {
  double lo;
  double hi;
};

// A range of non-zero width around one value: +-max(1, 10%) on linear, its decade(s) on log.
Range rangeAround(double value, AxisScale scale) {
  if (scale == AxisScale::Linear) {
    const double half = std::max(1.0, 0.1 * std::abs(value));
    return {value - half, value + half};
  }
  const double exponent = snappedLog10(value);
  Range range{scaledPower(1.0, static_cast<int>(std::floor(exponent))),
              scaledPower(1.0, static_cast<int>(std::ceil(exponent)))};
  // An exact power of ten gets the decade on each side
  if (range.lo == range.hi) range = {range.lo / 10.0, range.hi * 10.0};
  return range;
}

// The range an axis shows: its fixed bounds, the rest from the data's range (if any).
Range resolveRange(const Axis& axis, const char* name, const std::optional<Range>& data) {
  const auto check = [&](const std::optional<double>& bound, const char* which) {
    if (bound && !drawable(*bound, axis.scale)) {
      throw std::invalid_argument(std::string("renderSvg: ") + name + " axis " + which + " " +
                                  tickLabel(*bound) + " is not a valid bound for its scale");
    }
  };
  check(axis.min, "min");
  check(axis.max, "max");
  if (axis.min && axis.max && !(*axis.min < *axis.max)) {
    throw std::invalid_argument(std::string("renderSvg: ") + name + " axis min " +
                                tickLabel(*axis.min) + " is not below max " + tickLabel(*axis.max));
  }
  // The range from the data: margins on linear, whole decades on log
  Range range = axis.scale == AxisScale::Linear ? Range{0.0, 1.0} : Range{1.0, 10.0};
  if (data && data->lo == data->hi) {
    range = rangeAround(data->lo, axis.scale);
  } else if (data && axis.scale == AxisScale::Linear) {
    const double margin = 0.05 * (data->hi - data->lo);
    range = {data->lo - margin, data->hi + margin};
  } else if (data) {
    range = {scaledPower(1.0, static_cast<int>(std::floor(snappedLog10(data->lo)))),
             scaledPower(1.0, static_cast<int>(std::ceil(snappedLog10(data->hi))))};
  }
  // Fixed bounds win; a single fixed bound beyond all the data gets a range next to it
  if (axis.min) range.lo = *axis.min;
  if (axis.max) range.hi = *axis.max;
  if (!(range.lo < range.hi)) {
    const Range around = rangeAround(axis.min ? range.lo : range.hi, axis.scale);
    if (axis.min) {
      range.hi = around.hi;
    } else {
      range.lo = around.lo;
    }
  }
  return range;
}

// Maps the data values of one axis to pixels: range.lo to `from`, range.hi to `to`.
class AxisMap {
 public:
  AxisMap(Range range, AxisScale scale, double from, double to)
      : log_(scale == AxisScale::Log10),
        lo_(transform(range.lo)),
        hi_(transform(range.hi)),
        from_(from),
        to_(to) {}

  // The pixel coordinate of a drawable value, clamped to +-kMaxPixel.
  double operator()(double value) const {
    const double t = (transform(value) - lo_) / (hi_ - lo_);
    return std::clamp(from_ + t * (to_ - from_), -kMaxPixel, kMaxPixel);
  }

 private:
  double transform(double value) const { return log_ ? std::log10(value) : value; }

  bool log_;
  double lo_, hi_;  // range ends, log10 of them on a log axis
  double from_, to_;
};

// A point of a series in pixels.
struct Pixel {
  double x;
  double y;
};

// Keeps, of each run of consecutive points in one pixel column, the first, lowest, highest and
// last point in their original order: the line covers the same pixels with far fewer points.
std::vector<Pixel> decimate(const std::vector<Pixel>& points) {
  std::vector<Pixel> kept;
  std::size_t begin = 0;
  while (begin < points.size()) {
    // Find the run [begin, end) in the column of `begin` and its extremes
    const double column = std::floor(points[begin].x);
    std::size_t end = begin + 1, lowest = begin, highest = begin;
    for (; end < points.size() && std::floor(points[end].x) == column; ++end) {
      if (points[end].y < points[lowest].y) lowest = end;
      if (points[end].y > points[highest].y) highest = end;
    }
    std::array<std::size_t, 4> picks = {begin, lowest, highest, end - 1};
    std::sort(picks.begin(), picks.end());
    const auto unique = std::unique(picks.begin(), picks.end());
    for (auto pick = picks.begin(); pick != unique; ++pick) kept.push_back(points[*pick]);
    begin = end;
  }
  return kept;
}

// Appends ` name="value"` with the value escaped.
void appendAttribute(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  out += escapeXml(value);
  out += '"';
}

// Appends ` name="value"` for a pixel coordinate.
void appendAttribute(std::string& out, std::string_view name, double value) {
  appendAttribute(out, name, formatPixel(value));
}

// Appends `<line .../>` from (x1, y1) to (x2, y2) [px].
void appendLine(std::string& out, double x1, double y1, double x2, double y2) {
  out += "<line";
  appendAttribute(out, "x1", x1);
  appendAttribute(out, "y1", y1);
  appendAttribute(out, "x2", x2);
  appendAttribute(out, "y2", y2);
  out += "/>\n";
}

// Appends `<text class=.. x=.. y=.. text-anchor=.. EXTRA>content</text>`; extra is raw markup.
void appendText(std::string& out, std::string_view cls, double x, double y, std::string_view anchor,
                std::string_view content, std::string_view extra = "") {
  out += "<text";
  appendAttribute(out, "class", cls);
  appendAttribute(out, "x", x);
  appendAttribute(out, "y", y);
  appendAttribute(out, "text-anchor", anchor);
  out += extra;
  out += '>';
  out += escapeXml(content);
  out += "</text>\n";
}

// Appends the x, y, width and height attributes of the rectangle from (x0, y0) to (x1, y1) [px].
void appendRectangle(std::string& out, double x0, double y0, double x1, double y1) {
  appendAttribute(out, "x", x0);
  appendAttribute(out, "y", y0);
  appendAttribute(out, "width", x1 - x0);
  appendAttribute(out, "height", y1 - y0);
}

// Appends a `<clipPath id=..>` of the rectangle from (x0, y0) to (x1, y1) [px].
void appendClipPath(std::string& out, std::string_view id, double x0, double y0, double x1,
                    double y1) {
  out += "<clipPath";
  appendAttribute(out, "id", id);
  out += "><rect";
  appendRectangle(out, x0, y0, x1, y1);
  out += "/></clipPath>\n";
}

// Every how many ticks a label fits, when labels need `needed` px between tick positions.
std::size_t labelStride(const std::vector<double>& positions, double needed) {
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < positions.size(); ++i) {
    closest = std::min(closest, std::abs(positions[i] - positions[i - 1]));
  }
  return closest >= needed ? 1 : static_cast<std::size_t>(std::ceil(needed / closest));
}

// A series' drawable points in pixels, split into runs wherever a point cannot be drawn.
std::vector<std::vector<Pixel>> pixelRuns(const Series& series, const Plot& plot,
                                          const AxisMap& toX, const AxisMap& toY) {
  std::vector<std::vector<Pixel>> runs(1);
  for (std::size_t i = 0; i < series.x.size(); ++i) {
    if (drawable(series.x[i], plot.x.scale) && drawable(series.y[i], plot.y.scale)) {
      runs.back().push_back({toX(series.x[i]), toY(series.y[i])});
    } else if (!runs.back().empty()) {
      runs.emplace_back();
    }
  }
  if (runs.back().empty()) runs.pop_back();
  return runs;
}

}  // namespace

std::string escapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    }
  }
  return out;
}

std::vector<double> axisTicks(double lo, double hi, AxisScale scale) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(hi - lo) || !(lo < hi) ||
      (scale == AxisScale::Log10 && lo <= 0.0)) {
    throw std::invalid_argument("axisTicks: invalid range [" + tickLabel(lo) + ", " +
                                tickLabel(hi) + "]");
  }
  return scale == AxisScale::Linear ? linearTicks(lo, hi) : logTicks(lo, hi);
}

std::string tickLabel(double value) {
  if (value == 0.0) return "0";
  if (std::isnan(value)) return "nan";
  std::array<char, 32> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::general, 6);
  return std::string(buffer.data(), result.ptr);
}

namespace {

/// On a log y axis, the data's range starts at the 1st percentile of the drawable values (of at
/// least 100): a few values decades below the rest, round-off where every curve starts at 0,
/// would otherwise stretch the axis over decades holding nothing else; they are clipped.
void trimLogLowerEnd(const Plot& plot, std::optional<Range>& yData) {
  if (!yData || plot.y.scale != AxisScale::Log10) return;
  std::vector<double> values;
  for (const Series& series : plot.series) {
    for (std::size_t i = 0; i < series.y.size(); ++i) {
      if (drawable(series.x[i], plot.x.scale) && drawable(series.y[i], plot.y.scale)) {
        values.push_back(series.y[i]);
      }
    }
  }
  if (values.size() < 100) return;
  const auto first_percentile = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 100);
  std::nth_element(values.begin(), first_percentile, values.end());
  yData->lo = std::min(*first_percentile, yData->hi);
}

/// The range of the drawable points of every series (none without one); on a log y axis from
/// the 1st percentile up (trimLogLowerEnd).
/// @throws std::invalid_argument for a series with more x than y values or fewer, or point
///   labels that are not one per point.
void dataRanges(const Plot& plot, std::optional<Range>& xData, std::optional<Range>& yData) {
  for (const Series& series : plot.series) {
    if (series.x.size() != series.y.size()) {
      throw std::invalid_argument("renderSvg: series '" + series.label + "' has " +
                                  std::to_string(series.x.size()) + " x values but " +
                                  std::to_string(series.y.size()) + " y values");
    }
    if (!series.point_labels.empty() && series.point_labels.size() != series.x.size()) {
      throw std::invalid_argument("renderSvg: series '" + series.label + "' has " +
                                  std::to_string(series.point_labels.size()) +
                                  " point labels for " + std::to_string(series.x.size()) +
                                  " points");
    }
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      const double x = series.x[i], y = series.y[i];
      if (!drawable(x, plot.x.scale) || !drawable(y, plot.y.scale)) continue;
      xData = xData ? Range{std::min(xData->lo, x), std::max(xData->hi, x)} : Range{x, x};
      yData = yData ? Range{std::min(yData->lo, y), std::max(yData->hi, y)} : Range{y, y};
    }
  }
  trimLogLowerEnd(plot, yData);
}

/// The plot area's edges [px].
struct PlotArea {
  int left, top, right, bottom;
  double centreX() const { return 0.5 * (left + right); }
  double centreY() const { return 0.5 * (top + bottom); }
};

/// The plot area: y label and tick labels on the left, legend column on the right.
/// @throws std::invalid_argument when the plot is too small to leave room for it.
PlotArea plotArea(const Plot& plot, const std::vector<double>& yTicks) {
  int yTickLabelWidth = 0;
  for (const double tick : yTicks) {
    yTickLabelWidth = std::max(yTickLabelWidth, textWidth(tickLabel(tick)));
  }
  int legendTextWidth = 0;
  for (const Series& series : plot.series) {
    legendTextWidth = std::max(legendTextWidth, textWidth(series.label));
  }
  const int legendWidth =
      plot.series.empty()
          ? 16
          : std::min(kLegendGap + kLegendSample + 6 + legendTextWidth + kLegendPadding,
                     plot.width * 2 / 5);
  PlotArea area;
  area.left = 10 + (plot.y.label.empty() ? 0 : 20) + yTickLabelWidth + kTickLength + 4;
  area.top = plot.title.empty() ? 12 : 34;
  area.right = plot.width - legendWidth;
  area.bottom = plot.height - (plot.x.label.empty() ? 30 : 48);
  if (area.right - area.left < kMinPlotArea || area.bottom - area.top < kMinPlotArea) {
    throw std::invalid_argument("renderSvg: plot '" + plot.title + "' of " +
                                std::to_string(plot.width) + " x " + std::to_string(plot.height) +
                                " px leaves no room for its plot area");
  }
  return area;
}

/// Document, clip paths (plot area; grown by a marker so markers on its edge stay whole), white
/// background, title.
void appendHeader(std::string& out, const Plot& plot, const PlotArea& a,
                  const std::string& lineClip, const std::string& markerClip) {
  out += "<svg";
  appendAttribute(out, "xmlns", "http://www.w3.org/2000/svg");
  appendAttribute(out, "width", std::to_string(plot.width));
  appendAttribute(out, "height", std::to_string(plot.height));
  appendAttribute(out, "viewBox",
                  "0 0 " + std::to_string(plot.width) + " " + std::to_string(plot.height));
  appendAttribute(out, "font-family", "system-ui, sans-serif");
  appendAttribute(out, "font-size", "12");
  out += ">\n<defs>\n";
  appendClipPath(out, lineClip, a.left, a.top, a.right, a.bottom);
  appendClipPath(out, markerClip, a.left - kMarkerRadius - 1, a.top - kMarkerRadius - 1,
                 a.right + kMarkerRadius + 1, a.bottom + kMarkerRadius + 1);
  out += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!plot.title.empty()) {
    appendText(out, "title", a.centreX(), 22, "middle", plot.title,
               " font-size=\"14\" font-weight=\"bold\"");
  }
}

/// Grid lines and tick marks at every tick, labels where they fit; the axis labels, x centred
/// below, y rotated at the left.
void appendAxes(std::string& out, const Plot& plot, const PlotArea& a,
                const std::vector<double>& xTicks, const std::vector<double>& yTicks,
                const AxisMap& toX, const AxisMap& toY) {
  std::vector<double> xPositions, yPositions;
  for (const double tick : xTicks) xPositions.push_back(toX(tick));
  for (const double tick : yTicks) yPositions.push_back(toY(tick));
  out += "<g class=\"grid\" stroke=\"#e6e6e6\">\n";
  for (const double x : xPositions) appendLine(out, x, a.top, x, a.bottom);
  for (const double y : yPositions) appendLine(out, a.left, y, a.right, y);
  out += "</g>\n<g class=\"ticks\" stroke=\"#333333\">\n";
  for (const double x : xPositions) appendLine(out, x, a.bottom, x, a.bottom + kTickLength);
  for (const double y : yPositions) appendLine(out, a.left - kTickLength, y, a.left, y);
  out += "</g>\n<g class=\"tick-labels\" fill=\"#333333\">\n";
  int xTickLabelWidth = 0;
  for (const double tick : xTicks) {
    xTickLabelWidth = std::max(xTickLabelWidth, textWidth(tickLabel(tick)));
  }
  const std::size_t xStride = labelStride(xPositions, xTickLabelWidth + 8);
  for (std::size_t i = 0; i < xTicks.size(); i += xStride) {
    appendText(out, "tick-label", xPositions[i], a.bottom + kTickLength + 13, "middle",
               tickLabel(xTicks[i]));
  }
  const std::size_t yStride = labelStride(yPositions, 16);
  for (std::size_t i = 0; i < yTicks.size(); i += yStride) {
    appendText(out, "tick-label", a.left - kTickLength - 3, yPositions[i] + 4, "end",
               tickLabel(yTicks[i]));
  }
  out += "</g>\n";
  if (!plot.x.label.empty()) {
    appendText(out, "x-label", a.centreX(), a.bottom + kTickLength + 34, "middle", plot.x.label);
  }
  if (!plot.y.label.empty()) {
    appendText(out, "y-label", 24, a.centreY(), "middle", plot.y.label,
               " transform=\"rotate(-90 24 " + formatPixel(a.centreY()) + ")\"");
  }
}

/// The series' point labels, each right of its point (undrawable points get none).
void appendPointLabels(std::string& out, const Series& series, const Plot& plot, const AxisMap& toX,
                       const AxisMap& toY) {
  if (series.point_labels.empty()) return;
  for (std::size_t i = 0; i < series.x.size() && i < series.point_labels.size(); ++i) {
    if (!drawable(series.x[i], plot.x.scale) || !drawable(series.y[i], plot.y.scale)) continue;
    appendText(out, "point-label", toX(series.x[i]) + kMarkerRadius + 2,
               toY(series.y[i]) - kMarkerRadius - 1, "start", series.point_labels[i],
               " fill=\"#444444\"");
  }
}

/// One series: a path per run of drawable points (decimated beyond one point per pixel column),
/// its markers collected into `markers`.
void appendSeries(std::string& out, std::string& markers, const Series& series,
                  const std::string& color, const Plot& plot, const PlotArea& a, const AxisMap& toX,
                  const AxisMap& toY) {
  out += "<g";
  appendAttribute(out, "stroke", color);
  if (!series.dash.empty()) appendAttribute(out, "stroke-dasharray", series.dash);
  out += ">\n";
  std::vector<std::vector<Pixel>> runs = pixelRuns(series, plot, toX, toY);
  std::size_t count = 0;
  for (const auto& run : runs) count += run.size();
  if (count > static_cast<std::size_t>(a.right - a.left)) {
    for (auto& run : runs) run = decimate(run);
  }
  for (const auto& run : runs) {
    // A lone point is a zero-length line, which the round line cap draws as a dot
    std::string d = "M" + formatPixel(run[0].x) + "," + formatPixel(run[0].y);
    for (std::size_t i = run.size() == 1 ? 0 : 1; i < run.size(); ++i) {
      d += "L" + formatPixel(run[i].x) + "," + formatPixel(run[i].y);
    }
    out += "<path class=\"series\"";
    appendAttribute(out, "data-series", series.label);
    appendAttribute(out, "d", d);
    out += "/>\n";
  }
  out += "</g>\n";
  if (!series.markers) return;
  for (const auto& run : runs) {
    for (const Pixel& point : run) {
      markers += "<circle class=\"marker\"";
      appendAttribute(markers, "data-series", series.label);
      appendAttribute(markers, "cx", point.x);
      appendAttribute(markers, "cy", point.y);
      appendAttribute(markers, "r", kMarkerRadius);
      appendAttribute(markers, "fill", color);
      markers += "/>\n";
    }
  }
  appendPointLabels(markers, series, plot, toX, toY);
}

/// A label in lines at most `width` px wide (textWidth): broken at spaces (runs of spaces count as
/// one), and a word wider than a line between characters.
std::vector<std::string> wrapLabel(std::string_view label, int width) {
  const std::size_t per_line = static_cast<std::size_t>(std::max(1, width / kCharWidth));
  std::vector<std::string> lines(1);
  std::size_t line_points = 0;
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(' ', start);
    if (end == std::string_view::npos) end = label.size();
    std::string_view word = label.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    // Each code point of the word onto the current line, or the next when it is full.
    const std::size_t word_points = static_cast<std::size_t>(textWidth(word) / kCharWidth);
    if (line_points > 0 && line_points + 1 + word_points > per_line) {
      lines.emplace_back();
      line_points = 0;
    } else if (line_points > 0) {
      lines.back() += ' ';
      ++line_points;
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
      const bool continuation = (static_cast<unsigned char>(word[i]) & 0xC0) == 0x80;
      if (!continuation && line_points == per_line) {
        lines.emplace_back();
        line_points = 0;
      }
      lines.back() += word[i];
      if (!continuation) ++line_points;
    }
  }
  return lines;
}

/// The legend: a column right of the plot area, one line sample and label per series (a label
/// wider than the column wrapped onto further lines).
void appendLegend(std::string& out, const Plot& plot, const PlotArea& a,
                  const std::vector<std::string>& colors) {
  out += "<g class=\"legend\">\n";
  const double x = a.right + kLegendGap, text_x = x + kLegendSample + 6;
  const int text_width = plot.width - static_cast<int>(text_x) - kLegendPadding;
  double y = a.top + 8;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const Series& series = plot.series[i];
    out += "<g class=\"legend-entry\"";
    appendAttribute(out, "stroke", colors[i]);
    out += " stroke-width=\"1.5\"";
    if (!series.dash.empty()) appendAttribute(out, "stroke-dasharray", series.dash);
    out += ">\n";
    appendLine(out, x, y, x + kLegendSample, y);
    if (series.markers) {
      out += "<circle";
      appendAttribute(out, "cx", x + 0.5 * kLegendSample);
      appendAttribute(out, "cy", y);
      appendAttribute(out, "r", kMarkerRadius);
      appendAttribute(out, "fill", colors[i]);
      out += " stroke=\"none\"/>\n";
    }
    const std::vector<std::string> lines = wrapLabel(series.label, text_width);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      appendText(out, k == 0 ? "legend-label" : "legend-label-more", text_x,
                 y + 4 + static_cast<double>(k) * kLegendLine, "start", lines[k],
                 " stroke=\"none\" fill=\"#222222\"");
    }
    out += "</g>\n";
    y += kLegendRow + static_cast<double>(lines.size() - 1) * kLegendLine;
  }
  out += "</g>\n";
}

}  // namespace

std::string renderSvg(const Plot& plot) {
  std::optional<Range> xData, yData;
  dataRanges(plot, xData, yData);
  const bool hasData = xData.has_value();
  const Range xRange = resolveRange(plot.x, "x", xData);
  const Range yRange = resolveRange(plot.y, "y", yData);
  const std::vector<double> xTicks =
      hasData ? axisTicks(xRange.lo, xRange.hi, plot.x.scale) : std::vector<double>{};
  const std::vector<double> yTicks =
      hasData ? axisTicks(yRange.lo, yRange.hi, plot.y.scale) : std::vector<double>{};
  const PlotArea a = plotArea(plot, yTicks);
  const AxisMap toX(xRange, plot.x.scale, a.left, a.right);
  const AxisMap toY(yRange, plot.y.scale, a.bottom, a.top);
  // Clip path ids name their rectangle, so that figures inlined into one page share an id only if
  // they share its meaning
  const std::string rectangle = std::to_string(a.left) + "-" + std::to_string(a.top) + "-" +
                                std::to_string(a.right) + "-" + std::to_string(a.bottom);
  const std::string lineClip = "plot-area-" + rectangle, markerClip = "plot-markers-" + rectangle;
  std::string out;
  appendHeader(out, plot, a, lineClip, markerClip);
  appendAxes(out, plot, a, xTicks, yTicks, toX, toY);
  // Series, clipped to the plot area; their markers above all lines, clipped to the plot area
  // grown by a marker
  out += "<g class=\"data\"";
  appendAttribute(out, "clip-path", "url(#" + lineClip + ")");
  out +=
      " fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n";
  std::vector<std::string> colors;
  std::string markers;
  std::size_t nextPaletteColor = 0;
  for (const Series& series : plot.series) {
    colors.push_back(!series.color.empty() ? series.color
                                           : kPalette[nextPaletteColor++ % kPalette.size()]);
    appendSeries(out, markers, series, colors.back(), plot, a, toX, toY);
  }
  out += "</g>\n<g class=\"markers\"";
  appendAttribute(out, "clip-path", "url(#" + markerClip + ")");
  out += ">\n" + markers + "</g>\n";
  if (!hasData) {
    appendText(out, "no-data", a.centreX(), a.centreY() + 4, "middle", "no data",
               " fill=\"#888888\"");
  }
  // Frame of the plot area, above the data
  out += "<rect class=\"frame\"";
  appendRectangle(out, a.left, a.top, a.right, a.bottom);
  out += " fill=\"none\" stroke=\"#333333\"/>\n";
  appendLegend(out, plot, a, colors);
  out += "</svg>\n";
  return out;
}

}  // namespace gcbridge::compare
