// libFuzzer target: the model file reader (LinearModel::load) on MPI_COMM_SELF. Byte 0 picks which
// checksums this target recomputes before writing the rest as the file (bit 0: the weights
// checksum, bit 1: the header checksum, by the formulas of docs/formats.md), so that mutations also reach the
// checks behind them. Errors must be InputErrors; a model that loads must save back to the very
// same bytes (the format has one encoding per model).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "fuzz_support.hpp"

using namespace adasketch;
using fuzz::require;

namespace {

constexpr std::size_t kHeader = 128, kTrailer = 16;

std::uint64_t word_at(const std::vector<unsigned char>& file, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, file.data() + at, 8);
  return v;
}

void fix_checksums(std::vector<unsigned char>& file, unsigned mode) {
  if (file.size() < kHeader) return;
  // W: the header's d·K words, or the words present when the file is shorter.
  const std::uint64_t d = word_at(file, 16), K = word_at(file, 24), L = word_at(file, 96);
  const std::uint64_t present = (file.size() - kHeader) / 8;
  const std::uint64_t words = K != 0 && d <= present / K ? d * K : present;
  if ((mode & 1) != 0) {  // of W
    const std::uint64_t sum = fuzz::word_checksum(file.data() + kHeader, words);
    std::memcpy(file.data() + 112, &sum, 8);
  }
  if ((mode & 2) != 0) {  // of bytes 0..119, the L label values and the trailer after W (as far as present)
    const std::size_t at = kHeader + 8 * words;
    const std::size_t end = at + std::min<std::uint64_t>(8 * std::min(L, present) + kTrailer, file.size() - at);
    std::vector<unsigned char> covered(file.begin(), file.begin() + 120);
    covered.insert(covered.end(), file.begin() + static_cast<std::ptrdiff_t>(at), file.begin() + static_cast<std::ptrdiff_t>(end));
    const std::uint64_t h = fuzz::fnv1a(covered.data(), 0, covered.size());
    std::memcpy(file.data() + 120, &h, 8);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!fuzz::start_input(size)) return 0;
  std::vector<unsigned char> file(data + 1, data + size);
  fix_checksums(file, data[0]);
  const std::string path = fuzz::scratch_path("model"), copy = fuzz::scratch_path("copy");
  fuzz::write_file(path, file.data(), file.size());
  const Communicator self(MPI_COMM_SELF);
  try {
    const LinearModel model = LinearModel::load(self, path);
    require(model.dim() >= 1 && model.outputs() >= 1, "model sizes");
    require(static_cast<std::size_t>(model.dim() * model.outputs()) == model.weights().size(), "weights count");
    require(model.labels().fits(model.loss()), "label map does not fit the loss");
    model.save(copy);
    const std::string saved = fuzz::read_file(copy);
    require(saved.size() == file.size() && std::memcmp(saved.data(), file.data(), file.size()) == 0,
            "a loaded model does not save back to the same bytes");
    std::remove(copy.c_str());
  } catch (const InputError& e) {
    require(std::strchr(e.what(), '\n') == nullptr, "multi-line error message");
  }
  std::remove(path.c_str());
  return 0;
}
