// The argument reader shared by the gcbridge commands and the demos, and the text formats.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "format/json_writer.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"

namespace gcbridge {
namespace {

using cli::ArgumentReader;
using cli::UsageError;

/// What a reader makes of `args`: "-o=value" per option taking a value (--x), "flag" per other
/// option, "@operand" per operand.
std::vector<std::string> readAll(const std::vector<std::string>& args) {
  ArgumentReader reader(args, "prog --help");
  std::vector<std::string> seen;
  while (reader.next()) {
    if (reader.isOperand()) {
      seen.push_back("@" + reader.argument());
    } else if (reader.is("--x")) {
      seen.push_back("--x=" + reader.value());
    } else {
      reader.checkFlag();
      seen.push_back(reader.argument());
    }
  }
  return seen;
}

TEST(ArgumentReader, OptionsValuesAndOperandsInEveryForm) {
  EXPECT_EQ(readAll({"a.urdf", "--x", "1", "--x=2", "--flag", "-h", "--x", "-0.5,1"}),
            (std::vector<std::string>{"@a.urdf", "--x=1", "--x=2", "--flag", "-h", "--x=-0.5,1"}));
  // "--" ends the options: what follows is an operand even if it starts with a dash.
  EXPECT_EQ(readAll({"--flag", "--", "--x", "-"}),
            (std::vector<std::string>{"--flag", "@--x", "@-"}));
  EXPECT_EQ(readAll({"--x="}), (std::vector<std::string>{"--x="}));
  EXPECT_TRUE(readAll({}).empty());
}

TEST(ArgumentReader, MistakesNameTheOptionAndPointToTheHelp) {
  try {
    readAll({"--x"});
    FAIL() << "a missing value must throw";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--x needs a value");
    EXPECT_EQ(e.helpCommand(), "prog --help");
  }
  EXPECT_THROW(readAll({"--flag=1"}), UsageError);
  ArgumentReader reader({"--bogus", "stray"}, "");
  ASSERT_TRUE(reader.next());
  EXPECT_STREQ(reader.unknown().what(), "unknown option '--bogus'");
  ASSERT_TRUE(reader.next());
  EXPECT_STREQ(reader.unknown().what(), "unexpected argument 'stray'");
  EXPECT_FALSE(reader.next());
}

TEST(ArgumentReader, ArgvSkipsTheProgramName) {
  char program[] = "demo";
  char option[] = "--steps";
  char value[] = "20";
  char* argv[] = {program, option, value};
  ArgumentReader reader(3, argv, "");
  ASSERT_TRUE(reader.next());
  EXPECT_TRUE(reader.is("--steps"));
  EXPECT_EQ(reader.value(), "20");
  EXPECT_FALSE(reader.next());
}

TEST(Numbers, ListsRangesAndPositives) {
  EXPECT_EQ(cli::parseNumberList("--q", " 0.5, -2,+3e-3 ", ""),
            (std::vector<double>{0.5, -2.0, 3e-3}));
  EXPECT_TRUE(cli::parseNumberList("--q", "  ", "").empty());
  for (const char* bad : {"1,,2", "1;2", "nan", "inf", "1e999", "+-1", "0x1"}) {
    EXPECT_THROW(cli::parseNumberList("--q", bad, ""), UsageError) << bad;
  }
  EXPECT_EQ(cli::parseNumber("--erp", "0.2", 0.0, 1.0, ""), 0.2);
  EXPECT_THROW(cli::parseNumber("--erp", "1.5", 0.0, 1.0, ""), UsageError);
  EXPECT_EQ(cli::parseWhole("--n", "7", 1, 10, ""), 7);
  EXPECT_THROW(cli::parseWhole("--n", "7.5", 1, 10, ""), UsageError);
  EXPECT_EQ(cli::parsePositive("--dt", "1e-3", ""), 1e-3);
  for (const char* bad : {"0", "-1", "inf", "nope", "", "1s"}) {
    EXPECT_THROW(cli::parsePositive("--dt", bad, ""), UsageError) << bad;
  }
  EXPECT_EQ(cli::splitList("a,b,,c"), (std::vector<std::string>{"a", "b", "", "c"}));
}

TEST(Format, NumbersReadBackOrRound) {
  for (double x : {0.1, 17.5, 1e-6, -2.0 / 3.0, 1e300}) {
    EXPECT_EQ(std::stod(format::exactNumber(x)), x);
    EXPECT_EQ(std::stod(format::csvNumber(x)), x);
  }
  EXPECT_EQ(format::exactNumber(0.1), "0.1");
  EXPECT_EQ(format::roundedNumber(-0.0), "0");
  EXPECT_EQ(format::roundedNumber(2.0 / 3.0, 3), "0.667");
  EXPECT_EQ(format::csvNumber(std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(Format, TableAlignsColumnsAndJsonEscapes) {
  std::ostringstream table;
  format::Table t({"#", "name"}, {true, false});
  t.addRow({"10", "a"});
  t.addRow({"2", "long"});
  t.print(table);
  EXPECT_EQ(table.str(), "   #  name\n  10  a\n   2  long\n");

  std::ostringstream json;
  format::JsonWriter w(json);
  w.beginObject();
  w.key("s");
  w.value("q\"\\\n\x01\xff");
  w.key("x");
  w.beginArray(true);
  w.value(1.5);
  w.value(std::numeric_limits<double>::infinity());
  w.endArray();
  w.endObject();
  EXPECT_EQ(json.str(), "{\n  \"s\": \"q\\\"\\\\\\n\\u0001\\ufffd\",\n  \"x\": [1.5, null]\n}\n");
}

}  // namespace
}  // namespace gcbridge
