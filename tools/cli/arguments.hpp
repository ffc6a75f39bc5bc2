#pragma once
/// @file
/// The command-line reading every gcbridge program shares (the `gcbridge` commands and the
/// demos): one usage error, one argument reader, and numbers read from option values.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gcbridge::cli {

/// A command-line mistake: the program reports it with a pointer to its help and exits with 2.
class UsageError : public std::runtime_error {
 public:
  /// `help_command` is what the user runs for help ("gcbridge info --help"); "" for "--help".
  explicit UsageError(const std::string& message, std::string help_command = "");
  const std::string& helpCommand() const { return help_command_; }

 private:
  std::string help_command_;
};

/// A command line read one argument at a time. Options are `--name`, `--name VALUE` or
/// `--name=VALUE` (and `-h`); `--` makes every later argument an operand; any other argument
/// (a file) is an operand. An option's value may start with a dash (`--q -0.5,1`).
class ArgumentReader {
 public:
  /// The arguments after the program (and command) name. Usage errors point to `help_command`.
  ArgumentReader(std::vector<std::string> args, std::string help_command);
  /// argv[1] to argv[argc - 1].
  ArgumentReader(int argc, char** argv, std::string help_command);

  /// Moves to the next argument (past a `--`). @return false after the last one.
  bool next();
  /// Whether the current argument is an operand rather than an option.
  bool isOperand() const;
  /// The current argument as given.
  const std::string& argument() const { return args_[i_]; }
  /// Whether the current argument is the option `name`, alone or as `name=VALUE`.
  bool is(std::string_view name) const;
  /// The current option's value: the text after '=' or the next argument (consumed).
  /// @throws UsageError "NAME needs a value" when there is none.
  std::string value();
  /// @throws UsageError if the current option, a flag, was given a value (`--flag=VALUE`).
  void checkFlag() const;

  /// A UsageError with `message`, pointing to this command line's help.
  UsageError error(const std::string& message) const;
  /// "unknown option '--x'" for an option, "unexpected argument 'x'" for an operand.
  UsageError unknown() const;
  const std::string& helpCommand() const { return help_command_; }

 private:
  std::vector<std::string> args_;
  std::string help_command_;
  size_t i_ = 0;
  bool started_ = false;
  bool options_done_ = false;
};

/// "0.1,-2, 3e-3" as numbers; an empty or blank text is the empty list (for nq or nv = 0).
/// @throws UsageError (pointing to `help_command`) naming `option` and the entry for an empty
///   entry, a non-number, or a number that is NaN, infinite or out of the range of double.
std::vector<double> parseNumberList(const std::string& option, const std::string& text,
                                    const std::string& help_command);

/// `text` as one finite number in [minimum, maximum].
/// @throws UsageError "OPTION: 'TEXT' is not a number in [MIN, MAX]".
double parseNumber(const std::string& option, const std::string& text, double minimum,
                   double maximum, const std::string& help_command);

/// `text` as a whole number in [minimum, maximum].
/// @throws UsageError naming the option for a number out of range or with a fraction.
int parseWhole(const std::string& option, const std::string& text, int minimum, int maximum,
               const std::string& help_command);

/// `text` as a finite number > 0. @throws UsageError "OPTION: 'TEXT' is not a positive number".
double parsePositive(const std::string& option, const std::string& text,
                     const std::string& help_command);

/// The items of a comma-separated list ("a,b" -> {"a", "b"}; "" -> {}).
std::vector<std::string> splitList(const std::string& text);

}  // namespace gcbridge::cli
