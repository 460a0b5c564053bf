// The config loader on input it must refuse with a message, not a crash or
// undefined behaviour: each case was found while fuzzing the config loader
// (fuzz/config_fuzz; the inputs are fuzz/corpus/config/crash-*, docs/hardening.md).
#include <gtest/gtest.h>

#include <string>

#include "common/config.h"
#include "common/error.h"

using relgpu::InputError;
using namespace relgpu::config;

namespace {

const Key<int64_t> kInt{"test.int", 5, "", "a bounded integer", 1, 100};
const Key<int64_t> kAnyInt{"test.any_int", 0, "", "an integer without bounds"};
const Key<double> kReal{"test.real", 0.5, "", "a real"};
const Key<std::string> kStr{"test.str", "", "", "free text"};

std::string error_of(const std::string& json_text) {
  try {
    Config c;
    c.load_json_text(json_text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string set_error(const std::string& assignment) {
  try {
    Config c;
    c.set(assignment);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// A float was converted to int64_t unchecked: undefined behaviour past 2^63.
TEST(ConfigInput, IntegerKeyRefusesFloatsPastInt64) {
  EXPECT_EQ(error_of(R"({"test.int": 1e300})"), "t.json: config key 'test.int' = 1e+300 is out of range [1, 100]");
  EXPECT_EQ(error_of(R"({"test.any_int": -1e19})"),
            "t.json: config key 'test.any_int' = -1e+19 is out of range of a 64-bit integer");
  Config c;
  c.load_json_text(R"({"test.any_int": -9.2e18, "test.int": 7.0})", "t.json");
  EXPECT_EQ(c.get(kAnyInt), -9200000000000000000);
  EXPECT_EQ(c.get(kInt), 7);
}

// An unsigned number past INT64_MAX wrapped to a negative value.
TEST(ConfigInput, IntegerKeyRefusesUnsignedPastInt64) {
  EXPECT_EQ(error_of(R"({"test.any_int": 18446744073709551615})"),
            "t.json: config key 'test.any_int' = 18446744073709551615 is out of range of a 64-bit integer");
  Config c;
  c.load_json_text(R"({"test.any_int": 9223372036854775807})", "t.json");
  EXPECT_EQ(c.get(kAnyInt), INT64_MAX);
}

// nlohmann throws out_of_range, not parse_error, for a number past a double.
TEST(ConfigInput, NumberTooLargeForADoubleIsMalformedJson) {
  EXPECT_EQ(error_of(R"({"test.real": 1e999})"), "t.json: malformed JSON: number overflow parsing '1e999'");
}

// Copying, printing and flattening nested values recursed once per level:
// a deep enough file overflowed the stack.
TEST(ConfigInput, DeepNestingIsRefusedWithLineAndColumn) {
  const int n = 100000;
  std::string arrays = "{\n\"test.int\": " + std::string(n, '[') + std::string(n, ']') + "}";
  EXPECT_EQ(error_of(arrays), "t.json:2:44: objects and arrays nested deeper than 32 levels; a config needs a few");
  std::string objects;
  for (int i = 0; i < n; ++i) objects += "{\"a\":";
  objects += "1" + std::string(n, '}');
  EXPECT_EQ(error_of(objects), "t.json:1:161: objects and arrays nested deeper than 32 levels; a config needs a few");
  // Brackets inside strings do not count.
  EXPECT_EQ(error_of(R"({"test.str": ")" + std::string(100, '[') + R"("})"), "(no error)");
  EXPECT_EQ(set_error("test.int=" + std::string(n, '[') + std::string(n, ']')),
            "--set test.int: the value nests deeper than 32 levels");
  // Nesting as configs use it still loads.
  EXPECT_EQ(error_of(R"({"test": {"int": 3, "real": 2.5}, "_note": [[1], {"x": [2]}]})"), "(no error)");
}

// A --set value is raw text: dump() threw type_error on bytes that are not
// UTF-8, from the message about a wrong type and from the stats.
TEST(ConfigInput, SetValuesThatAreNotUtf8) {
  EXPECT_EQ(set_error("test.str=caf\xe9"), "--set test.str: the value is not UTF-8 text");
  EXPECT_EQ(set_error("test.int=4\xff"),
            "--set test.int: config key 'test.int' must be of type int, got \"4\xEF\xBF\xBD\"");
  Config c;
  c.set("test.str=caf\xC3\xA9");
  EXPECT_EQ(c.get(kStr), "caf\xC3\xA9");
  EXPECT_NO_THROW((void)c.effective().dump());
}
