#pragma once
// The checkpoint file's header, spec block and field table (internal; the format is in
// docs/formats.md, "Checkpoint files", and its layout diagram in checkpoint_format.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/state_fields.hpp"

namespace adasketch::detail {

inline constexpr std::size_t kCheckpointHeaderBytes = 512, kCheckpointEntryBytes = 80;
inline constexpr char kCheckpointMagic[8] = {'A', 'D', 'S', 'K', 'C', 'K', 'P', 'T'};

/// One row of the field table.
struct FieldEntry {
  std::string name;
  std::uint64_t kind = 0, items = 0, width = 0, offset = 0, checksum = 0;
};

/// The bytes of the spec block that follows the 512-byte header: the hyperparameters of `spec` as
/// text, `run`'s label values and the block's checksum.
std::size_t spec_block_bytes(const LearnerSpec& spec, const CheckpointRun& run);

/// Where each field's data goes: the replicated fields packed after the header, the spec block
/// (`block` bytes) and the table, then the blocks, in list order (checksums left zero). Identical on
/// every rank.
std::vector<FieldEntry> layout(const std::vector<StateFields::Field>& fields, std::size_t block);
/// The file size for a layout.
std::uint64_t file_size(const std::vector<FieldEntry>& entries, std::size_t block);

/// The header (512 bytes), the spec block and the table.
std::vector<unsigned char> encode_front(const CheckpointHeader& header, const std::vector<FieldEntry>& entries);

/// The decoded header; `fields` and `table_sum` are the table's size and checksum it announces,
/// `size` the file size, `block` the bytes of the spec block after the header, of which
/// `spec_text` hold the hyperparameters and `label_values` · 8 the label values.
struct DecodedHeader {
  CheckpointHeader header;
  std::uint64_t fields = 0, size = 0, table_sum = 0, block = 0, spec_text = 0, label_values = 0;
  /// The label map's kind; a listed one gets its values from the spec block.
  LabelMap::Kind labels = LabelMap::Kind::real;
  /// Flag bit 1: compact features (header.dim is then the original d, + 1 with a bias).
  bool compact = false;
};
/// Validates everything the 512 header bytes can tell, against the actual file size; throws
/// InputError(path, 0, ...).
DecodedHeader decode_header(const unsigned char* bytes, const std::string& path, std::uint64_t actual_size);
/// Decodes the spec block (decoded.block bytes) into decoded.header.spec and its run's label values;
/// throws InputError.
void decode_spec_block(const unsigned char* bytes, DecodedHeader& decoded, const std::string& path);
/// Decodes and validates the table (its checksum and each row's shape); throws InputError.
std::vector<FieldEntry> decode_table(const unsigned char* bytes, const DecodedHeader& decoded, const std::string& path);

/// "ada-fd (logistic loss, d = 123, K = 1, ℓ = 10)", for messages.
std::string describe(const CheckpointHeader& header);

}  // namespace adasketch::detail
