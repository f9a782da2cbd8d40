// The compiled part `adasketch._core` (pybind11) of the Python package `adasketch` (python/src/adasketch/,
// whose scikit-learn estimators are pure Python on top of it): a learner on an mpi4py communicator
// (or MPI_COMM_WORLD when comm is None, MPI initialized here when no one has) with a
// scikit-learn-like surface. Each rank passes its own columns of X (the features
// [local_range[0], local_range[1]) of its block): a numpy array (n, local) or a scipy.sparse CSR
// matrix with `local` columns. Errors raise ValueError (bad arguments), OSError (files),
// FloatingPointError (non-finite values) or RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/version.hpp"

namespace py = pybind11;
namespace as = adasketch;

namespace {

using Dense = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Indices = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// MPI initialized by this module (no mpi4py imported): finalized when the interpreter exits.
void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }));
}

// The MPI_Comm of an mpi4py communicator, through its Fortran handle (no mpi4py headers needed), or
// MPI_COMM_WORLD for None.
MPI_Comm to_comm(const py::object& comm) {
  if (comm.is_none()) {
    ensure_mpi();
    return MPI_COMM_WORLD;
  }
  return MPI_Comm_f2c(comm.attr("py2f")().cast<MPI_Fint>());
}

// A hyperparameter's value as a Python object: a number, a bool, an enum's name, a tuple of numbers.
template <class T>
py::object hyperparameter_object(const T& value) {
  if constexpr (std::is_enum_v<T>)
    return py::str(as::to_string(value));
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return py::tuple(py::cast(value));
  else
    return py::cast(value);
}

// The table's rows as (name, default, help) tuples, in the table's order.
py::list hyperparameter_rows() {
  py::list rows;
  const as::LearnerSpec defaults;
  as::for_each_hyperparameter(
      [&](const as::HyperparameterInfo& h, const auto& value) {
        rows.append(py::make_tuple(std::string(h.member), hyperparameter_object(value), std::string(h.help)));
      },
      defaults);
  return rows;
}

// A temporary file name agreed by every rank of comm (rank 0's, broadcast): in $TMPDIR or /tmp,
// which the ranks must share (as they share the checkpoint files of `adasketch train`).
std::string shared_temporary(const as::Communicator& comm) {
  std::vector<char> name(4096, '\0');
  if (comm.rank() == 0) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/adasketch-pickle-XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd >= 0) {
      close(fd);
      path.copy(name.data(), std::min(path.size(), name.size() - 1));
    }
  }
  comm.broadcast(std::span<char>(name), 0);
  const std::string path(name.data());
  if (path.empty()) throw as::Error("cannot create a temporary file for a checkpoint");
  return path;
}

// A keyword argument as a hyperparameter's type (an enum by its name).
template <class T>
T hyperparameter_value(const py::handle& value) {
  if constexpr (std::is_enum_v<T>)
    return as::from_string<T>(value.cast<std::string>());
  else
    return value.cast<T>();
}

// The LearnerSpec of Learner(algorithm, n_features, comm, loss, classes, **hyperparameters): each
// keyword a row of the hyperparameter table, by its LearnerSpec name.
as::LearnerSpec spec_of(const std::string& algorithm, const std::string& loss, int classes, const py::kwargs& kwargs) {
  as::LearnerSpec spec;
  spec.algorithm = algorithm;
  spec.loss = as::from_string<as::LossKind>(loss);
  spec.classes = classes;
  std::size_t taken = 0;
  as::for_each_hyperparameter(
      [&](const as::HyperparameterInfo& h, auto& field) {
        const std::string key(h.member);
        if (!kwargs.contains(key)) return;
        const py::handle value = kwargs[key.c_str()];
        try {
          field = hyperparameter_value<std::decay_t<decltype(field)>>(value);
        } catch (const py::cast_error&) {
          const std::string was = as::hyperparameter_text(field);  // (still the default)
          throw as::InvalidArgument("Learner: hyperparameter '" + key + "' cannot take " +
                                    py::repr(value).cast<std::string>() + " (its default is " +
                                    (was.empty() ? "none" : was) + ")");
        }
        ++taken;
      },
      spec);
  if (taken != kwargs.size())
    for (const auto& item : kwargs) {
      const std::string key = item.first.cast<std::string>();
      bool known = false;
      as::for_each_hyperparameter([&](const as::HyperparameterInfo& h, const auto&) { known = known || h.member == key; },
                                  spec);
      if (!known) throw as::InvalidArgument("Learner: unknown hyperparameter '" + key + "'");
    }
  return spec;
}

// The hyperparameters with their defaults, for the class's docstring.
std::string hyperparameter_doc() {
  std::string doc;
  const as::LearnerSpec defaults;
  as::for_each_hyperparameter(
      [&](const as::HyperparameterInfo& h, const auto& value) {
        doc += "\n  " + std::string(h.member) + " = " + as::hyperparameter_text(value) + ": " + std::string(h.help);
      },
      defaults);
  return doc;
}

class PyLearner {
 public:
  PyLearner(const as::LearnerSpec& spec, as::index_t n_features, const py::object& comm)
      : comm_(to_comm(comm)), learner_(as::make_learner(comm_, n_features, spec)) {}

  py::tuple local_range() const {
    const int r = comm_.rank();
    return py::make_tuple(learner_->partition().begin(r), learner_->partition().end(r));
  }
  as::index_t n_features() const { return learner_->partition().dim(); }
  int n_outputs() const { return learner_->outputs(); }
  as::index_t steps() const { return learner_->steps(); }
  std::string name() const { return learner_->name(); }
  bool classifies() const { return learner_->loss().is_classification(); }

  /// Collective. One online step per row, in order; returns the online mistakes of these rows.
  as::index_t partial_fit(const py::object& X, const py::object& y) {
    const std::vector<double> labels = y.cast<std::vector<double>>();
    as::index_t mistakes = 0;
    for_each_row(X, static_cast<as::index_t>(labels.size()), [&](as::index_t i, const as::LocalRow& row) {
      mistakes += learner_->step(row, labels[static_cast<std::size_t>(i)]).mistake ? 1 : 0;
    });
    return mistakes;
  }

  /// Collective. Scores Wᵀx: shape (n,), or (n, K) for softmax.
  py::array_t<double> decision_function(const py::object& X) const {
    const as::index_t n = rows_of(X);
    const int K = learner_->outputs();
    py::array_t<double> out(K == 1 ? std::vector<py::ssize_t>{n} : std::vector<py::ssize_t>{n, K});
    double* scores = out.mutable_data();
    for_each_row(X, n, [&](as::index_t i, const as::LocalRow& row) {
      learner_->predict(row, std::span<double>(scores + i * K, static_cast<std::size_t>(K)));
    });
    return out;
  }

  /// Local. This rank's rows of W: shape (local,), or (local, K) for softmax.
  py::array_t<double> coef() const {
    const auto local = learner_->local_dim();
    const int K = learner_->outputs();
    py::array_t<double> out(K == 1 ? std::vector<py::ssize_t>{local} : std::vector<py::ssize_t>{local, K});
    learner_->weights(std::span<double>(out.mutable_data(), static_cast<std::size_t>(local * K)));
    return out;
  }

  /// Collective. All of W on every rank: shape (d,), or (d, K) for softmax.
  py::array_t<double> global_coef() const {
    const auto d = learner_->partition().dim();
    const int K = learner_->outputs();
    py::array_t<double> out(K == 1 ? std::vector<py::ssize_t>{d} : std::vector<py::ssize_t>{d, K});
    std::span<double> all(out.mutable_data(), static_cast<std::size_t>(d * K));
    std::fill(all.begin(), all.end(), 0.0);
    const auto begin = learner_->partition().begin(comm_.rank());
    learner_->weights(all.subspan(static_cast<std::size_t>(begin * K), static_cast<std::size_t>(learner_->local_dim() * K)));
    comm_.allreduce_sum(all);  // each entry is one rank's value plus zeros: exact
    return out;
  }

  /// Collective. The checkpoint file's bytes (as save_checkpoint writes them), on every rank.
  py::bytes checkpoint_bytes() {
    const std::string path = shared_temporary(comm_);
    as::save_checkpoint(path, *learner_);
    std::vector<char> bytes;
    if (comm_.rank() == 0) {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    comm_.barrier();
    if (comm_.rank() == 0) std::remove(path.c_str());
    auto size = static_cast<as::index_t>(bytes.size());
    comm_.broadcast(std::span<as::index_t>(&size, 1), 0);
    bytes.resize(static_cast<std::size_t>(size));
    comm_.broadcast(std::span<char>(bytes), 0);
    return py::bytes(bytes.data(), bytes.size());
  }

  /// Collective. Restores the learner from checkpoint_bytes() (rank 0's bytes count).
  void restore_checkpoint_bytes(const py::bytes& bytes) {
    const std::string path = shared_temporary(comm_);
    if (comm_.rank() == 0) {
      const std::string data = bytes;
      std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
    }
    comm_.barrier();
    try {
      as::load_checkpoint(path, *learner_);
    } catch (...) {
      if (comm_.rank() == 0) std::remove(path.c_str());
      throw;
    }
    comm_.barrier();
    if (comm_.rank() == 0) std::remove(path.c_str());
  }

  /// Collective. The model file; with a bias B > 0 the learner's last feature is B (as `adasketch
  /// train --bias`), and `labels` (ascending) are the raw labels of −1, +1 (binary) or of the classes
  /// 0..K−1 (softmax), as the label maps two_values and listed_classes (none: as the loss takes them).
  void save_model(const std::string& path, double bias, const std::optional<std::vector<double>>& labels) const {
    using Kind = as::LabelMap::Kind;
    const as::LabelMap map = labels ? as::LabelMap(learner_->outputs() > 1 ? Kind::listed_classes : Kind::two_values, *labels)
                                    : as::LabelMap::of_loss(learner_->loss());
    as::save_model(*learner_, map, path, bias);
  }
  /// --auto: None, or the race as a dict (decided, chosen, examples, candidates: eta, alpha0,
  /// failed, online_mistakes, cumulative_loss), the same on every rank.
  py::object auto_race() const {
    const auto* tuned = dynamic_cast<const as::AutoTunedLearner*>(learner_.get());
    if (tuned == nullptr) return py::none();
    py::list candidates;
    for (const auto& c : tuned->candidates())
      candidates.append(py::dict(py::arg("eta") = c.spec.eta, py::arg("alpha0") = c.spec.alpha0, py::arg("failed") = c.failed,
                                 py::arg("online_mistakes") = c.mistakes, py::arg("cumulative_loss") = c.loss));
    return py::dict(py::arg("decided") = tuned->decided(), py::arg("chosen") = tuned->leader(),
                    py::arg("examples") = learner_->spec().auto_examples, py::arg("candidates") = candidates);
  }
  void save_checkpoint(const std::string& path) { as::save_checkpoint(path, *learner_); }
  void load_checkpoint(const std::string& path) { as::load_checkpoint(path, *learner_); }

 private:
  as::index_t rows_of(const py::object& X) const {
    return py::hasattr(X, "indptr") ? X.attr("shape").cast<py::tuple>()[0].cast<as::index_t>()
                                    : Dense::ensure(X).shape(0);
  }

  // Calls f(i, row i of X) for the rows of a numpy array or a scipy.sparse CSR matrix.
  template <class F>
  void for_each_row(const py::object& X, as::index_t n, F&& f) const {
    const auto local = learner_->local_dim();
    if (py::hasattr(X, "indptr")) {
      if (X.attr("format").cast<std::string>() != "csr") throw as::InvalidArgument("X: a sparse matrix must be CSR");
      const auto shape = X.attr("shape").cast<py::tuple>();
      if (shape[1].cast<as::index_t>() != local)
        throw as::InvalidArgument("X has " + std::to_string(shape[1].cast<as::index_t>()) + " columns, this rank owns " +
                                  std::to_string(local) + " features");
      const Indices indptr = Indices::ensure(X.attr("indptr")), indices = Indices::ensure(X.attr("indices"));
      const Dense data = Dense::ensure(X.attr("data"));
      if (n != shape[0].cast<as::index_t>()) throw as::InvalidArgument("X and y differ in length");
      for (as::index_t i = 0; i < n; ++i) {
        const auto first = indptr.at(i), last = indptr.at(i + 1);
        const auto count = static_cast<std::size_t>(last - first);
        // CSR from scipy may leave the indices of a row unsorted; the learner checks nothing here.
        for (auto e = first + 1; e < last; ++e)
          if (indices.at(e) <= indices.at(e - 1)) throw as::InvalidArgument("X: call X.sort_indices() first");
        f(i, as::LocalRow::sparse(std::span<const as::index_t>(indices.data() + first, count),
                                  std::span<const double>(data.data() + first, count)));
      }
    } else {
      const Dense a = Dense::ensure(X);
      if (!a || a.ndim() != 2 || a.shape(1) != local)
        throw as::InvalidArgument("X must be a 2-D array with " + std::to_string(local) + " columns (this rank's features)");
      if (a.shape(0) != n) throw as::InvalidArgument("X and y differ in length");
      for (as::index_t i = 0; i < n; ++i)
        f(i, as::LocalRow::dense(std::span<const double>(a.data() + i * local, static_cast<std::size_t>(local))));
    }
  }

  as::Communicator comm_;
  std::unique_ptr<as::Learner> learner_;
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Sketched full-matrix adaptive online learning (AdaGrad, Online Newton Step) over MPI";
  m.attr("__version__") = as::version();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const as::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const as::InputError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const as::NumericError& e) {
      PyErr_SetString(PyExc_FloatingPointError, e.what());
    }
  });
  const as::LearnerSpec d;  // the library's defaults
  static const std::string learner_doc =
      "An online learner on the ranks of `comm` (an mpi4py communicator); features split uniformly, this rank's "
      "are local_range. Calls other than coef_ are collective. Hyperparameters are keyword arguments, with their "
      "defaults:" +
      hyperparameter_doc();
  m.def("hyperparameters", &hyperparameter_rows,
        "The hyperparameter table's rows as (name, default, help), in its order: the keyword arguments of "
        "Learner and of the estimators, with the library's one set of defaults.");
  m.attr("default_loss") = as::to_string(d.loss);
  m.attr("default_algorithm") = d.algorithm;
  m.def(
      "block_range",
      [](as::index_t dim, const py::object& comm) {
        const as::Communicator c(to_comm(comm));
        const as::BlockPartition partition(dim, c.size());
        return py::make_tuple(partition.begin(c.rank()), partition.end(c.rank()));
      },
      py::arg("dim"), py::arg("comm") = py::none(),
      "[begin, end): this rank's features of `dim` split as a Learner splits them (uniform blocks).");
  m.def(
      "comm_rank_size",
      [](const py::object& comm) {
        const as::Communicator c(to_comm(comm));
        return py::make_tuple(c.rank(), c.size());
      },
      py::arg("comm") = py::none(), "(rank, size) of comm (None: MPI_COMM_WORLD).");
  m.def(
      "allreduce_sum",
      [](as::index_t value, const py::object& comm) { return as::Communicator(to_comm(comm)).allreduce_sum(value); },
      py::arg("value"), py::arg("comm") = py::none(), "Collective. The sum of an integer over comm's ranks.");
  m.def(
      "allreduce_max",
      [](double value, const py::object& comm) { return as::Communicator(to_comm(comm)).allreduce_max(value); },
      py::arg("value"), py::arg("comm") = py::none(), "Collective. The maximum of a number over comm's ranks.");
  py::class_<PyLearner>(m, "Learner", learner_doc.c_str())
      .def(py::init([](const std::string& algorithm, as::index_t n_features, const py::object& comm,
                       const std::string& loss, int classes, const py::kwargs& hyperparameters) {
             return PyLearner(spec_of(algorithm, loss, classes, hyperparameters), n_features, comm);
           }),
           py::arg("algorithm"), py::arg("n_features"), py::arg("comm") = py::none(), py::arg("loss") = as::to_string(d.loss),
           py::arg("classes") = d.classes)
      .def("partial_fit", &PyLearner::partial_fit, py::arg("X"), py::arg("y"),
           "One online step per row of X (this rank's columns); returns the online mistakes.")
      .def("decision_function", &PyLearner::decision_function, py::arg("X"))
      .def(
          "predict",
          [](const PyLearner& self, const py::object& X) -> py::object {
            py::object scores = self.decision_function(X);
            if (self.n_outputs() > 1) return scores.attr("argmax")(py::arg("axis") = 1);
            if (!self.classifies()) return scores;  // regression
            return py::module_::import("numpy").attr("where")(scores.attr("__gt__")(0.0), 1.0, -1.0);
          },
          py::arg("X"), "±1 (binary losses; a zero score is −1), the argmax class (softmax), the score (regression).")
      .def_property_readonly("coef_", &PyLearner::coef, "This rank's rows of W.")
      .def_property_readonly("local_range", &PyLearner::local_range)
      .def_property_readonly("n_features_in_", &PyLearner::n_features)
      .def_property_readonly("steps", &PyLearner::steps)
      .def_property_readonly("name", &PyLearner::name)
      .def("global_coef", &PyLearner::global_coef, "All of W, on every rank (collective).")
      .def("checkpoint_bytes", &PyLearner::checkpoint_bytes, "The checkpoint file's bytes, on every rank (collective).")
      .def("restore_checkpoint_bytes", &PyLearner::restore_checkpoint_bytes, py::arg("data"),
           "Restores the learner from checkpoint_bytes() (collective).")
      .def("save_model", &PyLearner::save_model, py::arg("path"), py::arg("bias") = 0.0, py::arg("labels") = py::none(),
           "The model file (collective); bias: the learner's last feature is this constant (adasketch train "
           "--bias); labels: the raw labels of -1, +1 or of the classes 0..K-1, ascending.")
      .def("auto_race", &PyLearner::auto_race,
           "--auto (auto_tune): None, or the race: decided, chosen (an index into candidates), examples, and each "
           "candidate's eta, alpha0, failed, online_mistakes and cumulative_loss.")
      .def("save_checkpoint", &PyLearner::save_checkpoint, py::arg("path"))
      .def("load_checkpoint", &PyLearner::load_checkpoint, py::arg("path"));
}
