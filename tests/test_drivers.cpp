// Unit tests of the drivers' shared pieces: JSON writer, option parser, collective errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/version.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "hyperparameter_options.hpp"
#include "json_writer.hpp"
#include "test_support.hpp"
#include "tune_grid.hpp"

using namespace adasketch;
using namespace adasketch::driver;

TEST(JsonWriter, EscapesStrings) {
  EXPECT_EQ(JsonWriter::quote("plain"), "\"plain\"");
  EXPECT_EQ(JsonWriter::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonWriter::quote("tab\tnl\ncr\r"), "\"tab\\tnl\\ncr\\r\"");
  EXPECT_EQ(JsonWriter::quote(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
  EXPECT_EQ(JsonWriter::quote("\x01\x1f\x7f"), "\"\\u0001\\u001f\x7f\"");  // DEL needs no escape in JSON
  EXPECT_EQ(JsonWriter::quote("ℓ = α"), "\"ℓ = α\"");                   // valid UTF-8 passes through
  EXPECT_EQ(JsonWriter::quote("caf\xe9.svm"), "\"caf\xef\xbf\xbd.svm\"");     // Latin-1 byte: U+FFFD
  EXPECT_EQ(JsonWriter::quote("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // a UTF-16 surrogate
  EXPECT_EQ(JsonWriter::quote("\xe2\x82"), "\"\xef\xbf\xbd\"");        // truncated sequence
}

TEST(JsonWriter, NumbersRoundTripAndNonFiniteIsNull) {
  for (double v : {0.1, 1.0 / 3.0, -2.5e-300, 1e300, 123456789.123456789, -0.0,
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max()}) {
    const std::string text = JsonWriter::number(v);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
  }
  // The shortest text that reads back exactly, not %.17g's.
  EXPECT_EQ(JsonWriter::number(0.1), "0.1");
  EXPECT_EQ(JsonWriter::number(1e-7), "1e-07");
  EXPECT_EQ(JsonWriter::number(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(JsonWriter::number(106720.0), "106720");
  EXPECT_EQ(JsonWriter::number(-0.0), "-0.0");
  EXPECT_EQ(JsonWriter::number(std::nan("")), "null");
  EXPECT_EQ(JsonWriter::number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(JsonWriter::number(-std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonWriter, WritesNestedDocument) {
  JsonWriter j;
  j.begin_object();
  j.member("name", "x");
  j.member("n", std::int64_t{-3});
  j.member("u", std::uint64_t{18446744073709551615ull});
  j.member("ok", true);
  j.member("bad", std::nan(""));
  j.key("list");
  j.begin_array();
  j.value(1);
  j.value(2.5);
  j.null();
  j.end_array();
  j.key("empty");
  j.begin_object();
  j.end_object();
  j.end_object();
  EXPECT_EQ(j.str(),
            "{\n  \"name\": \"x\",\n  \"n\": -3,\n  \"u\": 18446744073709551615,\n  \"ok\": true,\n"
            "  \"bad\": null,\n  \"list\": [\n    1,\n    2.5,\n    null\n  ],\n  \"empty\": {}\n}\n");
  JsonWriter bad;
  bad.begin_object();
  EXPECT_THROW(bad.value(1), Error);  // member without a key
  bad.key("z");
  bad.value(1);
  EXPECT_THROW(bad.key("z"), Error);  // a member named twice
  bad.key("a");
  bad.value(2);
  bad.end_object();
  EXPECT_EQ(bad.str(), "{\n  \"z\": 1,\n  \"a\": 2\n}\n");  // written order, not sorted
}

namespace {
OptionParser parser() {
  OptionParser p("prog cmd", "[options]", "Test.");
  p.required("name", OptionType::String, "NAME", "a name");
  p.optional("count", OptionType::Integer, "N", "10", "a count");
  p.optional("seed", OptionType::Unsigned, "S", "1", "a seed");
  p.optional("rate", OptionType::Real, "R", "0.5", "a rate");
  p.optional("out", "FILE", "an output");
  return p;
}

std::string parse_error(std::vector<std::string> args) {
  OptionParser p = parser();
  try {
    p.parse(args);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(OptionParser, ParsesValuesAndDefaults) {
  OptionParser p = parser();
  p.parse(std::vector<std::string>{"--name", "a b", "--count=-7", "--rate", "2e-3"});
  EXPECT_EQ(p.text("name"), "a b");
  EXPECT_EQ(p.integer("count"), -7);
  EXPECT_EQ(p.unsigned_integer("seed"), 1u);
  EXPECT_DOUBLE_EQ(p.real("rate"), 2e-3);
  EXPECT_TRUE(p.given("count"));
  EXPECT_FALSE(p.given("seed"));
  EXPECT_EQ(p.text("out"), "");
  JsonWriter j;
  j.begin_object();
  p.write_json(j);
  j.end_object();
  EXPECT_EQ(j.str(), "{\n  \"name\": \"a b\",\n  \"count\": -7,\n  \"seed\": 1,\n  \"rate\": 0.002,\n  \"out\": null\n}\n");
}

TEST(OptionParser, ErrorsNameTheOption) {
  EXPECT_NE(parse_error({"--name", "x", "--bogus", "1"}).find("--bogus"), std::string::npos);
  EXPECT_NE(parse_error({"--name"}).find("--name requires a value"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--count", "abc"}).find("--count"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--count", "1.5"}).find("--count"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--count", "99999999999999999999"}).find("--count"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--seed", "-1"}).find("--seed"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--rate", "nan"}).find("--rate"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--rate", "1e999"}).find("--rate"), std::string::npos);
  EXPECT_NE(parse_error({"--count", "3"}).find("missing required option --name"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "--name", "y"}).find("--name given more than once"), std::string::npos);
  EXPECT_NE(parse_error({"--name", "x", "stray"}).find("'stray'"), std::string::npos);
  EXPECT_NE(parse_error({"--name="}).find("option --name: expected a non-empty value"), std::string::npos);
  EXPECT_EQ(parse_error({"--name", "x", "--count", "+4"}), "");
}

TEST(OptionParser, NegativeValuesVersionAndConfigFile) {
  OptionParser p = parser();
  p.parse(std::vector<std::string>{"--name", "-", "--count", "-3", "--rate", "-1e-3"});
  EXPECT_EQ(p.text("name"), "-");
  EXPECT_EQ(p.integer("count"), -3);
  EXPECT_DOUBLE_EQ(p.real("rate"), -1e-3);
  OptionParser v = parser();
  v.parse(std::vector<std::string>{"--count", "x", "--version"});
  EXPECT_TRUE(v.version_requested());
  EXPECT_NE(version_line().find(std::string("adasketch ") + ADASKETCH_VERSION_STRING), std::string::npos);

  // A config file per rank (the ranks may share the directory); the command line wins over it.
  const Communicator comm = test::world();
  const std::string path = ::testing::TempDir() + "options." + std::to_string(comm.rank()) + ".toml";
  const auto parse_with = [&](const std::string& text, std::vector<std::string> args) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    EXPECT_NE(f, nullptr);
    EXPECT_GE(std::fputs(text.c_str(), f), 0);
    EXPECT_EQ(std::fclose(f), 0);
    args.insert(args.begin(), {"--config", path});
    OptionParser c = parser();
    c.parse(args);
    return c;
  };
  const OptionParser c = parse_with("name = \"from file\"\ncount = 7\nrate = 0.25\n", {"--rate", "2"});
  EXPECT_EQ(c.text("name"), "from file");
  EXPECT_TRUE(c.given("count"));
  EXPECT_EQ(c.integer("count"), 7);
  EXPECT_DOUBLE_EQ(c.real("rate"), 2.0);
  EXPECT_THROW(parse_with("name = x\ncount = abc\n", {}), InvalidArgument);
  try {
    parse_with("name = x\nbogus = 1\n", {});
    ADD_FAILURE() << "an unknown option in a config file was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option 'bogus'"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(OptionParser, HelpWinsOverErrors) {
  OptionParser p = parser();
  p.parse(std::vector<std::string>{"--bogus", "--help"});
  EXPECT_TRUE(p.help_requested());
  const std::string u = p.usage();
  EXPECT_NE(u.find("usage: prog cmd [options]"), std::string::npos);
  EXPECT_NE(u.find("--count N"), std::string::npos);
  EXPECT_NE(u.find("(default: 10)"), std::string::npos);
  EXPECT_NE(u.find("(required)"), std::string::npos);
}

TEST(CollectiveSection, LocalFailureBecomesEveryRanksError) {
  const Communicator comm = test::world();
  const int last = comm.size() - 1;
  // Fails on the last rank only; every rank must throw its message.
  try {
    collective_section(comm, [&] {
      if (comm.rank() == last) throw InputError("f.svm", 3, "bad on rank " + std::to_string(last));
    });
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument&) {
    ADD_FAILURE() << "an input error must not become a usage error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "f.svm:3: bad on rank " + std::to_string(last));
  }
  // Usage errors stay usage errors; the lowest failing rank's message wins.
  EXPECT_THROW(collective_section(comm, [&] { throw InvalidArgument("rank " + std::to_string(comm.rank())); }),
               InvalidArgument);
  try {
    collective_section(comm, [&] { throw InvalidArgument("rank " + std::to_string(comm.rank())); });
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "rank 0");
  }
  EXPECT_NO_THROW(collective_section(comm, [] {}));
}

TEST(CollectiveErrors, ExitStatusAndOneLineMessage) {
  EXPECT_EQ(exit_status_for(std::make_exception_ptr(InvalidArgument("x"))), kExitUsage);
  EXPECT_EQ(exit_status_for(std::make_exception_ptr(InputError("f", 1, "x"))), kExitFailure);
  EXPECT_EQ(exit_status_for(std::make_exception_ptr(std::runtime_error("x"))), kExitFailure);
  EXPECT_EQ(exit_status_for(std::make_exception_ptr(42)), kExitFailure);
  EXPECT_EQ(one_line_message(std::make_exception_ptr(Error("two\nlines\r\n"))), "two lines");
  EXPECT_EQ(one_line_message(std::make_exception_ptr(42)), "unknown exception");
}

TEST(OptionParser, RepeatableOptionKeepsEveryValueInOrder) {
  OptionParser p("adasketch test", "", "");
  p.repeatable("vary", "NAME=LIST", "varied");
  p.parse(std::vector<std::string>{"--vary", "eta=1,2", "--vary=delta=3"});
  EXPECT_EQ(p.values("vary"), (std::vector<std::string>{"eta=1,2", "delta=3"}));
  EXPECT_TRUE(p.declared("vary"));
  EXPECT_FALSE(p.declared("eta"));
}

TEST(TuneGrid, ListsRangesAndOrder) {
  EXPECT_EQ(parse_vary("eta=1e-4:1e2").values,
            (std::vector<std::string>{"0.0001", "0.001", "0.01", "0.1", "1", "10", "100"}));
  EXPECT_EQ(parse_vary("alpha0=1e-6:1e6:3").values, (std::vector<std::string>{"1e-6", "1", "1e6"}));
  EXPECT_EQ(parse_vary("eta=1:10:3").values, (std::vector<std::string>{"1", "3.16228", "10"}));
  EXPECT_EQ(parse_vary("--algo=ada-diag,ada-fd").name, "algo");
  EXPECT_EQ(parse_vary("data=synthetic:a:b").values, (std::vector<std::string>{"synthetic:a:b"}));
  for (const char* bad : {"eta", "eta=", "=1", "eta=0:1", "eta=1:3e2", "eta=1:10:1", "eta=1,,2"})
    EXPECT_THROW(parse_vary(bad), InvalidArgument) << bad;
  const Grid g({parse_vary("eta=0.1,1"), parse_vary("delta=1,2,3")});
  ASSERT_EQ(g.size(), 6);
  EXPECT_EQ(g.describe(0), "eta=0.1 delta=1");
  EXPECT_EQ(g.describe(2), "eta=0.1 delta=3");
  EXPECT_EQ(g.describe(3), "eta=1 delta=1");
}

TEST(TuneGrid, RowLinesRoundTripAndBestRow) {
  TuneRow a;
  a.index = 4, a.classified = true, a.examples = 10, a.mistakes = 3, a.cumulative_loss = 0.1 + 0.2;
  a.tested = true, a.test_accuracy = 0.8, a.test_mean_loss = 1.0 / 3.0, a.seconds = 2.5;
  const TuneRow b = row_from_line(row_line(a));
  EXPECT_EQ(b.index, 4);
  EXPECT_EQ(b.mistakes, 3);
  EXPECT_EQ(b.cumulative_loss, a.cumulative_loss);
  EXPECT_EQ(b.test_mean_loss, a.test_mean_loss);
  TuneRow failed = a;
  failed.failed = true, failed.mistakes = 0, failed.message = "x: the model diverged";
  EXPECT_EQ(row_from_line(row_line(failed)).message, failed.message);
  TuneRow fewer = a, tie = a;
  fewer.mistakes = 2, fewer.cumulative_loss = 9.0, fewer.test_accuracy = 0.7;
  tie.mistakes = 2, tie.cumulative_loss = 9.0;
  const std::vector<TuneRow> rows{failed, a, fewer, tie};
  EXPECT_EQ(best_row(rows, Selection::online), 2u);  // fewest mistakes; the tie goes to the first
  EXPECT_EQ(best_row(rows, Selection::test), 1u);    // highest test accuracy (a and tie: a first)
  EXPECT_FALSE(best_row({failed}, Selection::online).has_value());
}

namespace {
// A value other than each type's default in the table (and valid for every learner's parser).
double changed(double v) { return v + 0.375; }
index_t changed(index_t) { return 7; }
int changed(int) { return 1; }  // a grid's rows: 1 divides every rank count
std::uint64_t changed(std::uint64_t) { return 123456789012345u; }
bool changed(bool v) { return !v; }
EtaSchedule changed(EtaSchedule) { return EtaSchedule::inv_sqrt_t; }
FormChoice changed(FormChoice) { return FormChoice::sparse; }
ScaleRule changed(ScaleRule) { return ScaleRule::none; }
std::vector<double> changed(const std::vector<double>&) { return {0.5, 0.25}; }

OptionParser hyperparameter_parser() {
  OptionParser p("prog train", "[options]", "Test.");
  add_hyperparameter_options(p);
  return p;
}

std::string hyperparameter_error(std::vector<std::string> args) {
  OptionParser p = hyperparameter_parser();
  try {
    p.parse(args);
    LearnerSpec spec;
    read_hyperparameter_options(p, spec);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(HyperparameterOptions, EveryRowComesBackFromACheckpointAndIsCompared) {
  LearnerSpec saved;
  for_each_hyperparameter([](const HyperparameterInfo&, auto& field) { field = changed(field); }, saved);
  // Each row differs from its default, and spec_differences names each learner row once, in the
  // table's order (the first is the one `train --resume` reports); grid-rows lays out the run.
  std::vector<std::string> fields;
  for (const SpecDifference& d : spec_differences(LearnerSpec{}, saved)) fields.push_back(d.field);
  const std::vector<std::string> expected{"ell",   "eta",     "delta",   "alpha0", "C",            "sigma",    "eta_schedule",
                                          "seed",  "form",    "lambda1", "lambda2", "tau",         "diag_rescale",
                                          "rescale_d1", "oja_gamma", "auto_tune", "auto_examples", "scale", "divergence"};
  EXPECT_EQ(fields, expected);
  EXPECT_NE(saved.grid_rows, LearnerSpec{}.grid_rows);

  // The options of no arguments are the defaults; with the saved spec as defaults they read it back.
  OptionParser plain = hyperparameter_parser();
  plain.parse(std::vector<std::string>{});
  LearnerSpec read;
  read_hyperparameter_options(plain, read);
  EXPECT_TRUE(spec_differences(LearnerSpec{}, read).empty());
  OptionParser resumed = hyperparameter_parser();
  resumed.parse(std::vector<std::string>{});
  default_hyperparameter_options(resumed, saved, 3);
  read_hyperparameter_options(resumed, read);
  EXPECT_TRUE(spec_differences(saved, read).empty());
  EXPECT_EQ(read.grid_rows, saved.grid_rows);
  // A grid that does not divide the rank count is not taken back (it lays out the run).
  saved.grid_rows = 2;
  OptionParser three = hyperparameter_parser();
  three.parse(std::vector<std::string>{});
  default_hyperparameter_options(three, saved, 3);
  read_hyperparameter_options(three, read);
  EXPECT_EQ(read.grid_rows, LearnerSpec{}.grid_rows);

  EXPECT_EQ(option_of_field("eta_schedule"), "eta-schedule");
  EXPECT_EQ(option_of_field("algorithm"), "algo");
  EXPECT_EQ(option_of_field("loss"), "loss");
}

TEST(HyperparameterOptions, ErrorsNameTheOption) {
  EXPECT_EQ(hyperparameter_error({"--ell", "-3"}), "option --ell: must be ≥ 0, got -3");
  EXPECT_EQ(hyperparameter_error({"--grid-rows", "-1"}), "option --grid-rows: must be ≥ 0, got -1");
  EXPECT_EQ(hyperparameter_error({"--grid-rows", "2000000000"}), "option --grid-rows: must be ≤ 1073741824, got 2000000000");
  EXPECT_NE(hyperparameter_error({"--form", "dens"}).find("option --form: unknown form 'dens'"), std::string::npos);
  EXPECT_NE(hyperparameter_error({"--eta-schedule", "x"}).find("option --eta-schedule: unknown eta schedule 'x'"),
            std::string::npos);
  EXPECT_NE(hyperparameter_error({"--oja-gamma", "1,x"}).find("option --oja-gamma"), std::string::npos);
  EXPECT_EQ(hyperparameter_error({"--oja-gamma", "1,0.5", "--diag-rescale", "--seed", "7"}), "");
}
