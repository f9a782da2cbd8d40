#include "adasketch/io/checkpoint.hpp"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "adasketch/error.hpp"
#include "checkpoint_format.hpp"
#include "checkpoint_interrupted.hpp"
#include "collective_file.hpp"

namespace adasketch {

// The learner's checkpoint hooks (Learner::before_state_save, after_state_load).
struct detail::CheckpointAccess {
  static void before_save(Learner& learner, StateFields& fields) { learner.before_state_save(fields); }
  static void after_load(Learner& learner, StateFields& fields) { learner.after_state_load(fields); }
  static void prepare_load(Learner& learner, const Learner::SavedField<std::int64_t>& saved_integer,
                           const Learner::SavedField<double>& saved_real) {
    learner.restore_data_scale(saved_real);
    learner.prepare_state_load(saved_integer, saved_real);
  }
};

namespace {

using detail::FieldEntry;
using Field = StateFields::Field;
using Kind = StateFields::Kind;

bool replicated(const Field& f) { return f.kind != Kind::block; }

// The replicated fields as 8-byte words, in list order (what rank 0 writes after the table).
std::vector<std::uint64_t> pack(const std::vector<Field>& fields) {
  std::vector<std::uint64_t> words;
  for (const Field& f : fields) switch (f.kind) {
      case Kind::integer: words.push_back(static_cast<std::uint64_t>(*f.integer)); break;
      case Kind::flag: words.push_back(*f.flag ? 1u : 0u); break;
      case Kind::real:
      case Kind::array:
        for (double v : f.values) words.push_back(std::bit_cast<std::uint64_t>(v));
        break;
      case Kind::block: break;
    }
  return words;
}

// A block field's checksum is the sum of its ranks' parts (checksum_part is additive over offsets).
void sum_over_ranks(const Communicator& comm, std::vector<std::uint64_t>& block_sums) {
  if (!block_sums.empty())
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, block_sums.data(), static_cast<int>(block_sums.size()), MPI_UINT64_T, MPI_SUM,
                            comm.get()),
              "MPI_Allreduce(sum)");
}

// Each field's checksum: replicated ones from `words`, blocks summed over the ranks (one Allreduce).
void set_checksums(const Communicator& comm, const std::vector<Field>& fields, const std::vector<std::uint64_t>& words,
                   std::vector<FieldEntry>& entries) {
  std::vector<std::uint64_t> block_sums;
  std::size_t at = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (replicated(f)) {
      const auto n = static_cast<std::size_t>(f.items);
      entries[i].checksum = detail::checksum_part(std::span<const std::uint64_t>(words).subspan(at, n), 0);
      at += n;
    } else {
      block_sums.push_back(detail::checksum_part(f.values, static_cast<std::uint64_t>(f.first * f.width)));
    }
  }
  sum_over_ranks(comm, block_sums);
  std::size_t b = 0;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (!replicated(fields[i])) entries[i].checksum = block_sums[b++];
}

std::size_t replicated_words(const std::vector<Field>& fields) {
  std::size_t n = 0;
  for (const Field& f : fields)
    if (replicated(f)) n += static_cast<std::size_t>(f.items);
  return n;
}

std::uint64_t replicated_offset(const std::vector<Field>& fields, const std::vector<FieldEntry>& entries) {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (replicated(fields[i])) return entries[i].offset;
  return 0;
}

// The header and table of an open checkpoint, validated (the table only when asked).
struct Front {
  detail::DecodedHeader decoded;
  std::vector<FieldEntry> table;
};

Front read_front(const detail::CollectiveFile& file, const std::string& path, bool with_table) {
  const auto size = static_cast<std::uint64_t>(file.size());
  std::vector<unsigned char> h(detail::kCheckpointHeaderBytes, 0);
  const auto have = static_cast<std::size_t>(std::min<std::uint64_t>(size, h.size()));
  file.read_bytes(0, h.data(), have);
  if (have < sizeof detail::kCheckpointMagic ||
      !std::equal(h.begin(), h.begin() + sizeof detail::kCheckpointMagic, detail::kCheckpointMagic))
    throw InputError(path, 0, "not an adasketch checkpoint file (magic \"ADSKCKPT\" missing)");
  if (have < h.size())
    throw InputError(path, 0, "truncated checkpoint file: " + number_text(size) + " bytes, shorter than the 512-byte header");
  Front front;
  front.decoded = detail::decode_header(h.data(), path, size);
  std::vector<unsigned char> block(static_cast<std::size_t>(front.decoded.block));
  file.read_bytes(static_cast<MPI_Offset>(h.size()), block.data(), block.size());
  detail::decode_spec_block(block.data(), front.decoded, path);
  CheckpointHeader& header = front.decoded.header;
  if (front.decoded.compact) header.run.original_dim = header.dim - (header.run.bias > 0.0 ? 1 : 0);
  if (with_table) {
    std::vector<unsigned char> table(detail::kCheckpointEntryBytes * front.decoded.fields);
    file.read_bytes(static_cast<MPI_Offset>(h.size() + front.decoded.block), table.data(), table.size());
    front.table = detail::decode_table(table.data(), front.decoded, path);
  }
  return front;
}

// The learner must be the one the file describes.
void require_same_learner(const CheckpointHeader& header, const Learner& learner, const std::string& path) {
  std::string what;
  if (const auto diffs = spec_differences(header.spec, learner.spec()); !diffs.empty())
    what = diffs.front().field + " = " + diffs.front().saved + " in the checkpoint, " + diffs.front().given + " here";
  else if (header.run.original_dim == 0 && header.dim != learner.partition().dim())  // compact: the fields' sizes tell
    what = "d = " + number_text(header.dim) + " in the checkpoint, " + number_text(learner.partition().dim()) + " here";
  else if (header.classes != learner.outputs())
    what = "K = " + number_text(header.classes) + " in the checkpoint, " + number_text(learner.outputs()) + " here";
  if (!what.empty())
    throw InputError(path, 0, "the checkpoint of " + detail::describe(header) + " does not fit the learner " +
                                  learner.name() + ": " + what);
}

// The file's table must list exactly the learner's fields.
void require_same_fields(const std::vector<FieldEntry>& table, const std::vector<FieldEntry>& mine,
                         const CheckpointHeader& header, const std::string& path) {
  const auto shape = [](const FieldEntry& e) {
    return "'" + e.name + "' (" + to_string(static_cast<Kind>(e.kind)) + ", " + number_text(e.items) + " × " +
           number_text(e.width) + ")";
  };
  const std::string prefix = "the checkpoint of " + detail::describe(header) + " does not fit this learner: ";
  if (table.size() != mine.size())
    throw InputError(path, 0, prefix + number_text(table.size()) + " state fields, the learner has " + number_text(mine.size()));
  for (std::size_t i = 0; i < table.size(); ++i) {
    const FieldEntry &a = table[i], &b = mine[i];
    if (a.name != b.name || a.kind != b.kind || a.items != b.items || a.width != b.width)
      throw InputError(path, 0, prefix + "field " + number_text(i) + " is " + shape(a) + ", the learner's is " + shape(b));
    if (a.offset != b.offset) throw InputError(path, 0, "corrupt checkpoint file: field '" + a.name + "' at a wrong offset");
  }
}

}  // namespace

void save_checkpoint(const std::string& path, Learner& learner, const CheckpointRun& run) {
  detail::save_checkpoint_interrupted(path, learner, run, {});
}

void save_checkpoint(const std::string& path, Learner& learner) {
  CheckpointRun run{LabelMap::of_loss(learner.loss()), {}, 1, "", 0, 0.0};
  run.state.position = run.state.examples = learner.steps();
  save_checkpoint(path, learner, run);
}

void detail::save_checkpoint_interrupted(const std::string& path, Learner& learner, const CheckpointRun& run,
                                         const std::function<void()>& before_rename) {
  const Communicator& comm = learner.comm();
  StateFields state;
  learner.state_fields(state);
  detail::CheckpointAccess::before_save(learner, state);
  const std::vector<Field>& fields = state.fields();
  const std::size_t block = detail::spec_block_bytes(learner.spec(), run);
  std::vector<FieldEntry> entries = detail::layout(fields, block);
  const std::vector<std::uint64_t> words = pack(fields);
  set_checksums(comm, fields, words, entries);
  CheckpointHeader header;
  header.spec = learner.spec();
  header.dim = run.original_dim > 0 ? run.original_dim + (run.bias > 0.0 ? 1 : 0) : learner.partition().dim();
  header.classes = learner.outputs();
  header.ranks = comm.size();
  header.run = run;
  // Header, table and the replicated fields are contiguous: rank 0 writes them at once.
  std::vector<unsigned char> front = detail::encode_front(header, entries);
  const auto* packed = reinterpret_cast<const unsigned char*>(words.data());
  front.insert(front.end(), packed, packed + 8 * words.size());

  const std::string tmp = path + ".tmp";
  {
    detail::CollectiveFile file(comm, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, false, "the checkpoint");
    file.set_size(static_cast<MPI_Offset>(detail::file_size(entries, block)));  // drops an older, longer FILE.tmp
    file.write_bytes_root(0, front.data(), front.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      if (replicated(f)) continue;
      file.write(static_cast<MPI_Offset>(entries[i].offset + 8 * static_cast<std::uint64_t>(f.first * f.width)),
                 f.values.data(), static_cast<std::int64_t>(f.values.size()));
    }
    file.sync();
    file.close();  // collective and agreed: every rank's data is in the file
  }
  if (before_rename) before_rename();
  detail::replace_file(comm, tmp, path, "the checkpoint");
}

CheckpointHeader read_checkpoint_header(const Communicator& comm, const std::string& path) {
  detail::CollectiveFile file(comm, path, MPI_MODE_RDONLY, true, "the checkpoint");
  CheckpointHeader header = read_front(file, path, false).decoded.header;
  file.close();
  return header;
}

CheckpointHeader load_checkpoint(const std::string& path, Learner& learner) {
  const Communicator& comm = learner.comm();
  detail::CollectiveFile file(comm, path, MPI_MODE_RDONLY, true, "the checkpoint");
  const Front front = read_front(file, path, true);
  const CheckpointHeader& header = front.decoded.header;
  require_same_learner(header, learner, path);
  // A replicated scalar field read ahead of the others, by name and kind.
  const auto saved_word = [&](const std::string& name, Kind kind, const char* what) {
    const auto entry = std::find_if(front.table.begin(), front.table.end(), [&](const FieldEntry& e) { return e.name == name; });
    if (entry == front.table.end() || entry->kind != static_cast<std::uint64_t>(kind))
      throw InputError(path, 0, std::string("the checkpoint has no ") + what + " field '" + name + "'");
    std::uint64_t word = 0;
    file.read_bytes(static_cast<MPI_Offset>(entry->offset), reinterpret_cast<unsigned char*>(&word), 8);
    if (detail::checksum_part(std::span<const std::uint64_t>(&word, 1), 0) != entry->checksum)
      throw InputError(path, 0, "corrupt checkpoint file: checksum mismatch in field '" + name + "'");
    return word;
  };
  detail::CheckpointAccess::prepare_load(
      learner,
      [&](const std::string& name) { return static_cast<std::int64_t>(saved_word(name, Kind::integer, "integer")); },
      [&](const std::string& name) { return std::bit_cast<double>(saved_word(name, Kind::real, "real")); });
  learner.choose_form(header.spec.form);
  StateFields state;
  learner.state_fields(state);
  const std::vector<Field>& fields = state.fields();
  const std::vector<FieldEntry> mine = detail::layout(fields, static_cast<std::size_t>(front.decoded.block));
  require_same_fields(front.table, mine, header, path);

  // Replicated fields: read and verified before any is installed.
  std::vector<std::uint64_t> words(replicated_words(fields));
  if (!words.empty())
    file.read_bytes(static_cast<MPI_Offset>(replicated_offset(fields, mine)), reinterpret_cast<unsigned char*>(words.data()),
                    8 * words.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (!replicated(f)) continue;
    const auto part = std::span<const std::uint64_t>(words).subspan(at, static_cast<std::size_t>(f.items));
    if (detail::checksum_part(part, 0) != front.table[i].checksum || (f.kind == Kind::flag && part[0] > 1))
      throw InputError(path, 0, "corrupt checkpoint file: checksum mismatch in field '" + f.name + "'");
    if (const auto v = static_cast<std::int64_t>(part[0]); f.kind == Kind::integer && (v < f.min || v > f.max))
      throw InputError(path, 0, "corrupt checkpoint file: field '" + f.name + "' = " + number_text(v) + " is outside [" +
                                    number_text(f.min) + ", " + number_text(f.max) + "]");
    at += part.size();
  }
  // Blocks: each rank reads its own items straight into the learner.
  std::vector<std::uint64_t> block_sums;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (replicated(f)) continue;
    file.read(static_cast<MPI_Offset>(mine[i].offset + 8 * static_cast<std::uint64_t>(f.first * f.width)), f.values.data(),
              static_cast<std::int64_t>(f.values.size()));
    block_sums.push_back(detail::checksum_part(f.values, static_cast<std::uint64_t>(f.first * f.width)));
  }
  file.close();
  sum_over_ranks(comm, block_sums);
  std::size_t b = 0;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (!replicated(fields[i]) && block_sums[b++] != front.table[i].checksum)
      throw InputError(path, 0, "corrupt checkpoint file: checksum mismatch in field '" + fields[i].name + "'");
  at = 0;
  for (const Field& f : fields) switch (f.kind) {
      case Kind::integer: *f.integer = static_cast<std::int64_t>(words[at++]); break;
      case Kind::flag: *f.flag = words[at++] != 0; break;
      case Kind::real:
      case Kind::array:
        for (double& v : f.values) v = std::bit_cast<double>(words[at++]);
        break;
      case Kind::block: break;
    }
  detail::CheckpointAccess::after_load(learner, state);
  return header;
}

std::vector<SpecDifference> spec_differences(const LearnerSpec& saved, const LearnerSpec& given) {
  std::vector<SpecDifference> out;
  const auto text = [&](std::string_view field, const std::string& a, const std::string& b) {
    if (a != b) out.push_back({std::string(field), a, b});
  };
  text("algorithm", saved.algorithm, given.algorithm);
  text("loss", to_string(saved.loss), to_string(given.loss));
  text("classes", number_text(saved.classes), number_text(given.classes));
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto& a, const auto& b) {
        if (h.role == HyperparameterRole::layout) return;  // (the grid lays out the run, not the learner)
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, double>) {
          if (std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b))
            out.push_back({std::string(h.member), number_text(a), number_text(b)});
        } else if constexpr (std::is_same_v<std::decay_t<decltype(a)>, FormChoice>) {
          if (b != FormChoice::automatic) text(h.member, to_string(a), to_string(b));  // auto takes the run's form
        } else {
          text(h.member, hyperparameter_text(a), hyperparameter_text(b));
        }
      },
      saved, given);
  return out;
}

}  // namespace adasketch
