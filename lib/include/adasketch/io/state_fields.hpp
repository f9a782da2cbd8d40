#pragma once
/// @file
/// The complete state of a distributed object, listed field by field for a checkpoint
/// (adasketch/io/checkpoint.hpp). An object (a sketch, a learner) lists each member that a
/// later step reads before writing it, once, in a fixed order; the list holds views into the object,
/// so a checkpoint writer reads them and a reader fills them in place. Two kinds of fields:
///   replicated   the same value on every rank (counters, α, the Gram, lazy coefficients, ...):
///                written once, by rank 0, and read by every rank;
///   distributed  this rank's block of a global array of `items` items of `width` doubles each,
///                split by a BlockPartition (a sketch's feature-major columns, a weight slice, ...):
///                stored at the item's global offset, so a file does not depend on the rank count.
/// Scratch buffers (overwritten before they are read in every step) are not state and are not listed.
/// State an object keeps in another layout (a block-cyclic matrix) is listed as a staged block: the
/// listing owns its storage, and the object copies the state in before the views are read and out
/// after they were filled (Learner's checkpoint hooks).
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/partition.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// The listing of an object's complete state for a checkpoint: views into the object, field by field
/// (see the file description). Building the listing is local. Names are printable ASCII without
/// blanks, 1–31 characters, unique; each listing call throws InvalidArgument otherwise.
class StateFields {
 public:
  /// How a field is stored (the codes are part of the checkpoint format: never renumber them).
  enum class Kind : std::uint32_t {
    integer = 1,  ///< one int64
    flag = 2,     ///< one bool, stored as an int64 0 or 1
    real = 3,     ///< one double
    array = 4,    ///< replicated doubles
    block = 5,    ///< distributed doubles: this rank's items of a partitioned array
  };
  /// One listed field: its name, kind, shape and the view of its storage.
  struct Field {
    std::string name;    ///< unique within the listing, printable ASCII, 1–31 characters
    Kind kind;           ///< how it is stored
    index_t items = 1;   ///< global items: 1 (scalars), the length (array), partition.dim() (block)
    index_t width = 1;   ///< doubles per item (block), else 1
    index_t first = 0;   ///< block: the global index of this rank's first item
    std::span<double> values;        ///< real, array, block
    std::int64_t* integer = nullptr;  ///< integer
    ///@{
    /// integer: the values the object can be in (a reader checks them)
    std::int64_t min = 0, max = 0;
    ///@}
    bool* flag = nullptr;             ///< flag
  };

  /// An integer the object only ever holds in [min, max] (a count, or an index into its buffers): a
  /// reader refuses any other value, so a crafted file cannot make the object index out of bounds.
  /// Throws InvalidArgument for a bad or repeated name, or when value is outside [min, max] now.
  /// @param name the field's name
  /// @param value the object's member (read by a writer, filled by a reader)
  /// @param min the smallest legal value (default 0)
  /// @param max the largest legal value (default: the largest int64)
  void integer(const std::string& name, std::int64_t& value, std::int64_t min = 0,
               std::int64_t max = std::numeric_limits<std::int64_t>::max());
  /// A bool (stored as an int64 0 or 1). Throws InvalidArgument for a bad or repeated name.
  void flag(const std::string& name, bool& value);
  /// A double. Throws InvalidArgument for a bad or repeated name.
  void real(const std::string& name, double& value);
  /// Replicated doubles (the same on every rank; the file keeps rank 0's). Throws InvalidArgument
  /// for a bad or repeated name.
  void array(const std::string& name, std::span<double> values);
  /// `local` holds this rank's items [partition.begin(rank), partition.end(rank)), `width` doubles
  /// each, item-major (local.size() must be partition.size(rank)·width).
  void block(const std::string& name, const BlockPartition& partition, int rank, index_t width,
             std::span<double> local);
  /// A block like block(), whose partition.size(rank)·width doubles this listing owns (zeroed; shared
  /// by its copies): the view of state kept in another layout. Returns the local view.
  std::span<double> staged_block(const std::string& name, const BlockPartition& partition, int rank, index_t width);

  /// While it lives, every name the listing adds or looks up (field()) is the prefix followed by the
  /// name given: how a learner made of learners lists each part's fields apart (AutoTunedLearner).
  class Prefix {
   public:
    Prefix(const Prefix&) = delete;
    Prefix& operator=(const Prefix&) = delete;
    ~Prefix() { fields_.prefix_.resize(outer_); }

   private:
    friend class StateFields;
    Prefix(StateFields& fields, const std::string& prefix) : fields_(fields), outer_(fields.prefix_.size()) {
      fields_.prefix_ += prefix;
    }
    StateFields& fields_;
    std::size_t outer_;
  };
  /// Prefixes the names with `prefix` (after any enclosing one) until the result goes out of scope.
  [[nodiscard]] Prefix prefixed(const std::string& prefix) { return Prefix(*this, prefix); }

  /// The fields in listing order.
  const std::vector<Field>& fields() const noexcept { return fields_; }
  /// The field listed as `name`; throws InvalidArgument when there is none.
  const Field& field(const std::string& name) const;

 private:
  Field& add(const std::string& name, Kind kind);
  std::vector<Field> fields_;
  std::string prefix_;  ///< prepended to every name (Prefix)
  std::vector<std::shared_ptr<std::vector<double>>> staged_;  ///< storage of the staged blocks
};

/// "integer", "flag", "real", "array" or "block".
std::string to_string(StateFields::Kind kind);

}  // namespace adasketch
