// The plots and HTML report of `gcbridge compare`: every SVG and page is parsed as XML; series,
// legend, labels and escaping, ticks and their labels, line breaks at undrawable points, the
// data-to-pixel mapping and clipping, degenerate and empty data, decimation, determinism, tables.

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compare/html_report.hpp"
#include "compare/plot.hpp"

namespace gcbridge::compare {
namespace {

using tinyxml2::XMLElement;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// An SVG or HTML text parsed by tinyxml2; `error` is XML_SUCCESS if it is well-formed.
struct Parsed {
  explicit Parsed(const std::string& text) : error(doc.Parse(text.c_str(), text.size())) {}
  tinyxml2::XMLDocument doc;
  tinyxml2::XMLError error;
};

// The elements under `node` accepted by `keep`, in document order.
std::vector<const XMLElement*> findAll(const tinyxml2::XMLNode* node,
                                       const std::function<bool(const XMLElement&)>& keep) {
  std::vector<const XMLElement*> found;
  for (const XMLElement* child = node->FirstChildElement(); child != nullptr;
       child = child->NextSiblingElement()) {
    if (keep(*child)) found.push_back(child);
    for (const XMLElement* inner : findAll(child, keep)) found.push_back(inner);
  }
  return found;
}

// The elements under `node` whose class attribute is `cls`.
std::vector<const XMLElement*> byClass(const tinyxml2::XMLNode* node, std::string_view cls) {
  return findAll(node, [cls](const XMLElement& e) {
    const char* value = e.Attribute("class");
    return value != nullptr && cls == value;
  });
}

// The elements under `node` named `name`.
std::vector<const XMLElement*> byName(const tinyxml2::XMLNode* node, std::string_view name) {
  return findAll(node, [name](const XMLElement& e) { return name == e.Name(); });
}

// The text of every element under `node` with class `cls`.
std::vector<std::string> textsOf(const tinyxml2::XMLNode* node, std::string_view cls) {
  std::vector<std::string> texts;
  for (const XMLElement* e : byClass(node, cls)) texts.push_back(e->GetText() ? e->GetText() : "");
  return texts;
}

// A point in pixels.
struct Pixel {
  double x;
  double y;
};

// The points of a path's d attribute, written as "Mx,yLx,yLx,y...".
std::vector<Pixel> pathPoints(const XMLElement& path) {
  std::vector<Pixel> points;
  const char* cursor = path.Attribute("d");
  while (cursor != nullptr && (*cursor == 'M' || *cursor == 'L')) {
    char* end = nullptr;
    const double x = std::strtod(cursor + 1, &end);
    const double y = std::strtod(end + 1, &end);
    points.push_back({x, y});
    cursor = end;
  }
  EXPECT_EQ(*cursor, '\0') << "unparsed path data: " << cursor;
  return points;
}

// The paths of each series, by data-series label.
std::map<std::string, std::vector<const XMLElement*>> pathsBySeries(const tinyxml2::XMLNode* svg) {
  std::map<std::string, std::vector<const XMLElement*>> paths;
  for (const XMLElement* path : byClass(svg, "series")) {
    EXPECT_STREQ(path->Name(), "path");
    paths[path->Attribute("data-series")].push_back(path);
  }
  return paths;
}

// The plot area: the frame rectangle [px].
struct Box {
  double x, y, width, height;
};
Box frameOf(const tinyxml2::XMLNode* svg) {
  const auto frames = byClass(svg, "frame");
  EXPECT_EQ(frames.size(), 1u);
  const XMLElement& f = *frames.at(0);
  return {f.DoubleAttribute("x"), f.DoubleAttribute("y"), f.DoubleAttribute("width"),
          f.DoubleAttribute("height")};
}

// Whether a pixel is (x, y) up to the 2 decimals the SVG is written with.
::testing::AssertionResult pixelNear(Pixel actual, double x, double y) {
  if (std::abs(actual.x - x) <= 0.006 && std::abs(actual.y - y) <= 0.006) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "pixel (" << actual.x << ", " << actual.y << ") is not (" << x << ", " << y << ")";
}

// A series from x and y values.
Series series(std::string label, std::vector<double> x, std::vector<double> y) {
  Series s;
  s.label = std::move(label);
  s.x = std::move(x);
  s.y = std::move(y);
  return s;
}

// A plot of a joint angle over time with a reference and a labelled title and axes.
Plot trajectoryPlot() {
  Plot plot;
  plot.title = "Joint 2 angle";
  plot.x.label = "time [s]";
  plot.y.label = "q2 [rad]";
  std::vector<double> t, bullet, reference;
  for (int i = 0; i <= 200; ++i) {
    t.push_back(0.01 * i);
    reference.push_back(std::sin(0.01 * i));
    bullet.push_back(std::sin(0.01 * i) + 0.01 * std::cos(0.3 * i));
  }
  plot.series.push_back(series("bullet", t, bullet));
  plot.series.push_back(series("reference", t, reference));
  plot.series.back().dash = "6 4";
  return plot;
}

// Whether `ticks` equals `expected`, each up to a relative 1e-14.
::testing::AssertionResult ticksAre(const std::vector<double>& ticks,
                                    const std::vector<double>& expected) {
  bool same = ticks.size() == expected.size();
  for (std::size_t i = 0; same && i < ticks.size(); ++i) {
    same = std::abs(ticks[i] - expected[i]) <= 1e-14 * std::abs(expected[i]);
  }
  if (same) return ::testing::AssertionSuccess();
  std::ostringstream text;
  for (const double t : ticks) text << t << " ";
  return ::testing::AssertionFailure() << "ticks are " << text.str();
}

TEST(EscapeXml, ReplacesTheFiveSpecialCharactersAndForbiddenControls) {
  EXPECT_EQ(escapeXml("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(escapeXml("tab\there\nx\x01y"), "tab\there\nx?y");
  EXPECT_EQ(escapeXml("\xCE\xB8 [rad]"), "\xCE\xB8 [rad]");
  EXPECT_EQ(escapeXml(""), "");
}

TEST(TickLabel, UsesSixSignificantDigitsLikePrintfG) {
  EXPECT_EQ(tickLabel(0.0), "0");
  EXPECT_EQ(tickLabel(-0.0), "0");
  EXPECT_EQ(tickLabel(0.5), "0.5");
  EXPECT_EQ(tickLabel(-2.5), "-2.5");
  EXPECT_EQ(tickLabel(0.7000000000000001), "0.7");
  EXPECT_EQ(tickLabel(2500.0), "2500");
  EXPECT_EQ(tickLabel(123456.0), "123456");
  EXPECT_EQ(tickLabel(1234567.0), "1.23457e+06");
  EXPECT_EQ(tickLabel(2.5e6), "2.5e+06");
  EXPECT_EQ(tickLabel(1e-4), "0.0001");
  EXPECT_EQ(tickLabel(1e-5), "1e-05");
  EXPECT_EQ(tickLabel(1e-6), "1e-06");
  EXPECT_EQ(tickLabel(kNaN), "nan");
  EXPECT_EQ(tickLabel(-kInf), "-inf");
}

TEST(AxisTicks, LogTicksAreTheDecadesOfTheRange) {
  EXPECT_TRUE(ticksAre(axisTicks(1e-6, 1e2, AxisScale::Log10),
                       {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0}));
  EXPECT_TRUE(
      ticksAre(axisTicks(3e-6, 50.0, AxisScale::Log10), {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0}));
}

TEST(AxisTicks, LogTicksBelowTwoDecadesAddTwoAndFiveTimesEachDecade) {
  EXPECT_TRUE(ticksAre(axisTicks(1.0, 50.0, AxisScale::Log10), {1, 2, 5, 10, 20, 50}));
  EXPECT_TRUE(ticksAre(axisTicks(0.03, 0.6, AxisScale::Log10), {0.05, 0.1, 0.2, 0.5}));
}

TEST(AxisTicks, LogTicksOverManyDecadesAreThinnedToTwelve) {
  const std::vector<double> ticks = axisTicks(1e-30, 1e30, AxisScale::Log10);
  EXPECT_TRUE(
      ticksAre(ticks, {1e-30, 1e-24, 1e-18, 1e-12, 1e-6, 1.0, 1e6, 1e12, 1e18, 1e24, 1e30}));
  ASSERT_GE(ticks.size(), 4u);
  ASSERT_LE(ticks.size(), 12u);
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    const double exponent = std::log10(ticks[i]);
    EXPECT_NEAR(exponent, std::round(exponent), 1e-9) << ticks[i];
    if (i > 0) {
      EXPECT_NEAR(std::log10(ticks[i] / ticks[i - 1]), 6.0, 1e-9);
    }
  }
  EXPECT_TRUE(std::count(ticks.begin(), ticks.end(), 1.0) == 1);
}

TEST(AxisTicks, LogRangeInsideOneDecadeFallsBackToLinearTicks) {
  EXPECT_TRUE(ticksAre(axisTicks(3.0, 4.0, AxisScale::Log10), {3.0, 3.2, 3.4, 3.6, 3.8, 4.0}));
}

TEST(AxisTicks, LinearTicksAreOneTwoFiveStepsCoveringTheRange) {
  EXPECT_TRUE(ticksAre(axisTicks(0.0, 1.0, AxisScale::Linear), {0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_TRUE(ticksAre(axisTicks(-0.5, 10.5, AxisScale::Linear), {0, 2, 4, 6, 8, 10}));
  EXPECT_TRUE(ticksAre(axisTicks(0.3, 0.7, AxisScale::Linear),
                       {0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7}));
  // Random ranges of every magnitude and sign
  std::mt19937 random(20240611);
  std::uniform_real_distribution<double> exponent(-8.0, 8.0), unit(-1.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const double scale = std::pow(10.0, exponent(random));
    double lo = scale * unit(random), hi = lo + scale * std::abs(unit(random)) + 1e-9 * scale;
    const std::vector<double> ticks = axisTicks(lo, hi, AxisScale::Linear);
    ASSERT_GE(ticks.size(), 4u) << lo << " " << hi;
    ASSERT_LE(ticks.size(), 10u) << lo << " " << hi;
    const double step = (ticks.back() - ticks.front()) / (ticks.size() - 1);
    const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double mantissa = step / decade;
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
                std::abs(mantissa - 5) < 1e-6)
        << "step " << step << " for [" << lo << ", " << hi << "]";
    // Inside the range, no room for one more tick at either end, multiples of the step
    const double slack = 1e-9 * step;
    EXPECT_GE(ticks.front(), lo - slack);
    EXPECT_LE(ticks.back(), hi + slack);
    EXPECT_LT(ticks.front() - step, lo - slack);
    EXPECT_GT(ticks.back() + step, hi + slack);
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      EXPECT_NEAR(ticks[i] / step, std::round(ticks[i] / step), 1e-6);
      if (i > 0) {
        EXPECT_NEAR(ticks[i] - ticks[i - 1], step, 1e-6 * step);
      }
    }
  }
}

TEST(AxisTicks, RejectsEmptyNonFiniteAndNonPositiveLogRanges) {
  EXPECT_THROW(axisTicks(1.0, 1.0, AxisScale::Linear), std::invalid_argument);
  EXPECT_THROW(axisTicks(2.0, 1.0, AxisScale::Linear), std::invalid_argument);
  EXPECT_THROW(axisTicks(kNaN, 1.0, AxisScale::Linear), std::invalid_argument);
  EXPECT_THROW(axisTicks(0.0, kInf, AxisScale::Linear), std::invalid_argument);
  EXPECT_THROW(axisTicks(-1e308, 1e308, AxisScale::Linear), std::invalid_argument);
  EXPECT_THROW(axisTicks(0.0, 10.0, AxisScale::Log10), std::invalid_argument);
  EXPECT_THROW(axisTicks(-1.0, 10.0, AxisScale::Log10), std::invalid_argument);
}

TEST(RenderSvg, IsAStandaloneWellFormedSvgDocument) {
  const std::string text = renderSvg(trajectoryPlot());
  EXPECT_EQ(text.rfind("<svg", 0), 0u);
  EXPECT_EQ(text.find("<?xml"), std::string::npos);
  Parsed svg(text);
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS) << svg.doc.ErrorStr();
  const XMLElement* root = svg.doc.RootElement();
  EXPECT_STREQ(root->Name(), "svg");
  EXPECT_STREQ(root->Attribute("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_STREQ(root->Attribute("width"), "720");
  EXPECT_STREQ(root->Attribute("height"), "420");
  EXPECT_STREQ(root->Attribute("viewBox"), "0 0 720 420");
}

TEST(RenderSvg, DrawsOnePathPerSeriesAndOneLegendEntryEach) {
  Plot plot = trajectoryPlot();
  plot.series.push_back(series("only NaN", {0.0, 1.0}, {kNaN, kNaN}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS) << svg.doc.ErrorStr();
  const auto paths = pathsBySeries(&svg.doc);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths.at("bullet").size(), 1u);
  EXPECT_EQ(paths.at("reference").size(), 1u);
  EXPECT_EQ(pathPoints(*paths.at("bullet")[0]).size(), 201u);
  // Legend: one entry per series, drawable or not, in order
  const auto legends = byClass(&svg.doc, "legend");
  ASSERT_EQ(legends.size(), 1u);
  const auto entries = byClass(legends[0], "legend-entry");
  ASSERT_EQ(entries.size(), 3u);
  const std::vector<std::string> labels = {"bullet", "reference", "only NaN"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_STREQ(entries[i]->FirstChildElement("text")->GetText(), labels[i].c_str());
    EXPECT_EQ(byName(entries[i], "line").size(), 1u);
  }
}

TEST(RenderSvg, LegendIsAColumnRightOfThePlotArea) {
  Plot plot = trajectoryPlot();
  plot.series[0].label = "a long engine name (settings)";
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const Box frame = frameOf(&svg.doc);
  for (const XMLElement* entry : byClass(&svg.doc, "legend-entry")) {
    const XMLElement* line = entry->FirstChildElement("line");
    EXPECT_GT(line->DoubleAttribute("x1"), frame.x + frame.width);
    EXPECT_GT(entry->FirstChildElement("text")->DoubleAttribute("x"), frame.x + frame.width);
  }
  // Room for the longest label (about 7 px per character) inside the figure
  const double textX = byClass(&svg.doc, "legend-label")[0]->DoubleAttribute("x");
  EXPECT_LE(textX + 7.0 * plot.series[0].label.size(), plot.width);
}

// A label wider than the legend column wraps at spaces (a run of them counts as one; a word wider
// than a line between its characters) onto lines that stay inside the figure, and the next entry
// starts below it.
TEST(RenderSvg, LongLegendLabelsWrapInsideTheFigure) {
  Plot plot = trajectoryPlot();
  ASSERT_GE(plot.series.size(), 2u);
  const std::string tail = " and a very long  tail " + std::string(60, 'x');
  plot.series[0].label = "rigid_body 240 Hz, computed_torque_step:motors" + tail;
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const XMLElement* entry = byClass(&svg.doc, "legend-entry")[0];
  std::vector<std::string> lines;
  double last_y = 0.0;
  for (const XMLElement* text = entry->FirstChildElement("text"); text != nullptr;
       text = text->NextSiblingElement("text")) {
    lines.push_back(text->GetText());
    EXPECT_LE(text->DoubleAttribute("x") + 7.0 * lines.back().size(), plot.width) << lines.back();
    EXPECT_GT(text->DoubleAttribute("y"), last_y);
    last_y = text->DoubleAttribute("y");
  }
  ASSERT_GE(lines.size(), 3u);
  std::string joined = lines[0];
  for (std::size_t k = 1; k < lines.size(); ++k) {
    joined += (lines[k - 1].back() == 'x' && lines[k].front() == 'x' ? "" : " ") + lines[k];
  }
  EXPECT_EQ(joined, "rigid_body 240 Hz, computed_torque_step:motors and a very long tail " +
                        std::string(60, 'x'));
  const XMLElement* next = byClass(&svg.doc, "legend-entry")[1];
  EXPECT_GT(next->FirstChildElement("line")->DoubleAttribute("y1"), last_y);
}

TEST(RenderSvg, LabelsAreEscapedAndRoundTrip) {
  const std::string nasty = "a<b & \"c\" 'd'";
  Plot plot = trajectoryPlot();
  plot.title = "title " + nasty;
  plot.x.label = "x " + nasty;
  plot.y.label = "y " + nasty;
  plot.series[0].label = nasty;
  const std::string text = renderSvg(plot);
  EXPECT_EQ(text.find("a<b"), std::string::npos);
  Parsed svg(text);
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS) << svg.doc.ErrorStr();
  EXPECT_EQ(textsOf(&svg.doc, "title"), std::vector<std::string>{"title " + nasty});
  EXPECT_EQ(textsOf(&svg.doc, "x-label"), std::vector<std::string>{"x " + nasty});
  EXPECT_EQ(textsOf(&svg.doc, "y-label"), std::vector<std::string>{"y " + nasty});
  EXPECT_EQ(pathsBySeries(&svg.doc).count(nasty), 1u);
  EXPECT_EQ(textsOf(&svg.doc, "legend-label")[0], nasty);
}

TEST(RenderSvg, PlacesTitleAboveXLabelBelowAndYLabelRotatedLeft) {
  Parsed svg(renderSvg(trajectoryPlot()));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const Box frame = frameOf(&svg.doc);
  const XMLElement* title = byClass(&svg.doc, "title").at(0);
  const XMLElement* xLabel = byClass(&svg.doc, "x-label").at(0);
  const XMLElement* yLabel = byClass(&svg.doc, "y-label").at(0);
  EXPECT_LT(title->DoubleAttribute("y"), frame.y);
  EXPECT_GT(xLabel->DoubleAttribute("y"), frame.y + frame.height);
  EXPECT_NEAR(xLabel->DoubleAttribute("x"), frame.x + 0.5 * frame.width, 0.01);
  EXPECT_STREQ(xLabel->Attribute("text-anchor"), "middle");
  EXPECT_LT(yLabel->DoubleAttribute("x"), frame.x);
  EXPECT_EQ(std::string(yLabel->Attribute("transform")).rfind("rotate(-90 ", 0), 0u);
}

TEST(RenderSvg, TickLabelsOnBothAxesAndGridLines) {
  Plot plot;
  plot.x = {"time [s]", AxisScale::Linear, 0.0, 10.0};
  plot.y = {"energy [J]", AxisScale::Linear, -1.0, 1.0};
  plot.series.push_back(series("E", {0.0, 10.0}, {-1.0, 1.0}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const std::vector<std::string> labels = textsOf(&svg.doc, "tick-label");
  const std::set<std::string> got(labels.begin(), labels.end());
  for (const char* expected : {"0", "2", "4", "6", "8", "10", "-1", "-0.5", "0.5", "1"}) {
    EXPECT_EQ(got.count(expected), 1u) << expected;
  }
  // Six x ticks and five y ticks: one grid line and one tick mark each
  EXPECT_EQ(byName(byClass(&svg.doc, "grid").at(0), "line").size(), 11u);
  EXPECT_EQ(byName(byClass(&svg.doc, "ticks").at(0), "line").size(), 11u);
}

TEST(RenderSvg, LogLogAxesFromDataSpanWholeDecades) {
  Plot plot;
  plot.x = {"time step [s]", AxisScale::Log10, {}, {}};
  plot.y = {"error [rad]", AxisScale::Log10, {}, {}};
  plot.series.push_back(series("rk4", {3e-5, 1e-3, 2e-1}, {2e-9, 1e-5, 0.3}));
  plot.series.back().markers = true;
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const std::vector<std::string> labels = textsOf(&svg.doc, "tick-label");
  const std::set<std::string> got(labels.begin(), labels.end());
  const std::set<std::string> expected = {"1e-05", "0.0001", "0.001", "0.01",  "0.1",
                                          "1",     "1e-09",  "1e-08", "1e-07", "1e-06"};
  EXPECT_TRUE(std::includes(got.begin(), got.end(), expected.begin(), expected.end()));
  // x from 1e-5 to 1: 1e-3 is at 2/5 of the width; y from 1e-9 to 1: 1e-5 at 4/9 of the height
  const Box frame = frameOf(&svg.doc);
  const std::vector<Pixel> points = pathPoints(*pathsBySeries(&svg.doc).at("rk4").at(0));
  ASSERT_EQ(points.size(), 3u);
  EXPECT_TRUE(pixelNear(points[1], frame.x + 0.4 * frame.width,
                        frame.y + frame.height - 4.0 / 9.0 * frame.height));
  // One marker per point, in the series colour
  const auto markers = byClass(&svg.doc, "marker");
  ASSERT_EQ(markers.size(), 3u);
  EXPECT_TRUE(pixelNear({markers[1]->DoubleAttribute("cx"), markers[1]->DoubleAttribute("cy")},
                        points[1].x, points[1].y));
  EXPECT_STREQ(markers[1]->Attribute("data-series"), "rk4");
}

TEST(RenderSvg, NoMarkersUnlessAsked) {
  Parsed svg(renderSvg(trajectoryPlot()));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  EXPECT_TRUE(byClass(&svg.doc, "marker").empty());
}

TEST(RenderSvg, NonFinitePointsBreakTheLine) {
  Plot plot;
  plot.series.push_back(series("q", {0, 1, 2, 3, 4}, {0.0, 1.0, kNaN, 3.0, 4.0}));
  plot.series.push_back(series("v", {0, 1, 2, 3, 4, 5, 6}, {0, 1, kInf, 3, 4, -kInf, 6}));
  plot.series.push_back(series("w", {0, 1, kNaN, 3, 4}, {0, 1, 2, 3, 4}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS) << svg.doc.ErrorStr();
  const auto paths = pathsBySeries(&svg.doc);
  ASSERT_EQ(paths.at("q").size(), 2u);
  EXPECT_EQ(pathPoints(*paths.at("q")[0]).size(), 2u);
  EXPECT_EQ(pathPoints(*paths.at("q")[1]).size(), 2u);
  ASSERT_EQ(paths.at("v").size(), 3u);
  ASSERT_EQ(paths.at("w").size(), 2u);
  // A lone point between two breaks is a zero-length line (drawn as a dot by the round cap)
  const std::vector<Pixel> lone = pathPoints(*paths.at("v")[2]);
  ASSERT_EQ(lone.size(), 2u);
  EXPECT_TRUE(pixelNear(lone[0], lone[1].x, lone[1].y));
  EXPECT_EQ(renderSvg(plot).find("nan"), std::string::npos);
  EXPECT_EQ(renderSvg(plot).find("inf"), std::string::npos);
}

TEST(RenderSvg, NonPositiveValuesAreDroppedOnLogAxes) {
  Plot plot;
  plot.y.scale = AxisScale::Log10;
  plot.series.push_back(series("e", {0, 1, 2, 3, 4, 5}, {1.0, 0.0, -1.0, 10.0, 100.0, 1000.0}));
  plot.x.scale = AxisScale::Log10;
  plot.series.push_back(series("f", {-1, 0, 1, 10}, {1.0, 1.0, 10.0, 100.0}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const auto paths = pathsBySeries(&svg.doc);
  // e keeps 10, 100, 1000 at x = 3, 4, 5 (x = 0 cannot be drawn on the log x axis); f keeps two
  ASSERT_EQ(paths.at("e").size(), 1u);
  EXPECT_EQ(pathPoints(*paths.at("e")[0]).size(), 3u);
  ASSERT_EQ(paths.at("f").size(), 1u);
  EXPECT_EQ(pathPoints(*paths.at("f")[0]).size(), 2u);
  // The ranges come from the drawable points only: x 1..10, y 10..1000
  const Box frame = frameOf(&svg.doc);
  const std::vector<Pixel> f = pathPoints(*paths.at("f")[0]);
  EXPECT_TRUE(pixelNear(f[0], frame.x, frame.y + frame.height));
  EXPECT_TRUE(pixelNear(f[1], frame.x + frame.width, frame.y + 0.5 * frame.height));
}

TEST(RenderSvg, MismatchedSeriesSizesThrowNamingTheSeries) {
  Plot plot = trajectoryPlot();
  plot.series[1].y.pop_back();
  try {
    renderSvg(plot);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("reference"), std::string::npos) << e.what();
  }
}

TEST(RenderSvg, InvalidFixedRangesAndTinyFiguresThrow) {
  Plot plot = trajectoryPlot();
  plot.x.min = 1.0;
  plot.x.max = 1.0;
  EXPECT_THROW(renderSvg(plot), std::invalid_argument);
  plot = trajectoryPlot();
  plot.y.scale = AxisScale::Log10;
  plot.y.min = 0.0;
  EXPECT_THROW(renderSvg(plot), std::invalid_argument);
  plot = trajectoryPlot();
  plot.x.max = kNaN;
  EXPECT_THROW(renderSvg(plot), std::invalid_argument);
  plot = trajectoryPlot();
  plot.width = 100;
  EXPECT_THROW(renderSvg(plot), std::invalid_argument);
}

TEST(RenderSvg, FixedRangeMapsItsEndsToThePlotAreaCorners) {
  Plot plot;
  plot.x.min = 0.0;
  plot.x.max = 10.0;
  plot.y.min = -2.0;
  plot.y.max = 5.0;
  plot.series.push_back(series("s", {0.0, 10.0}, {-2.0, 5.0}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const Box frame = frameOf(&svg.doc);
  EXPECT_GT(frame.width, 100.0);
  EXPECT_GT(frame.height, 100.0);
  const std::vector<Pixel> points = pathPoints(*pathsBySeries(&svg.doc).at("s").at(0));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_TRUE(pixelNear(points[0], frame.x, frame.y + frame.height));
  EXPECT_TRUE(pixelNear(points[1], frame.x + frame.width, frame.y));
}

TEST(RenderSvg, AutomaticLinearRangeHasAFivePercentMargin) {
  Plot plot;
  plot.series.push_back(series("s", {0.0, 10.0}, {0.0, 1.0}));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const Box frame = frameOf(&svg.doc);
  const std::vector<Pixel> points = pathPoints(*pathsBySeries(&svg.doc).at("s").at(0));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_TRUE(
      pixelNear(points[0], frame.x + frame.width / 22.0, frame.y + frame.height * 21.0 / 22.0));
}

// The rectangle of the clipPath an element's clip-path="url(#ID)" refers to.
Box clipOf(const tinyxml2::XMLNode* svg, const XMLElement& clipped) {
  const std::string url = clipped.Attribute("clip-path");
  for (const XMLElement* clip : byName(svg, "clipPath")) {
    if (url != std::string("url(#") + clip->Attribute("id") + ")") continue;
    const XMLElement* rect = clip->FirstChildElement("rect");
    return {rect->DoubleAttribute("x"), rect->DoubleAttribute("y"), rect->DoubleAttribute("width"),
            rect->DoubleAttribute("height")};
  }
  ADD_FAILURE() << "no clipPath for " << url;
  return {0.0, 0.0, 0.0, 0.0};
}

TEST(RenderSvg, DataOutsideAFixedRangeIsClippedToThePlotArea) {
  Plot plot = trajectoryPlot();
  plot.y.min = -0.5;
  plot.y.max = 0.5;
  plot.series[1].markers = true;
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  // Every path sits in the group clipped to the frame
  const Box frame = frameOf(&svg.doc);
  const auto data = byClass(&svg.doc, "data");
  ASSERT_EQ(data.size(), 1u);
  const Box lines = clipOf(&svg.doc, *data[0]);
  EXPECT_EQ(lines.x, frame.x);
  EXPECT_EQ(lines.y, frame.y);
  EXPECT_EQ(lines.width, frame.width);
  EXPECT_EQ(lines.height, frame.height);
  EXPECT_EQ(byClass(data[0], "series").size(), byClass(&svg.doc, "series").size());
  // Markers are clipped to the frame grown by a marker's radius and a pixel
  const auto markers = byClass(&svg.doc, "markers");
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(byClass(markers[0], "marker").size(), 201u);
  const Box grown = clipOf(&svg.doc, *markers[0]);
  EXPECT_EQ(grown.x, frame.x - 4.0);
  EXPECT_EQ(grown.y, frame.y - 4.0);
  EXPECT_EQ(grown.width, frame.width + 8.0);
  EXPECT_EQ(grown.height, frame.height + 8.0);
  // Some points lie far beyond the frame
  double highest = kInf;
  for (const Pixel& p : pathPoints(*pathsBySeries(&svg.doc).at("bullet").at(0))) {
    highest = std::min(highest, p.y);
  }
  EXPECT_LT(highest, frame.y - 10.0);
}

TEST(RenderSvg, SinglePointsAndConstantSeriesGetANonZeroRange) {
  for (const AxisScale scale : {AxisScale::Linear, AxisScale::Log10}) {
    Plot plot;
    plot.x.scale = scale;
    plot.y.scale = scale;
    plot.series.push_back(series("one", {100.0}, {100.0}));
    plot.series.push_back(series("constant", {100.0, 100.0}, {100.0, 100.0}));
    Parsed svg(renderSvg(plot));
    ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
    const Box frame = frameOf(&svg.doc);
    // The value sits in the middle of a range with ticks
    for (const char* label : {"one", "constant"}) {
      for (const Pixel& p : pathPoints(*pathsBySeries(&svg.doc).at(label).at(0))) {
        EXPECT_TRUE(pixelNear(p, frame.x + 0.5 * frame.width, frame.y + 0.5 * frame.height));
      }
    }
    EXPECT_GE(byClass(&svg.doc, "tick-label").size(), 4u);
    const std::string text = renderSvg(plot);
    EXPECT_EQ(text.find("nan"), std::string::npos);
  }
}

TEST(RenderSvg, EmptyPlotsRenderAFrameWithLabelsAndNoData) {
  Plot empty = trajectoryPlot();
  empty.series.clear();
  Plot unfinite = trajectoryPlot();
  unfinite.series = {series("all NaN", {kNaN, 1.0}, {0.0, kNaN})};
  for (const Plot& plot : {empty, unfinite}) {
    Parsed svg(renderSvg(plot));
    ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS) << svg.doc.ErrorStr();
    EXPECT_EQ(textsOf(&svg.doc, "no-data"), std::vector<std::string>{"no data"});
    EXPECT_EQ(byClass(&svg.doc, "frame").size(), 1u);
    EXPECT_EQ(textsOf(&svg.doc, "title").size(), 1u);
    EXPECT_EQ(textsOf(&svg.doc, "x-label").size(), 1u);
    EXPECT_EQ(textsOf(&svg.doc, "y-label").size(), 1u);
    EXPECT_TRUE(byClass(&svg.doc, "series").empty());
    EXPECT_EQ(byClass(&svg.doc, "legend-entry").size(), plot.series.size());
  }
  Parsed withData(renderSvg(trajectoryPlot()));
  EXPECT_TRUE(byClass(&withData.doc, "no-data").empty());
}

TEST(RenderSvg, UnsetColoursCycleThroughTheEightColourPalette) {
  Plot plot;
  for (int i = 0; i < 10; ++i) {
    plot.series.push_back(series("s" + std::to_string(i), {0.0, 1.0}, {0.0, 1.0 * i}));
  }
  plot.series[3].color = "rebeccapurple";
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  std::vector<std::string> colors;
  for (const auto& [label, paths] : pathsBySeries(&svg.doc)) {
    colors.push_back(paths.at(0)->Parent()->ToElement()->Attribute("stroke"));
  }
  // By label: s0 s1 s2 s3 ... s9; s3 is fixed and takes no palette colour
  EXPECT_EQ(colors[3], "rebeccapurple");
  const std::set<std::string> palette = {colors[0], colors[1], colors[2], colors[4],
                                         colors[5], colors[6], colors[7], colors[8]};
  EXPECT_EQ(palette.size(), 8u);
  EXPECT_EQ(colors[9], colors[0]);
  // Legend samples take the same colours
  const auto entries = byClass(&svg.doc, "legend-entry");
  EXPECT_STREQ(entries[3]->Attribute("stroke"), "rebeccapurple");
  EXPECT_EQ(colors[9], entries[9]->Attribute("stroke"));
}

TEST(RenderSvg, DashedSeriesAreDashedInPlotAndLegend) {
  Parsed svg(renderSvg(trajectoryPlot()));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const auto paths = pathsBySeries(&svg.doc);
  EXPECT_EQ(paths.at("bullet")[0]->Parent()->ToElement()->Attribute("stroke-dasharray"), nullptr);
  EXPECT_NE(paths.at("reference")[0]->Parent()->ToElement()->Attribute("stroke-dasharray"),
            nullptr);
  const auto entries = byClass(&svg.doc, "legend-entry");
  EXPECT_EQ(entries[0]->Attribute("stroke-dasharray"), nullptr);
  EXPECT_NE(entries[1]->Attribute("stroke-dasharray"), nullptr);
}

// A series' dash pattern is the given one, in the plot and the legend.
TEST(RenderSvg, DashPatternsAreTheGivenOnes) {
  Plot plot = trajectoryPlot();
  plot.series[0].dash = "2 3";
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  EXPECT_STREQ(
      pathsBySeries(&svg.doc).at("bullet")[0]->Parent()->ToElement()->Attribute("stroke-dasharray"),
      "2 3");
  EXPECT_STREQ(byClass(&svg.doc, "legend-entry")[0]->Attribute("stroke-dasharray"), "2 3");
}

// Point labels sit right of and above their markers; undrawable points get none; labels that
// are not one per point are refused naming the series.
TEST(RenderSvg, PointLabelsSitBesideTheirMarkers) {
  Plot plot;
  plot.x = {"cost", AxisScale::Log10, {}, {}};
  plot.y = {"error", AxisScale::Log10, {}, {}};
  plot.series.push_back(series("rk4", {1e-3, 2e-3, 4e-3}, {1e-6, -1.0, 1e-8}));
  plot.series.back().markers = true;
  plot.series.back().point_labels = {"60 Hz", "120 Hz", "240 Hz"};
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  EXPECT_EQ(textsOf(&svg.doc, "point-label"), (std::vector<std::string>{"60 Hz", "240 Hz"}));
  const auto markers = byClass(&svg.doc, "marker");
  const auto labels = byClass(&svg.doc, "point-label");
  ASSERT_EQ(markers.size(), 2u);
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_GT(labels[0]->DoubleAttribute("x"), markers[0]->DoubleAttribute("cx"));
  EXPECT_LT(labels[0]->DoubleAttribute("y"), markers[0]->DoubleAttribute("cy"));
  plot.series.back().point_labels.pop_back();
  try {
    renderSvg(plot);
    ADD_FAILURE() << "no invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'rk4'"), std::string::npos) << e.what();
  }
}

// A log y axis starts at its values' 1st percentile: a few round-off values (1e-16, where every
// curve starts at 0) do not stretch it over empty decades; with fewer than 100 values, at the
// smallest.
TEST(RenderSvg, LogAxisIgnoresAFewValuesFarBelowTheRest) {
  Plot plot;
  plot.y = {"error", AxisScale::Log10, {}, {}};
  std::vector<double> x, y;
  for (int i = 0; i < 200; ++i) {
    x.push_back(i);
    y.push_back(i == 0 ? 1e-16 : 1e-4 * (1 + i));
  }
  plot.series.push_back(series("euler", x, y));
  Parsed svg(renderSvg(plot));
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  std::vector<std::string> ticks = textsOf(&svg.doc, "tick-label");
  EXPECT_EQ(std::count(ticks.begin(), ticks.end(), "1e-16"), 0);
  EXPECT_EQ(std::count(ticks.begin(), ticks.end(), "0.001"), 1);
  plot.series[0].x.resize(50);
  plot.series[0].y.resize(50);
  Parsed few(renderSvg(plot));
  ticks = textsOf(&few.doc, "tick-label");
  EXPECT_EQ(std::count(ticks.begin(), ticks.end(), "1e-16"), 1);
}

TEST(RenderSvg, DenseSeriesAreDecimatedKeepingTheirEnvelope) {
  Plot plot;
  plot.y.min = -2.0;
  plot.y.max = 2.0;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> noise(-0.1, 0.1);
  std::vector<double> x, y;
  for (int i = 0; i < 100000; ++i) {
    x.push_back(1e-4 * i);
    y.push_back(0.5 * std::sin(1e-3 * i) + noise(random));
  }
  y[31415] = 1.5;
  y[77777] = -1.7;
  plot.series.push_back(series("dense", x, y));
  const std::string text = renderSvg(plot);
  EXPECT_LT(text.size(), 200000u);
  Parsed svg(text);
  ASSERT_EQ(svg.error, tinyxml2::XML_SUCCESS);
  const Box frame = frameOf(&svg.doc);
  const auto paths = pathsBySeries(&svg.doc).at("dense");
  ASSERT_EQ(paths.size(), 1u);
  const std::vector<Pixel> points = pathPoints(*paths[0]);
  EXPECT_LE(points.size(), 4 * static_cast<std::size_t>(frame.width + 1));
  // The extremes are kept: highest point at 1.5, lowest at -1.7; first and last points too
  double top = kInf, bottom = -kInf;
  for (const Pixel& p : points) {
    top = std::min(top, p.y);
    bottom = std::max(bottom, p.y);
  }
  EXPECT_NEAR(top, frame.y + (2.0 - 1.5) / 4.0 * frame.height, 0.006);
  EXPECT_NEAR(bottom, frame.y + (2.0 + 1.7) / 4.0 * frame.height, 0.006);
  EXPECT_NEAR(points.front().y, frame.y + (2.0 - y.front()) / 4.0 * frame.height, 0.006);
  EXPECT_NEAR(points.back().y, frame.y + (2.0 - y.back()) / 4.0 * frame.height, 0.006);
}

TEST(RenderSvg, TenSeriesOfTwoThousandPointsStaySmall) {
  Plot plot = trajectoryPlot();
  plot.series.clear();
  for (int s = 0; s < 10; ++s) {
    std::vector<double> x, y;
    for (int i = 0; i < 2000; ++i) {
      x.push_back(0.001 * i);
      y.push_back(std::sin(0.01 * i + s) * std::exp(-0.001 * i) + 0.123456789 * s);
    }
    plot.series.push_back(series("joint " + std::to_string(s), x, y));
  }
  EXPECT_LT(renderSvg(plot).size(), 300000u);
}

TEST(RenderSvg, SameInputGivesTheSameBytes) {
  Plot plot = trajectoryPlot();
  plot.series.push_back(series("gappy", {0.0, 0.5, 1.0, 1.5}, {0.1, kNaN, 0.3, 0.2}));
  const Plot copy = plot;
  const std::string first = renderSvg(plot);
  EXPECT_EQ(first, renderSvg(copy));
  plot.series[0].y[7] += 0.5;
  EXPECT_NE(first, renderSvg(plot));
}

// A report with every kind of block.
HtmlReport sampleReport() {
  HtmlReport report("Engines compared on <acrobot> & \"friends\"");
  report.addHeading("Setup");
  report.addPreformatted("gcbridge compare models/acrobot.urdf --engines a,b\n  --dt 1e-3");
  report.addParagraph("Bullet's 'multibody' & gcbridge < 1e-6 rad apart.");
  report.addHeading("Results", 3);
  report.addTable({{"engine", "max |dq| [rad]", "time [ms]"},
                   {{"bullet", "1.5e-6", " 12 "}, {"gcbridge", "+2", "nan"}}},
                  "Errors & timings");
  report.addFigure(trajectoryPlot(), "Joint 2 <angle>");
  Plot loglog;
  loglog.x = {"step [s]", AxisScale::Log10, {}, {}};
  loglog.y = {"error [rad]", AxisScale::Log10, {}, {}};
  loglog.series.push_back(series("rk4", {1e-4, 1e-3, 1e-2}, {1e-12, 1e-8, 1e-4}));
  report.addFigure(loglog);
  return report;
}

TEST(HtmlReport, IsWellFormedXhtml) {
  const std::string html = sampleReport().html();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  Parsed page(html);
  ASSERT_EQ(page.error, tinyxml2::XML_SUCCESS) << page.doc.ErrorStr();
  const XMLElement* root = page.doc.RootElement();
  EXPECT_STREQ(root->Name(), "html");
  EXPECT_STREQ(root->Attribute("xmlns"), "http://www.w3.org/1999/xhtml");
  const XMLElement* meta = root->FirstChildElement("head")->FirstChildElement("meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_STREQ(meta->Attribute("charset"), "utf-8");
  EXPECT_EQ(byName(root, "style").size(), 1u);
  EXPECT_EQ(byName(root, "h1").size(), 1u);
  EXPECT_EQ(byName(root, "h2").size(), 1u);
  EXPECT_EQ(byName(root, "h3").size(), 1u);
}

TEST(HtmlReport, IsSelfContained) {
  const std::string html = sampleReport().html();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  // "http://" only in the XHTML namespace and each figure's SVG namespace
  std::vector<std::string> uris;
  for (auto at = html.find("http://"); at != std::string::npos; at = html.find("http://", at + 1)) {
    EXPECT_EQ(html.compare(at - 7, 7, "xmlns=\""), 0) << html.substr(at - 7, 40);
    uris.push_back(html.substr(at, html.find('"', at) - at));
  }
  EXPECT_EQ(uris,
            (std::vector<std::string>{"http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg",
                                      "http://www.w3.org/2000/svg"}));
}

TEST(HtmlReport, EscapesTextAndInlinesFiguresWithCaptions) {
  Parsed page(sampleReport().html());
  ASSERT_EQ(page.error, tinyxml2::XML_SUCCESS) << page.doc.ErrorStr();
  const XMLElement* root = page.doc.RootElement();
  const std::string title = "Engines compared on <acrobot> & \"friends\"";
  EXPECT_EQ(root->FirstChildElement("head")->FirstChildElement("title")->GetText(), title);
  EXPECT_EQ(byName(root, "h1").at(0)->GetText(), title);
  EXPECT_STREQ(byName(root, "p").at(0)->GetText(),
               "Bullet's 'multibody' & gcbridge < 1e-6 rad apart.");
  EXPECT_STREQ(byName(root, "pre").at(0)->GetText(),
               "gcbridge compare models/acrobot.urdf --engines a,b\n  --dt 1e-3");
  const auto figures = byName(root, "figure");
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_NE(figures[0]->FirstChildElement("svg"), nullptr);
  EXPECT_EQ(byClass(figures[0], "legend-entry").size(), 2u);
  EXPECT_STREQ(figures[0]->FirstChildElement("figcaption")->GetText(), "Joint 2 <angle>");
  EXPECT_EQ(figures[1]->FirstChildElement("figcaption"), nullptr);
}

TEST(HtmlReport, NumericCellsAreRightAligned) {
  Parsed page(sampleReport().html());
  ASSERT_EQ(page.error, tinyxml2::XML_SUCCESS);
  const auto tables = byName(page.doc.RootElement(), "table");
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_STREQ(tables[0]->FirstChildElement("caption")->GetText(), "Errors & timings");
  std::vector<std::string> numeric;
  for (const XMLElement* cell : byClass(tables[0], "num")) numeric.push_back(cell->GetText());
  // Headers of the all-numeric columns, then the numeric cells in row order
  EXPECT_EQ(numeric, (std::vector<std::string>{"max |dq| [rad]", "time [ms]", "1.5e-6", " 12 ",
                                               "+2", "nan"}));
  EXPECT_EQ(byName(tables[0], "td").size(), 6u);
}

TEST(HtmlReport, MixedColumnsKeepTheirHeaderLeftAligned) {
  HtmlReport report("t");
  report.addTable({{"value"}, {{"1.5"}, {"1.5 ms"}, {""}, {"-"}}});
  Parsed page(report.html());
  ASSERT_EQ(page.error, tinyxml2::XML_SUCCESS);
  const auto numeric = byClass(page.doc.RootElement(), "num");
  ASSERT_EQ(numeric.size(), 1u);
  EXPECT_STREQ(numeric[0]->GetText(), "1.5");
  EXPECT_EQ(byName(page.doc.RootElement(), "caption").size(), 0u);
}

TEST(HtmlReport, BadTablesAndHeadingsThrowAndLeaveTheReportUnchanged) {
  HtmlReport report("t");
  report.addParagraph("before");
  const std::string before = report.html();
  EXPECT_THROW(report.addTable({{"a", "b"}, {{"1", "2"}, {"3"}}}), std::invalid_argument);
  EXPECT_THROW(report.addTable({{}, {}}), std::invalid_argument);
  EXPECT_THROW(report.addHeading("h1", 1), std::invalid_argument);
  EXPECT_THROW(report.addHeading("h5", 5), std::invalid_argument);
  Plot bad = trajectoryPlot();
  bad.series[0].x.pop_back();
  EXPECT_THROW(report.addFigure(bad), std::invalid_argument);
  EXPECT_EQ(report.html(), before);
  report.addHeading("h4", 4);
  EXPECT_NE(report.html().find("<h4>h4</h4>"), std::string::npos);
}

// File links: the name shown, the link percent-encoded where the name needs it.
TEST(HtmlReport, LinksFilesByName) {
  HtmlReport report("files");
  report.addFileLinks({"summary.csv", "a b&c.svg"});
  Parsed page(report.html());
  ASSERT_EQ(page.error, tinyxml2::XML_SUCCESS);
  const auto links = byName(&page.doc, "a");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_STREQ(links[0]->Attribute("href"), "summary.csv");
  EXPECT_STREQ(links[0]->GetText(), "summary.csv");
  EXPECT_STREQ(links[1]->Attribute("href"), "a%20b%26c.svg");
  EXPECT_STREQ(links[1]->GetText(), "a b&c.svg");
}

TEST(HtmlReport, SameReportGivesTheSameBytes) {
  EXPECT_EQ(sampleReport().html(), sampleReport().html());
}

TEST(HtmlReport, WritesTheFileAndNamesAPathItCannotWrite) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "gcbridge_compare_report_test.html";
  const HtmlReport report = sampleReport();
  report.write(path.string());
  std::ifstream file(path, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
  EXPECT_EQ(written, report.html());
  std::filesystem::remove(path);

  const std::string bad =
      (std::filesystem::path(::testing::TempDir()) / "gcbridge_no_such_directory" / "report.html")
          .string();
  try {
    report.write(bad);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcbridge::compare
