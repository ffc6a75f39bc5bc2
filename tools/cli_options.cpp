#include "cli_options.hpp"

#include <charconv>
#include <cmath>
#include <string_view>

namespace gcbridge::cli {
namespace {

/// `text` without leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

gcbridge::BallParametrization parseBall(const std::string& name, const std::string& help_command) {
  if (name == "quaternion") return gcbridge::BallParametrization::Quaternion;
  if (name == "expmap") return gcbridge::BallParametrization::ExpMap;
  if (name == "euler" || name == "euler_xyz") return gcbridge::BallParametrization::EulerXYZ;
  throw UsageError(
      "--ball: unknown parametrization '" + name + "' (choose quaternion, expmap or euler)",
      help_command);
}

bool parseModelOption(const std::vector<std::string>& args, size_t& i,
                      gcbridge::ModelOptions& options, const std::string& help_command) {
  const std::string& arg = args[i];
  if (arg == "--floating-base") {
    options.floating_base = true;
  } else if (arg == "--no-merge") {
    options.merge_fixed_joints = false;
  } else if (arg == "--ball") {
    if (i + 1 == args.size()) {
      throw UsageError("--ball needs a value: quaternion, expmap or euler", help_command);
    }
    options.ball = parseBall(args[++i], help_command);
  } else if (arg.rfind("--ball=", 0) == 0) {
    options.ball = parseBall(arg.substr(7), help_command);
  } else {
    return false;
  }
  return true;
}

std::vector<double> parseNumberList(const std::string& option, const std::string& text,
                                    const std::string& help_command) {
  const auto usage = [&option, &help_command](const std::string& message) {
    return UsageError(option + ": " + message, help_command);
  };
  std::vector<double> values;
  if (trimmed(text).empty()) return values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    const std::string_view item = trimmed(std::string_view(text).substr(start, end - start));
    const std::string entry = "entry " + std::to_string(values.size() + 1);
    if (item.empty()) throw usage(entry + " is empty in '" + text + "'");
    // from_chars takes no leading '+'; accept it as people write it.
    const std::string_view digits = item[0] == '+' ? item.substr(1) : item;
    double x = 0.0;
    const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), x);
    if (result.ec == std::errc::result_out_of_range) {
      throw usage(entry + " '" + std::string(item) + "' is out of the range of double");
    }
    if (result.ec != std::errc() || result.ptr != digits.data() + digits.size() ||
        (item[0] == '+' && (digits.empty() || digits[0] == '-'))) {
      throw usage(entry + " '" + std::string(item) + "' is not a number");
    }
    if (std::isnan(x)) throw usage(entry + " is NaN; the values must be finite numbers");
    if (std::isinf(x)) throw usage(entry + " is infinite; the values must be finite numbers");
    values.push_back(x);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

}  // namespace gcbridge::cli
