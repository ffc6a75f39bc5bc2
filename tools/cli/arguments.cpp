#include "cli/arguments.hpp"

#include <charconv>
#include <cmath>
#include <sstream>
#include <utility>

namespace gcbridge::cli {
namespace {

/// `text` without leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// Whether `arg` is written as an option: a dash and more ("-" alone is an operand).
bool looksLikeOption(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

/// The option's name: `arg` up to its '='.
std::string_view optionName(const std::string& arg) {
  return std::string_view(arg).substr(0, arg.find('='));
}

}  // namespace

UsageError::UsageError(const std::string& message, std::string help_command)
    : std::runtime_error(message), help_command_(std::move(help_command)) {}

ArgumentReader::ArgumentReader(std::vector<std::string> args, std::string help_command)
    : args_(std::move(args)), help_command_(std::move(help_command)) {}

ArgumentReader::ArgumentReader(int argc, char** argv, std::string help_command)
    : ArgumentReader(
          argc > 1 ? std::vector<std::string>(argv + 1, argv + argc) : std::vector<std::string>{},
          std::move(help_command)) {}

bool ArgumentReader::next() {
  if (started_) ++i_;
  started_ = true;
  if (i_ < args_.size() && !options_done_ && args_[i_] == "--") {
    options_done_ = true;
    ++i_;
  }
  return i_ < args_.size();
}

bool ArgumentReader::isOperand() const { return options_done_ || !looksLikeOption(argument()); }

bool ArgumentReader::is(std::string_view name) const {
  return !isOperand() && optionName(argument()) == name;
}

std::string ArgumentReader::value() {
  const std::string& arg = argument();
  const size_t equals = arg.find('=');
  if (equals != std::string::npos) return arg.substr(equals + 1);
  if (i_ + 1 == args_.size()) throw error(arg + " needs a value");
  return args_[++i_];
}

void ArgumentReader::checkFlag() const {
  if (argument().find('=') != std::string::npos) {
    throw error(std::string(optionName(argument())) + " takes no value");
  }
}

UsageError ArgumentReader::error(const std::string& message) const {
  return UsageError(message, help_command_);
}

UsageError ArgumentReader::unknown() const {
  if (isOperand()) return error("unexpected argument '" + argument() + "'");
  return error("unknown option '" + argument() + "'");
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

double parseNumber(const std::string& option, const std::string& text, double minimum,
                   double maximum, const std::string& help_command) {
  const std::vector<double> values = parseNumberList(option, text, help_command);
  if (values.size() != 1 || values[0] < minimum || values[0] > maximum) {
    std::ostringstream range;
    range << option << ": '" << text << "' is not a number in [" << minimum << ", " << maximum
          << "]";
    throw UsageError(range.str(), help_command);
  }
  return values[0];
}

int parseWhole(const std::string& option, const std::string& text, int minimum, int maximum,
               const std::string& help_command) {
  const double value = parseNumber(option, text, minimum, maximum, help_command);
  if (value != std::floor(value)) throw UsageError(option + " must be whole", help_command);
  return static_cast<int>(value);
}

double parsePositive(const std::string& option, const std::string& text,
                     const std::string& help_command) {
  const std::string_view item = trimmed(text);
  double value = 0.0;
  const auto result = std::from_chars(item.data(), item.data() + item.size(), value);
  if (item.empty() || result.ec != std::errc() || result.ptr != item.data() + item.size() ||
      !(value > 0.0) || !std::isfinite(value)) {
    throw UsageError(option + ": '" + text + "' is not a positive number", help_command);
  }
  return value;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) items.push_back(item);
  return items;
}

}  // namespace gcbridge::cli
