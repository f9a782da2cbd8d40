// `adasketch export`: a saved model in another program's format: LIBLINEAR's text model (for
// liblinear-predict), plain text, or NumPy .npy (written with xtensor).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "report_file.hpp"

namespace adasketch::driver {

namespace {

OptionParser make_parser() {
  OptionParser p(std::string(kProgram) + " export", "--format FORMAT MODEL OUT",
                 "Writes the model file MODEL (from `adasketch train --model`) to OUT in another format; W has\n"
                 "one row per feature, the bias feature's last, and K columns (softmax: one per class):\n"
                 "  liblinear  LIBLINEAR's text model, for liblinear-predict (integer class labels)\n"
                 "  text       '#' comment lines, then one line per row of W, its K weights\n"
                 "  npy        NumPy .npy, float64, shape (rows,) or (rows, K)\n"
                 "Rank 0 writes OUT.tmp and renames it to OUT.");
  p.required("format", OptionType::String, "FORMAT", "liblinear, text or npy");
  return p;
}

// MODEL and OUT, taken out of `args`; the rest are options (each takes a value, but --help and --x=v).
std::vector<std::string> split_positionals(std::span<const std::string> args, std::vector<std::string>& options) {
  std::vector<std::string> positionals;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      positionals.push_back(a);
      continue;
    }
    options.push_back(a);
    if (a.starts_with("--") && a != "--help" && a.find('=') == std::string::npos && i + 1 < args.size())
      options.push_back(args[++i]);
  }
  return positionals;
}

// LIBLINEAR's label of a class (an int); InvalidArgument for another label.
std::string liblinear_label(const LabelMap& labels, double mapped) {
  const double v = labels.original(mapped);
  if (v != std::floor(v) || std::fabs(v) > 2147483647.0)
    throw InvalidArgument("format liblinear: LIBLINEAR's labels are integers; the model's label map is " + labels.describe());
  return number_text(static_cast<long long>(v));
}

// LIBLINEAR's model text (linear.cpp save_model): the decision of a two-class model is label[0] when
// wᵀx > 0, else label[1]; of K ≥ 3 classes, label[argmax_k w_kᵀx]. A two-class softmax model becomes
// one column w_1 − w_0 (a tie goes to class 0 in both).
std::string liblinear_text(const LinearModel& m, std::span<const double> w) {
  const Loss& loss = m.loss();
  const auto K = static_cast<std::size_t>(m.outputs());
  const auto rows = static_cast<std::size_t>(m.dim());
  const bool softmax = loss.kind() == LossKind::softmax, two = softmax && K == 2;
  std::string solver = "L2R_LR";
  if (loss.kind() == LossKind::hinge) solver = "L2R_L1LOSS_SVC_DUAL";
  if (loss.kind() == LossKind::squared_hinge) solver = "L2R_L2LOSS_SVC";
  if (loss.kind() == LossKind::squared) solver = "L2R_L2LOSS_SVR";
  if (loss.kind() == LossKind::absolute) solver = "L2R_L1LOSS_SVR_DUAL";
  std::string text = "solver_type " + solver + "\nnr_class " + number_text(softmax && !two ? K : 2) + "\n";
  if (loss.is_classification()) {
    text += "label";
    std::vector<double> order{1.0, two ? 0.0 : -1.0};  // label[0] is the class of a positive wᵀx
    if (softmax && !two) order.clear();
    for (std::size_t k = 0; softmax && !two && k < K; ++k) order.push_back(static_cast<double>(k));
    for (const double mapped : order) {
      text += ' ';
      text += liblinear_label(m.labels(), mapped);
    }
    text += '\n';
  }
  text += "nr_feature " + number_text(m.data_dim()) + "\nbias " + (m.bias() > 0.0 ? number_text(m.bias()) : "-1") + "\nw\n";
  for (std::size_t j = 0; j < rows; ++j) {
    if (two) {
      text += number_text(w[j * K + 1] - w[j * K]) + " \n";
      continue;
    }
    for (std::size_t k = 0; k < K; ++k) text += number_text(w[j * K + k]) + " ";
    text += "\n";
  }
  return text;
}

std::string plain_text(const LinearModel& m, const std::string& path, std::span<const double> w) {
  const auto K = static_cast<std::size_t>(m.outputs());
  std::string text = "# adasketch model " + path + ": " + m.algorithm() + ", " + m.loss().name() + " loss, d = " +
                     number_text(m.data_dim()) + ", K = " + number_text(K) + ", bias " +
                     (m.bias() > 0.0 ? number_text(m.bias()) : "none") + ", labels " + m.labels().describe() + "\n" +
                     "# one row of W per line (features 1..d" + (m.bias() > 0.0 ? ", then the bias feature" : "") +
                     "), K weights per row\n";
  for (std::size_t j = 0; j < static_cast<std::size_t>(m.dim()); ++j) {
    for (std::size_t k = 0; k < K; ++k) {
      if (k > 0) text += ' ';
      text += number_text(w[j * K + k]);
    }
    text += "\n";
  }
  return text;
}

std::string npy_bytes(const LinearModel& m, std::span<const double> w) {
  const auto K = static_cast<std::size_t>(m.outputs()), rows = static_cast<std::size_t>(m.dim());
  std::vector<std::size_t> shape{rows};
  if (K > 1) shape.push_back(K);
  return xt::dump_npy(xt::adapt(w.data(), w.size(), xt::no_ownership(), shape));
}

}  // namespace

int run_export(const Communicator& comm, std::span<const std::string> args) {
  OptionParser opts = make_parser();
  std::vector<std::string> options;
  const std::vector<std::string> files = split_positionals(args, options);
  if (!parse_command_line(opts, comm, options)) return 0;
  if (files.size() != 2)
    throw InvalidArgument("expected MODEL and OUT, got " + number_text(files.size()) + " file argument" +
                          (files.size() == 1 ? "" : "s") + " (see 'adasketch export --help')");
  const std::string format = opts.text("format"), &model_path = files[0], &out = files[1];
  if (format != "liblinear" && format != "text" && format != "npy")
    throw InvalidArgument("option --format: unknown format '" + format + "' (liblinear, text or npy)");
  check_distinct_files(comm, {{"MODEL", model_path, false}, {"OUT", out, true}});
  check_writable(comm, out + ".tmp", "OUT", false);
  const LinearModel whole = LinearModel::load(comm, model_path);
  if (whole.features())
    throw InvalidArgument("MODEL '" + model_path + "' keeps only the " + number_text(whole.data_dim()) + " of d = " +
                          number_text(whole.original_dim()) + " features its training data had (train --features seen), "
                          "and the formats of export hold every feature: train with --features all to export it");
  const index_t rows = whole.dim();
  std::vector<index_t> sizes(static_cast<std::size_t>(comm.size()), 0);
  sizes[0] = rows;  // rank 0 holds all of W
  const LinearModel model = LinearModel::load(comm, model_path, BlockPartition(sizes));
  std::string bytes;
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    if (format == "liblinear") bytes = liblinear_text(model, model.weights());
    if (format == "text") bytes = plain_text(model, model_path, model.weights());
    if (format == "npy") bytes = npy_bytes(model, model.weights());
  });
  write_text_file(comm, out + ".tmp", bytes, "OUT");
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    std::error_code ec;
    std::filesystem::rename(out + ".tmp", out, ec);
    if (ec) throw Error("OUT: cannot rename '" + out + ".tmp' to '" + out + "': " + ec.message());
  });
  return 0;
}

}  // namespace adasketch::driver
