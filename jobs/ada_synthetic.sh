#!/usr/bin/env bash
#SBATCH --job-name=adasketch-ada-synthetic
#SBATCH --ntasks=1
#SBATCH --time=02:00:00
#SBATCH --output=ada_synthetic.%j.out
# ADA-FD paper §4.1 (and ADA-GP/DP paper §4.1): online regression with the absolute loss
# f_t(β) = |βᵀx_t − y_t|, y_t = β*ᵀx_t, d = 500, T = 10,000, x_t ~ N(μ1, Σ), λ_j(Σ) = λ₀ j^{−α} with
# λ₀ = 100, α = 2, μ = 1; τ = ℓ = 10. η and δ over {1e-4, …, 100}, each algorithm at its lowest
# final cumulative loss Σ_t f_t(β_t) (jobs/grid_ada_diag.sh). One JSON report per run under OUT.
#
#   bash jobs/ada_synthetic.sh [ALGO ...]   (default: ada-fd ada-diag ada-fd-da ada-diag-da)
#
# The data come from adasketch::make_low_rank_regression (lib/include/adasketch/data/synthetic.hpp,
# seed SEED, default 1), written once to a dense binary file (ADSKDNS1) by a small generator that
# this script compiles against the build tree (`adasketch train` has no synthetic source yet).
# Environment: OUT (default results/ada_synthetic), NP ranks (default 1), ELL (default 10),
# BUILD (default build), SEED (default 1), DATA (an existing dense binary file: skips generation).
set -euo pipefail
here="${SLURM_SUBMIT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
source "$here/jobs/mpi_env.sh"
out="${OUT:-$here/results/ada_synthetic}"
np="${NP:-${SLURM_NTASKS:-1}}"
ell="${ELL:-10}"
build="${BUILD:-$here/build}"
seed="${SEED:-1}"
export ADASKETCH="${ADASKETCH:-$build/drivers/adasketch}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-fd ada-diag ada-fd-da ada-diag-da)
mkdir -p "$out"

data="${DATA:-$out/low_rank_regression.d500.n10000.seed$seed.bin}"
if [ ! -s "$data" ]; then
  gen="$out/gen_low_rank_regression"
  cat >"$gen.cpp" <<'EOF'
// Writes make_low_rank_regression's examples (d = 500, T = 10,000, λ₀ = 100, α = 2, μ = 1) as the
// dense binary format: "ADSKDNS1", uint64 n, uint64 d, n × (label, x_1..x_d) float64.
#include <mpi.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "adasketch/data/synthetic.hpp"
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  adasketch::LowRankRegressionOptions o;  // defaults: d = 500, T = 10000, λ₀ = 100, α = 2, μ = 1
  o.seed = std::strtoull(argv[2], nullptr, 10);
  adasketch::Communicator self(MPI_COMM_SELF);
  auto source = adasketch::make_low_rank_regression(self, o);
  std::FILE* f = std::fopen(argv[1], "wb");
  if (!f) { std::perror(argv[1]); return 1; }
  const std::uint64_t n = static_cast<std::uint64_t>(o.examples), d = static_cast<std::uint64_t>(o.dim);
  std::fwrite("ADSKDNS1", 1, 8, f);
  std::fwrite(&n, 8, 1, f);
  std::fwrite(&d, 8, 1, f);
  adasketch::Example e;
  while (source->next(e)) {
    std::fwrite(&e.label, 8, 1, f);
    std::fwrite(e.values.data(), 8, e.values.size(), f);
  }
  if (std::fclose(f) != 0) { std::perror(argv[1]); return 1; }
  MPI_Finalize();
}
EOF
  mpicxx -std=c++20 -O2 -DOMPI_SKIP_MPICXX=1 -I"$here/lib/include" "$gen.cpp" -o "$gen" \
    "$build/lib/libadasketch.a" -llapacke -lscalapack-openmpi -lopenblas -lz
  mpirun --quiet -np 1 "$gen" "$data.tmp" "$seed" && mv "$data.tmp" "$data"
fi

summary=()
for algo in "${algos[@]}"; do
  log="$out/$algo.txt"
  bash "$here/jobs/grid_ada_diag.sh" --algo "$algo" --loss absolute --data "$data" --test "" --dim "" \
    --np "$np" --out "$out/$algo" -- --ell "$ell" | tee "$log"
  summary+=("$algo: $(grep '^chosen' "$log")")
done
echo
echo "synthetic low-rank regression (d = 500, T = 10000, λ₀ = 100, α = 2, μ = 1, seed $seed), absolute loss, ell = $ell:"
printf '  %s\n' "${summary[@]}"
