#include "adasketch/data/synthetic_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {

constexpr std::string_view kPrefix = "synthetic:";
constexpr std::string_view kLowRank = "low-rank-regression";
constexpr std::string_view kIllConditioned = "ill-conditioned";
constexpr std::string_view kSparse = "sparse-classification";

// The key=value items of a spec, read once each by typed getters that check ranges; every problem
// throws InvalidArgument "<what>: synthetic:<generator>: key <k>: ...".
class Items {
 public:
  Items(std::string context, std::string_view list, std::vector<std::string_view> keys)
      : context_(std::move(context)), keys_(std::move(keys)) {
    while (true) {
      const std::size_t comma = list.find(',');
      const std::string_view item = list.substr(0, comma);
      const std::size_t eq = item.find('=');
      if (item.empty()) fail("empty item in the key list (expected key=value[,key=value...])");
      const std::string key(item.substr(0, eq));
      if (std::find(keys_.begin(), keys_.end(), key) == keys_.end()) fail("unknown key '" + key + "' (keys: " + key_list() + ")");
      if (eq == std::string_view::npos || eq + 1 == item.size()) fail("key " + key + ": missing value (expected " + key + "=VALUE)");
      if (std::any_of(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == key; }))
        fail("key " + key + " given more than once");
      items_.emplace_back(key, std::string(item.substr(eq + 1)));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  Items(std::string context, std::vector<std::string_view> keys) : context_(std::move(context)), keys_(std::move(keys)) {}

  bool has(const char* key) const { return find(key) != nullptr; }

  index_t integer(const char* key, index_t fallback, index_t min) const {
    const std::string* text = find(key);
    index_t v = fallback;
    if (text != nullptr && !parse(*text, v)) fail(std::string("key ") + key + ": expected an integer, got '" + *text + "'");
    check(key, v >= min, v, "≥ " + number_text(min));
    return v;
  }
  std::uint64_t unsigned_integer(const char* key, std::uint64_t fallback) const {
    const std::string* text = find(key);
    std::uint64_t v = fallback;
    if (text != nullptr && !parse(*text, v))
      fail(std::string("key ") + key + ": expected a non-negative integer, got '" + *text + "'");
    return v;
  }
  double real(const char* key, double fallback) const {
    const std::string* text = find(key);
    double v = fallback;
    if (text != nullptr && (!parse(*text, v) || !std::isfinite(v)))
      fail(std::string("key ") + key + ": expected a finite number, got '" + *text + "'");
    return v;
  }
  /// Throws "key K: must be CONDITION, got V" unless ok.
  template <class T>
  void check(const char* key, bool ok, T value, const std::string& condition) const {
    if (ok) return;
    fail(std::string("key ") + key + ": must be " + condition + ", got " + number_text(value) +
         (has(key) ? "" : " (the default)"));
  }
  [[noreturn]] void fail(const std::string& problem) const { throw InvalidArgument(context_ + ": " + problem); }

 private:
  const std::string* find(const char* key) const {
    for (const auto& [k, v] : items_)
      if (k == key) return &v;
    return nullptr;
  }
  // Strict: the whole text is the number (a leading '+' allowed).
  template <class T>
  static bool parse(const std::string& text, T& out) {
    const char* first = text.data();
    const char* last = first + text.size();
    if (first != last && *first == '+') ++first;
    const auto [end, ec] = std::from_chars(first, last, out);
    return first != last && ec == std::errc() && end == last;
  }
  std::string key_list() const {
    std::string s;
    for (const std::string_view k : keys_) s += (s.empty() ? "" : ", ") + std::string(k);
    return s;
  }

  std::string context_;
  std::vector<std::string_view> keys_;
  std::vector<std::pair<std::string, std::string>> items_;
};

LowRankRegressionOptions low_rank(const Items& items, index_t default_dim) {
  const LowRankRegressionOptions d;
  LowRankRegressionOptions o;
  o.dim = items.integer("d", default_dim > 0 ? default_dim : d.dim, 1);
  o.examples = items.integer("n", d.examples, 1);
  o.lambda0 = items.real("lambda0", d.lambda0);
  items.check("lambda0", o.lambda0 > 0.0, o.lambda0, "> 0");
  o.decay = items.real("decay", d.decay);
  items.check("decay", o.decay >= 0.0, o.decay, "≥ 0");
  o.mean = items.real("mean", d.mean);
  o.rank = items.integer("rank", d.rank, 0);
  items.check("rank", o.rank <= o.dim, o.rank, "≤ d = " + number_text(o.dim));
  o.seed = items.unsigned_integer("seed", d.seed);
  o.skip = items.integer("skip", d.skip, 0);
  return o;
}

IllConditionedOptions ill_conditioned(const Items& items, index_t default_dim) {
  const IllConditionedOptions d;
  IllConditionedOptions o;
  o.dim = items.integer("d", default_dim > 0 ? default_dim : d.dim, 1);
  o.examples = items.integer("n", d.examples, 1);
  o.condition = items.real("kappa", d.condition);
  items.check("kappa", o.condition >= 1.0, o.condition, "≥ 1");
  o.ill_directions = items.integer("ill", d.ill_directions, 0);
  items.check("ill", o.ill_directions <= o.dim, o.ill_directions, "≤ d = " + number_text(o.dim));
  o.seed = items.unsigned_integer("seed", d.seed);
  o.skip = items.integer("skip", d.skip, 0);
  return o;
}

SparseClassificationOptions sparse_classification(const Items& items, index_t default_dim) {
  const SparseClassificationOptions d;
  SparseClassificationOptions o;
  o.dim = items.integer("d", default_dim > 0 ? default_dim : d.dim, 1);
  o.examples = items.integer("n", d.examples, 1);
  o.nonzeros = items.integer("nnz", std::min(d.nonzeros, o.dim), 1);
  items.check("nnz", o.nonzeros <= o.dim, o.nonzeros, "≤ d = " + number_text(o.dim));
  o.zipf = items.real("zipf", d.zipf);
  items.check("zipf", o.zipf >= 0.0, o.zipf, "≥ 0");
  o.noise = items.real("noise", d.noise);
  items.check("noise", o.noise >= 0.0, o.noise, "≥ 0");
  o.seed = items.unsigned_integer("seed", d.seed);
  o.skip = items.integer("skip", d.skip, 0);
  return o;
}

}  // namespace

index_t SyntheticSpec::dim() const {
  return std::visit([](const auto& o) { return o.dim; }, options);
}

index_t SyntheticSpec::examples() const {
  return std::visit([](const auto& o) { return o.examples; }, options);
}

bool SyntheticSpec::sign_labels() const noexcept { return !std::holds_alternative<LowRankRegressionOptions>(options); }

const char* SyntheticSpec::generator() const noexcept {
  if (std::holds_alternative<SparseClassificationOptions>(options)) return kSparse.data();
  return sign_labels() ? kIllConditioned.data() : kLowRank.data();
}

bool is_synthetic_spec(std::string_view text) noexcept { return text.starts_with(kPrefix); }

SyntheticSpec parse_synthetic_spec(const std::string& text, const std::string& what, index_t default_dim) {
  if (!is_synthetic_spec(text))
    throw InvalidArgument(what + ": '" + text + "' is not a synthetic spec (synthetic:GENERATOR[:key=value,...])");
  std::string_view rest = std::string_view(text).substr(kPrefix.size());
  const std::size_t colon = rest.find(':');
  const std::string_view generator = rest.substr(0, colon);
  const std::string context = what + ": synthetic:" + std::string(generator);
  std::vector<std::string_view> keys;
  if (generator == kLowRank)
    keys = {"d", "n", "lambda0", "decay", "mean", "rank", "seed", "skip"};
  else if (generator == kIllConditioned)
    keys = {"d", "n", "kappa", "ill", "seed", "skip"};
  else if (generator == kSparse)
    keys = {"d", "n", "nnz", "zipf", "noise", "seed", "skip"};
  else
    throw InvalidArgument(what + ": unknown synthetic generator '" + std::string(generator) + "' (expected " +
                          std::string(kLowRank) + ", " + std::string(kIllConditioned) + " or " + std::string(kSparse) + ")");
  const Items items = colon == std::string_view::npos ? Items(context, std::move(keys))
                                                      : Items(context, rest.substr(colon + 1), std::move(keys));
  SyntheticSpec spec;
  spec.dim_given = items.has("d");
  if (generator == kLowRank)
    spec.options = low_rank(items, default_dim);
  else if (generator == kIllConditioned)
    spec.options = ill_conditioned(items, default_dim);
  else
    spec.options = sparse_classification(items, default_dim);
  // The generators' own limit (skip + n ≤ 2^60), reported as a key.
  constexpr index_t kMaxExamples = index_t{1} << 60;
  items.check("n", spec.examples() <= kMaxExamples, spec.examples(), "≤ 2^60");
  const index_t skip = std::visit([](const auto& o) { return o.skip; }, spec.options);
  items.check("skip", skip <= kMaxExamples - spec.examples(), skip, "≤ 2^60 − n");
  return spec;
}

std::unique_ptr<ExampleSource> make_synthetic(const Communicator& comm, const SyntheticSpec& spec) {
  if (const auto* o = std::get_if<LowRankRegressionOptions>(&spec.options)) return make_low_rank_regression(comm, *o);
  if (const auto* o = std::get_if<SparseClassificationOptions>(&spec.options)) return make_sparse_classification(comm, *o);
  return make_ill_conditioned_classification(comm, std::get<IllConditionedOptions>(spec.options));
}

}  // namespace adasketch
