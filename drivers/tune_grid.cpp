#include "tune_grid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <tuple>

#include "adasketch/error.hpp"
#include "json_writer.hpp"
#include "adasketch/number_text.hpp"

namespace adasketch::driver {

namespace {

double exact_number(const std::string& text) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) throw Error("tune row: bad number '" + text + "'");
  return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = text.find(sep, at);
    parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + 1;
  }
}

bool is_number(const std::string& text) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// %.6g without the exponent's '+' and leading zeros: 1e-05 → 1e-5, 1e+06 → 1e6.
std::string six_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  std::string text = buf;
  const std::size_t e = text.find('e');
  if (e == std::string::npos) return text;
  std::string exponent = text.substr(e + 1);
  const bool negative = exponent[0] == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return text.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

// LO:HI or LO:HI:N (parts are numbers) → the log-spaced values.
std::vector<std::string> log_range(const std::vector<std::string>& parts, const std::string& what) {
  const double lo = exact_number(parts[0]), hi = exact_number(parts[1]);
  if (!(lo > 0.0) || !(hi > lo) || !std::isfinite(hi))
    throw InvalidArgument(what + ": a log range LO:HI[:N] needs 0 < LO < HI");
  const double decades = std::log10(hi / lo);
  index_t n = 0;
  if (parts.size() == 3) {
    const double count = exact_number(parts[2]);
    if (count != std::floor(count) || count < 2 || count > 1000)
      throw InvalidArgument(what + ": N of LO:HI:N must be an integer in [2, 1000], got '" + parts[2] + "'");
    n = static_cast<index_t>(count);
  } else {
    if (std::abs(decades - std::round(decades)) > 1e-9)
      throw InvalidArgument(what + ": LO:HI is every decade, so HI/LO must be a power of 10 (or give LO:HI:N)");
    n = static_cast<index_t>(std::round(decades)) + 1;
  }
  std::vector<std::string> values;
  for (index_t k = 0; k < n; ++k)
    values.push_back(six_digits(std::pow(10.0, std::log10(lo) + decades * static_cast<double>(k) / static_cast<double>(n - 1))));
  return values;
}

double rate(index_t part, index_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A number for the CSV: shortest round trip, empty when not finite (no value).
std::string csv_number(double v) { return std::isfinite(v) ? number_text(v) : std::string(); }

}  // namespace

VariedOption parse_vary(const std::string& text) {
  const std::string what = "option --vary " + text;
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InvalidArgument(what + ": expected NAME=LIST (LIST: v1,v2,... or LO:HI or LO:HI:N)");
  VariedOption v;
  v.name = text.substr(0, eq);
  if (v.name.starts_with("--")) v.name.erase(0, 2);
  const std::string list = text.substr(eq + 1);
  const std::vector<std::string> parts = split(list, ':');
  const bool range = list.find(',') == std::string::npos && (parts.size() == 2 || parts.size() == 3) &&
                     std::all_of(parts.begin(), parts.end(), is_number);
  v.values = range ? log_range(parts, what) : split(list, ',');
  for (const std::string& value : v.values)
    if (value.empty()) throw InvalidArgument(what + ": empty value in the list");
  return v;
}

Grid::Grid(std::vector<VariedOption> varied) : varied_(std::move(varied)) {
  for (const VariedOption& v : varied_) {
    size_ *= static_cast<index_t>(v.values.size());
    if (size_ > 1000000) throw InvalidArgument("option --vary: more than 10⁶ configurations");
  }
}

std::vector<std::string> Grid::values(index_t i) const {
  std::vector<std::string> out(varied_.size());
  for (std::size_t k = varied_.size(); k-- > 0;) {
    const auto n = static_cast<index_t>(varied_[k].values.size());
    out[k] = varied_[k].values[static_cast<std::size_t>(i % n)];
    i /= n;
  }
  return out;
}

std::string Grid::describe(index_t i) const {
  const std::vector<std::string> v = values(i);
  std::string text;
  for (std::size_t k = 0; k < v.size(); ++k) text += (k ? " " : "") + varied_[k].name + "=" + v[k];
  return text;
}

std::string row_line(const TuneRow& r) {
  std::string line = number_text(r.index) + (r.failed ? " failed " : " ok ") + number_text(r.examples) + " " +
                     (r.classified ? "1 " : "0 ") + number_text(r.mistakes) + " " + number_text(r.cumulative_loss) + " " +
                     (r.tested ? "1 " : "0 ") + number_text(r.test_accuracy) + " " + number_text(r.test_mean_loss) + " " +
                     number_text(r.seconds) + " " + r.message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  return line;
}

TuneRow row_from_line(const std::string& line) {
  std::istringstream in(line);
  TuneRow r;
  std::string status, loss, accuracy, test_loss, seconds;
  int classified = 0, tested = 0;
  if (!(in >> r.index >> status >> r.examples >> classified >> r.mistakes >> loss >> tested >> accuracy >> test_loss >>
        seconds) ||
      (status != "ok" && status != "failed"))
    throw Error("tune row: cannot read '" + line + "'");
  r.failed = status == "failed";
  r.classified = classified != 0;
  r.tested = tested != 0;
  r.cumulative_loss = exact_number(loss);
  r.test_accuracy = exact_number(accuracy);
  r.test_mean_loss = exact_number(test_loss);
  r.seconds = exact_number(seconds);
  std::getline(in >> std::ws, r.message);
  return r;
}

Selection parse_selection(const std::string& text) {
  if (text == "online") return Selection::online;
  if (text == "test") return Selection::test;
  throw InvalidArgument("option --select: expected online or test, got '" + text + "'");
}

const char* to_string(Selection s) { return s == Selection::online ? "online" : "test"; }

std::optional<std::size_t> best_row(const std::vector<TuneRow>& rows, Selection select) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto finite_or_inf = [](double v) { return std::isfinite(v) ? v : inf; };
  std::optional<std::size_t> best;
  std::tuple<double, double> best_key{inf, inf};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const TuneRow& r = rows[k];
    if (r.failed) continue;
    std::tuple<double, double> key;
    if (select == Selection::online)
      key = {r.classified ? static_cast<double>(r.mistakes) : 0.0, finite_or_inf(r.cumulative_loss)};
    else
      key = {std::isfinite(r.test_accuracy) ? -r.test_accuracy : 0.0, finite_or_inf(r.test_mean_loss)};
    if (!best || key < best_key) best = k, best_key = key;
  }
  return best;
}

std::string tune_csv(const Grid& grid, const std::vector<TuneRow>& rows, std::optional<std::size_t> best) {
  std::string csv = "index";
  const auto field = [&](const std::string& text) {
    csv += ',';
    csv += text;
  };
  for (const VariedOption& v : grid.varied()) field(csv_field(v.name));
  csv += ",status,online_mistakes,mistake_rate,cumulative_loss,mean_loss,test_accuracy,test_mean_loss,seconds,best\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const TuneRow& r = rows[k];
    const bool have = !r.failed;
    csv += number_text(r.index);
    for (const std::string& value : grid.values(r.index)) field(csv_field(value));
    field(r.failed ? "failed" : "ok");
    field(have && r.classified ? number_text(r.mistakes) : "");
    field(have && r.classified ? csv_number(rate(r.mistakes, r.examples)) : "");
    field(have ? csv_number(r.cumulative_loss) : "");
    field(have && r.examples > 0 ? csv_number(r.cumulative_loss / static_cast<double>(r.examples)) : "");
    field(have && r.tested ? csv_number(r.test_accuracy) : "");
    field(have && r.tested ? csv_number(r.test_mean_loss) : "");
    field(csv_number(r.seconds));
    field(best == k ? "1\n" : "0\n");
  }
  return csv;
}

std::string row_summary(const Grid& grid, const TuneRow& r) {
  char buf[256];
  std::string text = "  [" + number_text(r.index + 1) + "/" + number_text(grid.size()) + "] " + grid.describe(r.index) + ": ";
  if (r.failed) return text + "failed: " + r.message;
  if (r.classified) {
    std::snprintf(buf, sizeof buf, "mistakes %lld (rate %.6g), ", static_cast<long long>(r.mistakes), rate(r.mistakes, r.examples));
    text += buf;
  }
  std::snprintf(buf, sizeof buf, "cumulative loss %.6g", r.cumulative_loss);
  text += buf;
  if (r.tested) {
    if (std::isfinite(r.test_accuracy)) std::snprintf(buf, sizeof buf, ", test accuracy %.6g", r.test_accuracy), text += buf;
    std::snprintf(buf, sizeof buf, ", test mean loss %.6g", r.test_mean_loss);
    text += buf;
  }
  std::snprintf(buf, sizeof buf, ", %.3g s", r.seconds);
  return text + buf;
}

namespace {

void write_row(JsonWriter& j, const Grid& grid, const TuneRow& r) {
  j.begin_object();
  j.member("index", r.index);
  j.key("options");
  j.begin_object();
  const std::vector<std::string> values = grid.values(r.index);
  for (std::size_t k = 0; k < values.size(); ++k) j.member(grid.varied()[k].name, values[k]);
  j.end_object();
  j.member("status", r.failed ? "failed" : "ok");
  j.key("message");
  r.failed ? j.value(r.message) : j.null();
  j.member("examples", r.examples);
  j.key("online_mistakes");
  !r.failed && r.classified ? j.value(r.mistakes) : j.null();
  j.key("mistake_rate");
  !r.failed && r.classified ? j.value(rate(r.mistakes, r.examples)) : j.null();
  j.key("cumulative_loss");
  !r.failed ? j.value(r.cumulative_loss) : j.null();
  j.key("test_accuracy");
  !r.failed && r.tested ? j.value(r.test_accuracy) : j.null();  // NaN (null) for regression
  j.key("test_mean_loss");
  !r.failed && r.tested ? j.value(r.test_mean_loss) : j.null();
  j.member("seconds", r.seconds);
  j.end_object();
}

}  // namespace

void write_tune_json(JsonWriter& j, const std::vector<std::string>& train_args, const Grid& grid,
                     const std::vector<TuneRow>& rows, std::optional<std::size_t> best) {
  j.key("train_options");
  j.begin_array();
  for (const std::string& a : train_args) j.value(a);
  j.end_array();
  j.key("grid");
  j.begin_array();
  for (const VariedOption& v : grid.varied()) {
    j.begin_object();
    j.member("name", v.name);
    j.key("values");
    j.begin_array();
    for (const std::string& value : v.values) j.value(value);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.member("configurations", grid.size());
  j.key("rows");
  j.begin_array();
  for (const TuneRow& r : rows) write_row(j, grid, r);
  j.end_array();
  j.key("best");
  if (best)
    write_row(j, grid, rows[*best]);
  else
    j.null();
}

}  // namespace adasketch::driver
