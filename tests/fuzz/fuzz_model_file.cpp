// libFuzzer target: the model file reader (LinearModel::load) on MPI_COMM_SELF. Byte 0 picks which
// checksums this target recomputes before writing the rest as the file (bit 0: the weights
// checksum, bit 1: the header checksum, by the README's formulas), so that mutations also reach the
// checks behind them. Errors must be InputErrors; a model that loads must save back to the very
// same bytes (the format has one encoding per model).
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/linear_model.hpp"
#include "fuzz_support.hpp"

using namespace adasketch;
using fuzz::require;

namespace {

constexpr std::size_t kHeader = 128;

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fix_checksums(std::vector<unsigned char>& file, unsigned mode) {
  if (file.size() < kHeader) return;
  if ((mode & 1) != 0) {  // Σ_e splitmix64(bits(w_e) XOR splitmix64(e)) over the weights present
    std::uint64_t sum = 0;
    for (std::size_t e = 0; kHeader + 8 * (e + 1) <= file.size(); ++e) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, file.data() + kHeader + 8 * e, 8);
      sum += splitmix64(bits ^ splitmix64(e));
    }
    std::memcpy(file.data() + 112, &sum, 8);
  }
  if ((mode & 2) != 0) {  // FNV-1a of bytes 0..119
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < 120; ++i) h = (h ^ file[i]) * 0x100000001b3ull;
    std::memcpy(file.data() + 120, &h, 8);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::init_mpi();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > (1u << 20)) return 0;
  fuzz::init_mpi();
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
