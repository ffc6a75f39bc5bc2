#pragma once
/// @file
/// An enum's names in one table: the name of an enumerator, the enumerator of a name, and the
/// list of names an error message offers. Every enum gcbridge names (joint types, ball
/// parametrizations, velocity methods, controllers, compare's engines and scenarios, ...) keeps
/// its table next to its toString.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gcbridge::detail {

/// One name of one enumerator.
template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

/// A table of names. An enumerator may have several names: the first is the one printed, the
/// others are accepted aliases (URDF's "continuous" for a revolute joint).
template <typename Enum, std::size_t N>
class EnumNames {
 public:
  constexpr explicit EnumNames(const std::array<EnumName<Enum>, N>& entries) : entries_(entries) {}

  /// The first name of `value`, or `unknown` for a value the table does not hold.
  constexpr const char* name(Enum value, const char* unknown = "unknown") const {
    for (const EnumName<Enum>& entry : entries_) {
      if (entry.value == value) return entry.name;
    }
    return unknown;
  }

  /// The enumerator named `name` (exact, case-sensitive match), or nothing.
  constexpr std::optional<Enum> find(std::string_view name) const {
    for (const EnumName<Enum>& entry : entries_) {
      if (name == entry.name) return entry.value;
    }
    return std::nullopt;
  }

  /// Every name in table order, separated by `separator` ("a, b, c"), the last two by
  /// `last_separator` when given ("a, b or c").
  std::string list(const char* separator = ", ", const char* last_separator = nullptr) const {
    std::string names;
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) names += i + 1 == N && last_separator ? last_separator : separator;
      names += entries_[i].name;
    }
    return names;
  }

 private:
  std::array<EnumName<Enum>, N> entries_;
};

/// The table of `entries`: `enumNames<JointType>({{{JointType::Fixed, "fixed"}, ...}})`.
template <typename Enum, std::size_t N>
constexpr EnumNames<Enum, N> enumNames(const EnumName<Enum> (&entries)[N]) {
  std::array<EnumName<Enum>, N> table{};
  for (std::size_t i = 0; i < N; ++i) table[i] = entries[i];
  return EnumNames<Enum, N>(table);
}

}  // namespace gcbridge::detail
