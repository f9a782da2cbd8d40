#include "adasketch/io/state_fields.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "../enum_names.hpp"
#include "adasketch/error.hpp"

namespace adasketch {

StateFields::Field& StateFields::add(const std::string& given, Kind kind) {
  const std::string name = prefix_ + given;
  ADASKETCH_REQUIRE(!name.empty() && name.size() < 32, "name = '" + name + "'");
  ADASKETCH_REQUIRE(std::all_of(name.begin(), name.end(), [](char c) { return c > 0x20 && c < 0x7f; }),
                    "name = '" + name + "'");
  ADASKETCH_REQUIRE(std::none_of(fields_.begin(), fields_.end(), [&](const Field& f) { return f.name == name; }),
                    "name = '" + name + "' is listed twice");
  Field& f = fields_.emplace_back();
  f.name = name;
  f.kind = kind;
  return f;
}

void StateFields::integer(const std::string& name, std::int64_t& value, std::int64_t min, std::int64_t max) {
  ADASKETCH_REQUIRE(min <= value && value <= max, "field '" + name + "' = " + number_text(value) + " outside [" +
                                                      number_text(min) + ", " + number_text(max) + "]");
  Field& f = add(name, Kind::integer);
  f.integer = &value;
  f.min = min;
  f.max = max;
}

void StateFields::flag(const std::string& name, bool& value) { add(name, Kind::flag).flag = &value; }

void StateFields::real(const std::string& name, double& value) {
  add(name, Kind::real).values = std::span<double>(&value, 1);
}

void StateFields::array(const std::string& name, std::span<double> values) {
  Field& f = add(name, Kind::array);
  f.items = static_cast<index_t>(values.size());
  f.values = values;
}

void StateFields::block(const std::string& name, const BlockPartition& partition, int rank, index_t width,
                        std::span<double> local) {
  ADASKETCH_REQUIRE(width >= 1, "width = " + number_text(width));
  ADASKETCH_REQUIRE(rank >= 0 && rank < partition.parts(), "rank = " + number_text(rank));
  ADASKETCH_REQUIRE(static_cast<index_t>(local.size()) == partition.size(rank) * width,
                    "field '" + name + "': local.size() = " + number_text(local.size()) + ", expected " +
                        number_text(partition.size(rank) * width));
  Field& f = add(name, Kind::block);
  f.items = partition.dim();
  f.width = width;
  f.first = partition.begin(rank);
  f.values = local;
}

std::span<double> StateFields::staged_block(const std::string& name, const BlockPartition& partition, int rank,
                                            index_t width) {
  ADASKETCH_REQUIRE(width >= 1, "width = " + number_text(width));
  ADASKETCH_REQUIRE(rank >= 0 && rank < partition.parts(), "rank = " + number_text(rank));
  auto storage = std::make_shared<std::vector<double>>(static_cast<std::size_t>(partition.size(rank) * width), 0.0);
  block(name, partition, rank, width, *storage);
  staged_.push_back(std::move(storage));
  return fields_.back().values;
}

const StateFields::Field& StateFields::field(const std::string& given) const {
  const std::string name = prefix_ + given;
  const auto it = std::find_if(fields_.begin(), fields_.end(), [&](const Field& f) { return f.name == name; });
  ADASKETCH_REQUIRE(it != fields_.end(), "no field '" + name + "' is listed");
  return *it;
}

std::string to_string(StateFields::Kind kind) {
  using Kind = StateFields::Kind;
  static constexpr detail::EnumNames<Kind, 5> kNames{{{Kind::integer, "integer"},
                                                      {Kind::flag, "flag"},
                                                      {Kind::real, "real"},
                                                      {Kind::array, "array"},
                                                      {Kind::block, "block"}}};
  return detail::name_of(kNames, kind);
}

}  // namespace adasketch
